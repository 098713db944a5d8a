// Robustness: "segv" dereferences a null pointer (killed by SIGSEGV), "exit"
// returns 3, "handled" catches a SIGSEGV in a handler and longjmps out.
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static sigjmp_buf recover;

static void on_segv(int sig) { siglongjmp(recover, 1); }

__attribute__((noinline)) int poke(volatile int* p) { return *p; }

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "segv";
  if (strcmp(mode, "exit") == 0) return 3;
  if (strcmp(mode, "handled") == 0) {
    signal(SIGSEGV, on_segv);
    if (sigsetjmp(recover, 1) == 0) poke(0);
    puts("recovered");
    return 0;
  }
  return poke(0);
}
