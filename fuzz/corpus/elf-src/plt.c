#include <stdio.h>
#include <stdlib.h>
static inline int sq(int x) { return x * x; }
__attribute__((noinline)) int work(int n) { int s = 0; for (int i = 0; i < n; ++i) s += sq(i) + abs(i - 3); return s; }
int main(int argc, char** argv) { printf("%d\n", work(argc * 5)); return 0; }
