static inline int sq(int x) { return x * x; }
__attribute__((noinline)) int add(int a, int b) { return sq(a) + b; }
__attribute__((noinline)) int loop(int n) { int s = 0; for (int i = 0; i < n; ++i) s = add(s, i); return s; }
void _start(void) { volatile int r = loop(10); (void)r; for (;;) {} }
