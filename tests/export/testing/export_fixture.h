// The fixture of the export round-trip tests (export_consumers_test.cc,
// bolt_consumer_test.cc): the test program (testdata/export_prog.c) built
// with clang, static or dynamic (PIE), recorded with hwt-emulate and
// exported by hwt-report, with the profile's own counts (ProfileSummary,
// in-process) and hwt-report --top to compare the consumers with.
#ifndef HWT_TESTS_EXPORT_TESTING_EXPORT_FIXTURE_H_
#define HWT_TESTS_EXPORT_TESTING_EXPORT_FIXTURE_H_

#include <unistd.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/export/testing/consumers.h"
#include "tests/export/testing/export_summary.h"

namespace hwt::export_test {

// The test program's own functions (the rest of a static program is libc).
inline const std::set<std::string> kProgramFunctions = {"main", "classify",
                                                        "step", "fold", "rare"};
inline constexpr char kPrintOnly[] = "^(main|classify|step|fold|rare)$";

struct Variant {
  std::string name;  // "static", "dynamic"
  std::string dir;
  std::string program;
  std::string capture;
  std::string program_output;  // what the program printed
  nlohmann::json summary;
  nlohmann::json top;  // hwt-report --top --format json
  std::string file(const std::string& suffix) const {
    return dir + "/" + name + "." + suffix;
  }
};

inline std::string ReadText(const std::string& path) {
  auto text = ReadFileToString(path);
  return text.ok() ? *text : std::string();
}

// Builds, records and exports one variant; "" on success, else why not.
inline std::string Prepare(const std::string& dir, const std::string& name,
                           bool is_static, Variant* v) {
  v->name = name;
  v->dir = dir;
  v->program = dir + "/prog_" + name;
  v->capture = dir + "/" + name + ".hwt";
  std::vector<std::string> cc = {
      "clang-19",
      "-O2",
      "-g",
      "-gdwarf-4",
      "-ffunction-sections",
      "-fdebug-info-for-profiling",
      "-Wl,--emit-relocs",
      "-o",
      v->program,
      testing::SourceDir() + "/tests/export/testdata/export_prog.c"};
  if (is_static) cc.push_back("-static");
  auto r = RunTool(cc, 120);
  if (r.exit_code != 0) return r.err;
  r = RunTool({v->program}, 60);
  if (r.exit_code != 0) return r.err;
  v->program_output = r.out;
  r = RunTool({testing::ToolPath("hwt-emulate"), "-o", v->capture, "--force",
               "--", v->program},
              300);
  if (r.exit_code != 0) return r.err;
  // Every export in one run, as a user writes them (default image: the
  // main executable, the test program).
  r = RunTool(
      {testing::ToolPath("hwt-report"), "--pprof=" + v->file("pb.gz"),
       "--bolt=" + v->file("pa"), "--autofdo=" + v->file("afdo"),
       "--profgen=" + v->file("profgen"), "--llvm-sample=" + v->file("prof"),
       "--chrome-trace=" + v->file("trace.json"), v->capture},
      300);
  if (r.exit_code != 0) return r.err;
  auto summary = ProfileSummary(v->capture, "");
  if (!summary.ok()) return std::string(summary.status().message());
  v->summary = std::move(*summary);
  r = RunTool({testing::ToolPath("hwt-report"), "--top", "1000000", "--format",
               "json", "--no-inline", "-q", v->capture});
  if (r.exit_code != 0) return r.err;
  v->top = nlohmann::json::parse(r.out);
  return "";
}

struct Symbol {
  uint64_t start = 0;
  uint64_t size = 0;
};

// Function name -> start and size, every alias (llvm-nm -S).
inline std::map<std::string, Symbol> SymbolTable(const std::string& nm,
                                                 const std::string& program) {
  std::map<std::string, Symbol> out;
  auto r = RunTool({nm, "-S", "--defined-only", program});
  for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
    std::vector<std::string> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
    Symbol s;
    if (f.size() == 4 &&
        std::string("tTwWiI").find(f[2]) != std::string::npos &&
        absl::SimpleHexAtoi(f[0], &s.start) &&
        absl::SimpleHexAtoi(f[1], &s.size)) {
      out[f[3]] = s;
    }
  }
  return out;
}

// Each test runs in its own process (ctest): the variant it needs is
// prepared once per process, in SetUp.
class ExportConsumersTest : public ::testing::TestWithParam<bool> {
 public:
  static void TearDownTestSuite() {
    variants_.clear();
    dir_.reset();
  }

 protected:
  void SetUp() override {
    HWT_REQUIRE_TOOL("clang-19");
    if (!dir_) {
      auto dir = TempDir::Create("hwt-export-test");
      ASSERT_TRUE(dir.ok()) << dir.status();
      dir_ = std::make_unique<TempDir>(std::move(*dir));
    }
    const bool is_static = GetParam();
    if (!variants_.count(is_static)) {
      Variant v;
      error_[is_static] = Prepare(
          dir_->path(), is_static ? "static" : "dynamic", is_static, &v);
      variants_[is_static] = std::move(v);
    }
    ASSERT_EQ(error_[is_static], "");
  }
  const Variant& v() const { return variants_.at(GetParam()); }

  // Per function name: (self, total) as --top gives them; names that more
  // than one image has (ld.so and libc both have some) are left out, as
  // pprof and --top key them differently.
  std::map<std::string, std::pair<uint64_t, uint64_t>> TopFunctions() const {
    std::map<std::string, std::pair<uint64_t, uint64_t>> out;
    std::set<std::string> twice;
    for (const auto& row : v().top["by_self"]) {
      const std::string name = row["function"];
      if (!out.emplace(name, std::make_pair(row["self"], row["total"]))
               .second) {
        twice.insert(name);
      }
    }
    for (const std::string& name : twice) out.erase(name);
    return out;
  }
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> Instructions() const {
    std::map<uint64_t, std::pair<uint64_t, uint64_t>> out;  // count, length
    for (const auto& i : v().summary["insns"]) out[i[0]] = {i[1], i[2]};
    return out;
  }

  inline static std::unique_ptr<TempDir> dir_;
  inline static std::map<bool, Variant> variants_;
  inline static std::map<bool, std::string> error_;
};

}  // namespace hwt::export_test

#endif  // HWT_TESTS_EXPORT_TESTING_EXPORT_FIXTURE_H_
