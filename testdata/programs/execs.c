// Replaces itself with the program named by argv[1] (recorders must report a
// second EXECUTABLE and follow the new image).
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  execv(argv[1], argv + 1);
  perror("execv");
  return 1;
}
