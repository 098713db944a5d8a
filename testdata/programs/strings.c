// String functions from libc (memcpy, strlen, strcmp: ifunc-selected,
// vectorised, reached through the PLT) and explicit rep movsb / rep stosb,
// which PT counts once per execution whatever the iteration count.
#include <stdio.h>
#include <string.h>

static char buffer[256];
static char copy[256];

__attribute__((noinline)) void rep_copy(char* dst, const char* src,
                                        unsigned long n) {
  __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

__attribute__((noinline)) void rep_fill(char* dst, int value, unsigned long n) {
  __asm__ volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(value) : "memory");
}

int main(void) {
  const char* words[] = {"alpha", "beta", "gamma", "delta", "epsilon"};
  unsigned long total = 0;
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 5; ++i) {
      size_t n = strlen(words[i]);
      memcpy(buffer + round * 8, words[i], n + 1);
      total +=
          n + (unsigned long)strcmp(buffer + round * 8, words[(i + 1) % 5]);
    }
  }
  rep_fill(copy, 'x', 100);
  rep_copy(copy, buffer, 64);
  rep_copy(copy, buffer, 0);
  printf("%lu %zu\n", total, strlen(copy));
  return 0;
}
