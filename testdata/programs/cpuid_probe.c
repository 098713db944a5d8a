// Prints what a program sees of its CPU and start-up environment, one fact
// per line (with the argument "leaf0": CPUID leaf 0 only), so that recorders
// can mimic valgrind's view (run it under valgrind: recorder/valgrind_probe.h
// parses this output):
//   cpuid LEAF SUBLEAF EAX EBX ECX EDX   (hex; every leaf up to the maximum
//                                         basic and extended leaf; subleaf 0
//                                         and, up to 63, each subleaf whose
//                                         answer differs from the previous)
//   xgetbv 0 EAX EDX                     (XCR0, when OSXSAVE is set)
//   env NAME=VALUE                       (the environment, in order)
//   sp ADDR                              (the initial stack pointer)
//   argvaddr I ADDR / envaddr I ADDR     (where each string lies)
//   auxv TYPE VALUE                      (the auxiliary vector, in order)
//   enosys NR                            (a system call glibc makes at
//                                         start-up that fails with ENOSYS)
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char** environ;

static void Cpuid(uint32_t leaf, uint32_t subleaf, uint32_t regs[4]) {
  __asm__ volatile("cpuid"
                   : "=a"(regs[0]), "=b"(regs[1]), "=c"(regs[2]), "=d"(regs[3])
                   : "a"(leaf), "c"(subleaf));
}

static void DumpRange(uint32_t first) {
  uint32_t regs[4];
  Cpuid(first, 0, regs);
  uint32_t last = regs[0];
  if (last < first || last - first > 0x100) last = first;
  for (uint32_t leaf = first; leaf <= last; ++leaf) {
    uint32_t previous[4] = {0, 0, 0, 0};
    for (uint32_t subleaf = 0; subleaf < 64; ++subleaf) {
      Cpuid(leaf, subleaf, regs);
      if (subleaf > 0 && regs[0] == previous[0] && regs[1] == previous[1] &&
          regs[2] == previous[2] && regs[3] == previous[3]) {
        continue;
      }
      printf("cpuid %x %x %x %x %x %x\n", leaf, subleaf, regs[0], regs[1],
             regs[2], regs[3]);
      for (int i = 0; i < 4; ++i) previous[i] = regs[i];
    }
  }
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "leaf0") == 0) {
    uint32_t regs[4];
    Cpuid(0, 0, regs);
    printf("cpuid 0 0 %x %x %x %x\n", regs[0], regs[1], regs[2], regs[3]);
    return 0;
  }
  DumpRange(0);
  DumpRange(0x80000000u);
  uint32_t regs[4];
  Cpuid(1, 0, regs);
  if (regs[2] & (1u << 27)) {  // OSXSAVE
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    printf("xgetbv 0 %x %x\n", lo, hi);
  }
  char** p = environ;
  for (; *p; ++p) printf("env %s\n", *p);
  printf("sp %lx\n", (unsigned long)(argv - 1));
  for (int i = 0; i < argc; ++i) {
    printf("argvaddr %x %lx\n", i, (unsigned long)argv[i]);
  }
  for (int i = 0; environ[i]; ++i) {
    printf("envaddr %x %lx\n", i, (unsigned long)environ[i]);
  }
  for (Elf64_auxv_t* aux = (Elf64_auxv_t*)(p + 1); aux->a_type != AT_NULL;
       ++aux) {
    printf("auxv %lx %lx\n", (unsigned long)aux->a_type,
           (unsigned long)aux->a_un.a_val);
  }
  // rseq: invalid arguments fail with EINVAL where it exists.
  if (syscall(SYS_rseq, 0, 0, 0, 0) == -1 && errno == ENOSYS) {
    printf("enosys %x\n", (unsigned)SYS_rseq);
  }
  return 0;
}
