// Indirect calls through a table of function pointers: operation i % 4 runs
// on every iteration, so each callee is called rounds / 4 times.
#include <stdio.h>
#include <stdlib.h>

typedef int (*Op)(int, int);

__attribute__((noinline)) int add(int a, int b) { return a + b; }
__attribute__((noinline)) int sub(int a, int b) { return a - b; }
__attribute__((noinline)) int mul(int a, int b) { return a * b; }
__attribute__((noinline)) int mix(int a, int b) { return (a ^ b) + 1; }

static Op const kOps[4] = {add, sub, mul, mix};

__attribute__((noinline)) int run(Op const* ops, int rounds) {
  int acc = 1;
  for (int i = 0; i < rounds; ++i) acc = ops[i % 4](acc, i) & 0xffff;
  return acc;
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 400;
  printf("%d\n", run(kOps, rounds));
  return 0;
}
