/* Test input for symbolizer_test: calls into libc through the PLT; built
   lazily bound, with -z now, with IBT (.plt.sec) and as non-PIE, and the PLT
   entries are compared with objdump's NAME@plt labels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  const char *home = getenv("HOME");
  size_t n = strlen(argv[0]);
  char *copy = malloc(n + 1);
  memcpy(copy, argv[0], n + 1);
  printf("%s %zu %d\n", home ? home : "-", n, atoi(argc > 1 ? argv[1] : "3"));
  puts(copy);
  free(copy);
  return 0;
}
