// setjmp/longjmp: main -> outer -> inner -> longjmp back into main, three
// times. See docs/call-stacks.md for how the jump into main is attributed.
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
static int depth_reached;

__attribute__((noinline)) void inner(int round) {
  depth_reached += round;
  longjmp(env, round + 1);
}

__attribute__((noinline)) void outer(int round) {
  inner(round);
  depth_reached = -1;  // never reached
}

int main(void) {
  volatile int rounds = 0;
  int value = setjmp(env);
  if (value < 3) {
    rounds = rounds + 1;
    outer(value);
  }
  printf("%d %d\n", rounds, depth_reached);
  return 0;
}
