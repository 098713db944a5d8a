/* Test input for symbolizer_test: function symbols exercising every clause
   of the "which function is this address" rule (docs/call-stacks.md):
   aliases, a size-0 symbol, a nested symbol, two symbols at one start with
   different sizes, code covered by no symbol, a size-0 symbol that is the
   last of its section, and an IFUNC. Built with -O2 -fno-inline. */
#include <stdio.h>

__attribute__((noinline)) int alias_target(int x) { return x * 7 + 3; }
/* Three names for one function: the name that sorts first wins. */
extern int zz_alias(int) __attribute__((alias("alias_target")));
extern int aa_alias(int) __attribute__((alias("alias_target")));
extern int weak_alias(int) __attribute__((weak, alias("alias_target")));

static int ifunc_impl(void) { return 42; }
static void *resolve_ifunc_fn(void) { return (void *)ifunc_impl; }
int ifunc_fn(void) __attribute__((ifunc("resolve_ifunc_fn")));

__attribute__((noinline)) int plain_function(int a, int b) {
  return a * b + (a ^ b);
}

#if defined(__x86_64__) || defined(__i386__)
__asm__(
    ".text\n"
    ".p2align 4\n"
    /* No .size: covers up to the next function symbol (after_zero). */
    ".globl zero_size_fn\n"
    ".type zero_size_fn, @function\n"
    "zero_size_fn:\n"
    "  nop\n  nop\n  nop\n  nop\n  nop\n  ret\n"
    ".globl after_zero\n"
    ".type after_zero, @function\n"
    "after_zero:\n"
    "  ret\n"
    ".size after_zero, .-after_zero\n"
    /* Code no function symbol covers (a NOTYPE label does not count). */
    "gap_label:\n"
    "  nop\n  nop\n  nop\n  nop\n  nop\n  nop\n  ret\n"
    /* inner_fn lies inside outer_fn and wins there (higher start). */
    ".p2align 4\n"
    ".globl outer_fn\n"
    ".type outer_fn, @function\n"
    "outer_fn:\n"
    "  nop\n  nop\n  nop\n  nop\n"
    ".globl inner_fn\n"
    ".type inner_fn, @function\n"
    "inner_fn:\n"
    "  nop\n  nop\n  ret\n"
    ".size inner_fn, .-inner_fn\n"
    "  nop\n  nop\n  nop\n  nop\n  nop\n  ret\n"
    ".size outer_fn, .-outer_fn\n"
    /* Same start: the larger size wins, where it covers. */
    ".p2align 4\n"
    ".globl big_same\n"
    ".type big_same, @function\n"
    ".globl small_same\n"
    ".type small_same, @function\n"
    "big_same:\n"
    "small_same:\n"
    "  nop\n  ret\n"
    ".size small_same, .-small_same\n"
    "  nop\n  nop\n  ret\n"
    ".size big_same, .-big_same\n"
    /* Alone in its own output section, size 0: covers to the section end. */
    ".section hwt_lonely,\"ax\",@progbits\n"
    ".globl last_zero\n"
    ".type last_zero, @function\n"
    "last_zero:\n"
    "  nop\n  nop\n  nop\n  ret\n"
    ".text\n");
int zero_size_fn(void);
int after_zero(void);
int outer_fn(void);
int inner_fn(void);
int big_same(void);
int last_zero(void);
#endif

int main(int argc, char **argv) {
  int r = alias_target(argc) + zz_alias(1) + aa_alias(2) + weak_alias(3);
  r += ifunc_fn() + plain_function(argc, 3);
#if defined(__x86_64__) || defined(__i386__)
  if (argc > 100) r += zero_size_fn() + after_zero() + outer_fn() +
                       inner_fn() + big_same() + last_zero();
#endif
  printf("%d\n", r);
  return 0;
}
