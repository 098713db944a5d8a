// A dense switch that compilers turn into a jump table (an indirect jump that
// stays inside its function: no frame change).
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int classify(int x) {
  switch (x % 8) {
    case 0:
      return x * 3;
    case 1:
      return x + 7;
    case 2:
      return x ^ 0x55;
    case 3:
      return x - 11;
    case 4:
      return x << 2;
    case 5:
      return x >> 1;
    case 6:
      return ~x;
    default:
      return x * x;
  }
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 800;
  long sum = 0;
  for (int i = 0; i < rounds; ++i) sum += classify(i);
  printf("%ld\n", sum);
  return 0;
}
