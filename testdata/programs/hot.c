// A loop-heavy hot path for demos: a sieve and a checksum loop, where almost
// all instructions run in two tight loops. The argument sets the sieve size
// (default 4000, ~100k instructions; up to 1M for throughput measurements).
#include <stdio.h>
#include <stdlib.h>

#define LIMIT (1 << 20)

static unsigned char composite[LIMIT];

__attribute__((noinline)) int sieve(int limit) {
  int primes = 0;
  for (int i = 2; i < limit; ++i) {
    if (composite[i]) continue;
    ++primes;
    for (int j = i * 2; j < limit; j += i) composite[j] = 1;
  }
  return primes;
}

__attribute__((noinline)) unsigned checksum(const unsigned char* data, int n) {
  unsigned sum = 0;
  for (int i = 0; i < n; ++i) sum = (sum << 1 | sum >> 31) ^ data[i];
  return sum;
}

int main(int argc, char** argv) {
  int limit = argc > 1 ? atoi(argv[1]) : 4000;
  if (limit > LIMIT) limit = LIMIT;
  int primes = sieve(limit);
  printf("%d %08x\n", primes, checksum(composite, limit));
  return 0;
}
