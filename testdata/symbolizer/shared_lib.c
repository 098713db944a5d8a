/* Test input for symbolizer_test: a freestanding shared library (no libc)
   that calls undefined functions through the PLT, cross-built for i386,
   AArch64 and ARM to check ELF32/ELF64 loading and PLT decoding there. */
extern int ext_first(int);
extern int ext_second(int);
extern int ext_third(int);

int local_fn(int x) { return x * 3 + 1; }

int api_entry(int x) {
  return ext_first(x) + ext_second(local_fn(x)) + ext_third(x + 1);
}
