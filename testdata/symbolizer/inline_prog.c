/* Test input for symbolizer_test: built with -g -O2 so that the static
   helpers are inlined (up to three levels deep) into the exported functions;
   the inline frames and lines are compared with addr2line -i. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int square(int x) { return x * x; }

static inline int sum_squares(const int *v, int n) {
  int total = 0;
  for (int i = 0; i < n; ++i) total += square(v[i]);
  return total;
}

static inline int checksum(const char *s) {
  int h = 7;
  while (*s) h = h * 31 + (unsigned char)*s++;
  return h ^ sum_squares((const int *)"abcdefgh", 2);
}

__attribute__((noinline)) int compute(int n) {
  int *v = malloc(sizeof(int) * (size_t)n);
  if (v == NULL) return -1;
  for (int i = 0; i < n; ++i) v[i] = i * 3 + 1;
  int r = sum_squares(v, n);
  free(v);
  return r;
}

__attribute__((noinline)) int hash_args(int argc, char **argv) {
  int h = 0;
  for (int i = 0; i < argc; ++i) h += checksum(argv[i]) + (int)strlen(argv[i]);
  return h;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10;
  printf("%d %d\n", compute(n), hash_args(argc, argv));
  puts(getenv("HOME") ? "home" : "no home");
  return 0;
}
