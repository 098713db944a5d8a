// Test input for symbolizer_test: C++ names (namespaces, templates,
// overloads, operators, anonymous namespace, lambdas, constructors) whose
// demangled forms are compared with c++filt and llvm-addr2line -C. Built with
// -g -O2 so that small template members are inlined.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace outer {
namespace inner {

template <typename T>
struct Box {
  T value;
  __attribute__((noinline)) T get() const { return value; }
  T twice() const { return value + value; }  // inlined
};

__attribute__((noinline)) int overloaded(int x) { return x + 1; }
__attribute__((noinline)) double overloaded(double x) { return x * 2.5; }

}  // namespace inner
}  // namespace outer

namespace {
__attribute__((noinline)) int anonymous_helper(int x) { return x ^ 0x55; }
}  // namespace

struct Widget {
  int weight;
  explicit Widget(int w);
  ~Widget();
  int method(int k) const;
};

__attribute__((noinline)) Widget::Widget(int w) : weight(w) {}
__attribute__((noinline)) Widget::~Widget() { std::printf("bye %d\n", weight); }
__attribute__((noinline)) int Widget::method(int k) const { return weight * k; }
__attribute__((noinline)) bool operator<(const Widget& a, const Widget& b) {
  return a.weight < b.weight;
}

int main(int argc, char** argv) {
  outer::inner::Box<int> bi{argc};
  outer::inner::Box<double> bd{argc * 0.5};
  std::vector<std::string> words(argv, argv + argc);
  std::map<std::string, int> counts;
  for (const auto& w : words) ++counts[w];
  auto lambda = [&](int x) {
    return x + bi.twice() + static_cast<int>(words.size());
  };
  Widget a(argc), b(argc + 1);
  int r =
      bi.get() + static_cast<int>(bd.get()) + outer::inner::overloaded(argc) +
      static_cast<int>(outer::inner::overloaded(1.0)) + anonymous_helper(argc) +
      a.method(3) + (a < b) + lambda(argc) + static_cast<int>(counts.size());
  std::printf("%d\n", r);
  return 0;
}
