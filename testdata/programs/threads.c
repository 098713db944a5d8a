// Starts a thread: the ptrace recorder records single-threaded programs only
// and must refuse this one clearly.
#include <pthread.h>
#include <stdio.h>

static void* worker(void* arg) { return arg; }

int main(void) {
  pthread_t thread;
  if (pthread_create(&thread, NULL, worker, NULL) != 0) return 1;
  pthread_join(thread, NULL);
  puts("joined");
  return 0;
}
