/* The test program of the export round trips (tests/export): small and
   deterministic (no clock, no addresses in its output), with the control
   flow every exporter must carry: a loop with a data-dependent branch, a
   switch, direct and indirect calls, recursion, a function inlined into two
   callers, and a function that runs only on one path. Built with -g -O2
   -Wl,--emit-relocs so that BOLT can rewrite it. */
#include <stdio.h>
#include <stdlib.h>

static int table[64];

static inline __attribute__((always_inline)) int mix(int x) {
  x ^= x >> 3;
  return x * 7 + 1;
}

__attribute__((noinline)) int classify(int v) {
  if (v % 3 == 0) return mix(v);
  if (v % 5 == 0) return v / 5;
  return -v;
}

__attribute__((noinline)) int fold(int n) {
  if (n <= 1) return 1;
  return n + fold(n - 1);
}

__attribute__((noinline)) int rare(int v) { return v * v + 3; }

__attribute__((noinline)) int step(int i) {
  switch (i & 3) {
    case 0: return mix(i);
    case 1: return i + 11;
    case 2: return classify(i);
    default: return i == 39 ? rare(i) : i - 2;
  }
}

typedef int (*op_fn)(int);
static op_fn ops[2] = {classify, step};

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 40;
  long sum = 0;
  for (int i = 0; i < rounds; ++i) {
    table[i & 63] = ops[i & 1](i);
    sum += table[i & 63];
    if (i % 8 == 7) sum += fold(i & 15);
  }
  printf("sum %ld\n", sum);
  return 0;
}
