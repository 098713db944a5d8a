// Recursion: fib(n) makes 2*fib(n+1)-1 calls of fib, nested at most n deep.
// The ground-truth tests check the call edges and the deepest folded stack.
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long fib(int n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 15;
  printf("fib(%d) = %ld\n", n, fib(n));
  return 0;
}
