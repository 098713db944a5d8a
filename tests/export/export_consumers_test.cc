// The exports consumed by their real tools, counts compared after the round
// trip (docs/exports.md). A test program (testdata/export_prog.c) is built
// with clang, static and dynamic (PIE), recorded with hwt-emulate, and
// exported by hwt-export-driver; its summary (the profile's own counts per
// instruction, branch and function) and hwt-report --top are what the
// consumers' results must equal.
#include <unistd.h>

#include <map>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/export/testing/consumers.h"

namespace hwt::export_test {
namespace {

using hwt::testing::ToolPath;

// The test program's own functions (the rest of a static program is libc).
const std::set<std::string> kProgramFunctions = {"main", "classify", "step",
                                                 "fold", "rare"};
constexpr char kPrintOnly[] = "^(main|classify|step|fold|rare)$";

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

std::string ReadText(const std::string& path) {
  auto text = ReadFileToString(path);
  return text.ok() ? *text : std::string();
}

// Builds, records and exports one variant; "" on success, else why not.
std::string Prepare(const std::string& dir, const std::string& name,
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
  r = RunTool(
      {ToolPath("hwt-emulate"), "-o", v->capture, "--force", "--", v->program},
      300);
  if (r.exit_code != 0) return r.err;
  r = RunTool({testing::BinaryDir() + "/tests/export/hwt-export-driver",
               "--pprof", v->file("pb.gz"), "--bolt", v->file("pa"),
               "--autofdo", v->file("afdo"), "--profgen", v->file("profgen"),
               "--llvm-sample", v->file("prof"), "--chrome-trace",
               v->file("trace.json"), "--summary", v->file("summary.json"),
               v->capture});
  if (r.exit_code != 0) return r.err;
  v->summary = nlohmann::json::parse(ReadText(v->file("summary.json")));
  r = RunTool({ToolPath("hwt-report"), "--top", "1000000", "--format", "json",
               "--no-inline", "-q", v->capture});
  if (r.exit_code != 0) return r.err;
  v->top = nlohmann::json::parse(r.out);
  return "";
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
    if (!FindTool("clang-19")) {
      if (InCi()) FAIL() << "clang-19 is not installed";
      GTEST_SKIP() << "clang-19 is not installed (scripts/setup.sh --test)";
    }
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

  static std::unique_ptr<TempDir> dir_;
  static std::map<bool, Variant> variants_;
  static std::map<bool, std::string> error_;
};
std::unique_ptr<TempDir> ExportConsumersTest::dir_;
std::map<bool, Variant> ExportConsumersTest::variants_;
std::map<bool, std::string> ExportConsumersTest::error_;

// --- pprof ------------------------------------------------------------------

TEST_P(ExportConsumersTest, GoToolPprofTopEqualsOurTop) {
  HWT_REQUIRE_TOOL(go, "go");
  auto r = RunTool({go, "tool", "pprof", "-top", "-noinlines",
                    "-nodecount=100000", "-nodefraction=0", v().file("pb.gz")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // "Showing nodes accounting for 36043, 100% of 36043 total"
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(of (\d+) total)")))
      << r.out;
  EXPECT_EQ(std::stoull(m[1]), v().summary["instructions"].get<uint64_t>());
  // "  flat  flat%   sum%   cum   cum%  name"
  std::map<std::string, std::pair<uint64_t, uint64_t>> pprof;
  const std::regex row(
      R"(^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.+?)\s*$)");
  for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
    const std::string s(line);
    if (std::regex_match(s, m, row)) {
      pprof[m[3]] = {std::stoull(m[1]), std::stoull(m[2])};
    }
  }
  const auto top = TopFunctions();
  ASSERT_FALSE(top.empty());
  for (const auto& [name, counts] : top) {
    ASSERT_TRUE(pprof.count(name)) << name << " missing from pprof -top";
    EXPECT_EQ(pprof[name], counts) << name << " (self, total)";
  }
  // -raw lists every sample: their values add up to the total.
  r = RunTool({go, "tool", "pprof", "-raw", v().file("pb.gz")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  uint64_t sum = 0;
  const std::regex sample(R"(^\s+(\d+): [\d ]+$)");
  for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
    const std::string s(line);
    if (std::regex_match(s, m, sample)) sum += std::stoull(m[1]);
  }
  EXPECT_EQ(sum, v().summary["instructions"].get<uint64_t>());
}

TEST_P(ExportConsumersTest, PprofFormatDecoderAgrees) {
  HWT_REQUIRE_TOOL(node, "node");
  const std::string js = testing::SourceDir() + "/tests/js";
  if (access((js + "/node_modules/pprof-format").c_str(), R_OK) != 0) {
    if (InCi()) FAIL() << "tests/js: npm ci has not run";
    GTEST_SKIP() << "tests/js/node_modules missing (scripts/setup.sh --test)";
  }
  auto r = RunTool({node, js + "/pprof_summary.mjs", v().file("pb.gz")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json got = nlohmann::json::parse(r.out);
  EXPECT_EQ(got["sampleTypes"], nlohmann::json::array({"instructions/count"}));
  EXPECT_EQ(got["total"].get<uint64_t>(),
            v().summary["instructions"].get<uint64_t>());
  for (const auto& [name, counts] : TopFunctions()) {
    EXPECT_EQ(got["self"].value(name, uint64_t{0}), counts.first) << name;
    EXPECT_EQ(got["totalByFunction"].value(name, uint64_t{0}), counts.second)
        << name;
  }
  bool program_mapped = false;
  for (const auto& m : got["mappings"]) {
    program_mapped |=
        BaseName(m["file"].get<std::string>()) == BaseName(v().program) &&
        !m["buildId"].get<std::string>().empty();
  }
  EXPECT_TRUE(program_mapped) << got["mappings"].dump();
}

INSTANTIATE_TEST_SUITE_P(Programs, ExportConsumersTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Static" : "Dynamic";
                         });

}  // namespace
}  // namespace hwt::export_test
