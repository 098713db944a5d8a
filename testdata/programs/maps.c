// Prints its own /proc/self/maps (the test compares the recorder's mapping
// events with it), calls puts through the PLT and clock_gettime through the
// vDSO.
#include <stdio.h>
#include <time.h>

int main(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  FILE* maps = fopen("/proc/self/maps", "r");
  if (!maps) return 2;
  char line[512];
  while (fgets(line, sizeof line, maps)) fputs(line, stdout);
  fclose(maps);
  puts("done");
  return 0;
}
