// Cost per unique address of the symbolizer: function-only lookups (the fast
// path analysis uses) and full inline + line symbolization from a cold start
// (new Symbolizer, so DWARF parsing is included), on this machine's libc
// (with its debug file when installed) and on a generated -g -O2 program.
//   symbolizer_bench [--benchmark_filter=...]
// HWT_BENCH_LIBC overrides the libc path.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "benchmark/benchmark.h"
#include "symbolizer/symbolizer.h"

namespace hwt::symbolizer {
namespace {

std::string LibcPath() {
  const char* env = getenv("HWT_BENCH_LIBC");
  return env != nullptr ? env : "/lib/x86_64-linux-gnu/libc.so.6";
}

// A -g -O2 program with many functions and inlined helpers, built once.
const std::string& GeneratedProgram() {
  static const std::string path = [] {
    static auto dir = TempDir::Create("hwt-symbolizer-bench");
    if (!dir.ok()) return std::string();
    std::string source = "#include <stdlib.h>\n";
    for (int i = 0; i < 3000; ++i) {
      absl::StrAppendFormat(
          &source,
          "static inline int leaf%d(int x) { return x * %d + (x >> 3); }\n"
          "static inline int mid%d(const int *v, int n) { int s = 0;"
          " for (int i = 0; i < n; ++i) s += leaf%d(v[i]) ^ i; return s; }\n"
          "__attribute__((noinline)) int f%d(int *v, int n) {"
          " if (n > 3) v[1] += mid%d(v, n - 1); return mid%d(v, n) + %d; }\n",
          i, i + 3, i, i, i, i, i, i);
    }
    source += "int main(int c, char **v) { int a[8] = {c}; int r = 0;\n";
    for (int i = 0; i < 3000; i += 7) {
      absl::StrAppendFormat(&source, "r += f%d(a, c);\n", i);
    }
    source += "return r & 1; }\n";
    const std::string c_file = dir->path() + "/gen.c";
    const std::string out = dir->path() + "/gen";
    if (!WriteFileAtomically(c_file, source).ok()) return std::string();
    const std::string cmd = "gcc -g -O2 -o " + out + " " + c_file;
    if (system(cmd.c_str()) != 0) return std::string();
    return out;
  }();
  return path;
}

// `n` distinct addresses inside the image's functions (PLT excluded), spread
// randomly but reproducibly.
std::vector<uint64_t> Addresses(Symbolizer& s, uint32_t image, size_t n) {
  auto all = s.FindFunctions(".", NameMatch::kRegex);
  std::vector<const FunctionSymbol*> functions;
  for (const FunctionMatch& m : *all) {
    if (!m.symbol->plt && m.symbol->size > 0) functions.push_back(m.symbol);
  }
  std::mt19937_64 rng(99);
  std::set<uint64_t> unique;
  for (size_t tries = 0;
       unique.size() < n && tries < 20 * n && !functions.empty(); ++tries) {
    const FunctionSymbol* f = functions[rng() % functions.size()];
    unique.insert(f->start + rng() % f->size);
  }
  std::vector<uint64_t> out(unique.begin(), unique.end());
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

std::unique_ptr<Symbolizer> Load(const std::string& file,
                                 SymbolizerOptions options = {}) {
  auto s = Symbolizer::Create(std::move(options));
  if (!s->AddImage(0, file, file).ok()) return nullptr;
  return s;
}

void AddImageCost(benchmark::State& state, const std::string& file) {
  if (file.empty() || access(file.c_str(), R_OK) != 0) {
    state.SkipWithError("image not available");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(Load(file));
  auto s = Load(file);
  state.counters["functions"] = s->GetImageInfo(0)->function_count;
}

void FunctionForCost(benchmark::State& state, const std::string& file) {
  auto s = file.empty() ? nullptr : Load(file);
  if (s == nullptr) {
    state.SkipWithError("image not available");
    return;
  }
  const std::vector<uint64_t> addresses = Addresses(*s, 0, state.range(0));
  for (auto _ : state) {
    for (uint64_t a : addresses) benchmark::DoNotOptimize(s->FunctionFor(0, a));
  }
  state.SetItemsProcessed(state.iterations() * addresses.size());
}

// A fresh Symbolizer per iteration: every address is a cache miss, and the
// DWARF of the units touched is parsed within the timing.
void SymbolizeColdCost(benchmark::State& state, const std::string& file,
                       bool inline_frames) {
  auto probe = file.empty() ? nullptr : Load(file);
  if (probe == nullptr) {
    state.SkipWithError("image not available");
    return;
  }
  const std::vector<uint64_t> addresses = Addresses(*probe, 0, state.range(0));
  size_t frames = 0;
  for (auto _ : state) {
    state.PauseTiming();
    SymbolizerOptions options;
    options.inline_frames = inline_frames;
    auto s = Load(file, options);
    std::vector<ImageAddress> batch;
    for (uint64_t a : addresses) batch.push_back({0, a});
    state.ResumeTiming();
    for (const auto* f : s->SymbolizeBatch(batch)) frames += f->size();
  }
  state.SetItemsProcessed(state.iterations() * addresses.size());
  state.counters["frames/addr"] =
      static_cast<double>(frames) / (state.iterations() * addresses.size());
  state.counters["dwarf"] = probe->GetImageInfo(0)->has_dwarf;
}

BENCHMARK_CAPTURE(AddImageCost, libc, LibcPath())
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(AddImageCost, gen_O2, GeneratedProgram())
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(FunctionForCost, libc, LibcPath())->Arg(100000);
BENCHMARK_CAPTURE(FunctionForCost, gen_O2, GeneratedProgram())->Arg(100000);
BENCHMARK_CAPTURE(SymbolizeColdCost, libc_inline_lines, LibcPath(), true)
    ->Arg(1000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(SymbolizeColdCost, libc_lines_only, LibcPath(), false)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(SymbolizeColdCost, gen_O2_inline_lines, GeneratedProgram(),
                  true)
    ->Arg(1000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hwt::symbolizer

BENCHMARK_MAIN();
