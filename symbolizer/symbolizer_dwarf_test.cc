// Symbolizer tests of DWARF and C++ names on programs compiled at test
// time: inline frames and lines against binutils addr2line, demangled names
// against c++filt and llvm-addr2line -C.

#include <algorithm>
#include <set>

#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/testing/test_env.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "symbolizer/symbolizer.h"
#include "symbolizer/testing/binutils_truth.h"
#include "symbolizer/testing/symbolizer_checks.h"
#include "symbolizer/testing/test_programs.h"

namespace hwt::symbolizer {
namespace {

namespace st = ::hwt::symbolizer::testing;
using st::InlineProgram;
using st::InlineProgramAddresses;
using st::MakeSymbolizer;
using st::MustBuild;
using st::SymbolValue;

// ---------------------------------------------------------------------------
// DWARF: inline frames and lines against binutils addr2line.

TEST(DwarfTest, InlineFramesAndLinesMatchAddr2line) {
  const std::string prog = InlineProgram();
  ASSERT_FALSE(prog.empty());
  auto symbolizer = MakeSymbolizer();
  ASSERT_TRUE(symbolizer->AddImage(3, prog, "/usr/bin/inline_prog").ok());
  EXPECT_TRUE(symbolizer->GetImageInfo(3)->has_dwarf);
  const std::vector<uint64_t> addresses = InlineProgramAddresses(prog);
  const auto want = st::Addr2Line("addr2line", prog, addresses, false);
  size_t with_inlines = 0, max_depth = 0;
  int failures = 0;
  for (uint64_t a : addresses) {
    const std::vector<Frame>& got = symbolizer->Symbolize(3, a);
    auto it = want.find(a);
    ASSERT_NE(it, want.end());
    const std::vector<st::RefFrame>& ref = it->second;
    bool same = got.size() == ref.size();
    for (size_t i = 0; same && i < got.size(); ++i) {
      const bool outermost = i + 1 == got.size();
      same = got[i].file == ref[i].file && got[i].line == ref[i].line &&
             got[i].inlined == !outermost &&
             (outermost || got[i].function == ref[i].function);
    }
    if (!same) {
      std::string g, r;
      for (const Frame& f : got) {
        g += absl::StrFormat(" %s@%s:%d", f.function, f.file, f.line);
      }
      for (const st::RefFrame& f : ref) {
        r += absl::StrFormat(" %s@%s:%d", f.function, f.file, f.line);
      }
      ADD_FAILURE() << absl::StrFormat("0x%x: got%s\nwant%s", a, g, r);
      if (++failures > 10) break;
    }
    // The outermost name is the symbol table's, as on the fast path.
    const FunctionSymbol* f = symbolizer->FunctionFor(3, a);
    ASSERT_NE(f, nullptr) << absl::StrFormat("0x%x", a);
    EXPECT_EQ(got.back().function, f->name);
    if (got.size() > 1) ++with_inlines;
    max_depth = std::max(max_depth, got.size());
  }
  // The program is built so that inlining happens, three levels deep.
  EXPECT_GT(with_inlines, 10u);
  EXPECT_GE(max_depth, 3u);
}

TEST(DwarfTest, WithoutInlineFramesOneFrameAtTheInnermostLine) {
  const std::string prog = InlineProgram();
  ASSERT_FALSE(prog.empty());
  SymbolizerOptions options;
  options.inline_frames = false;
  auto symbolizer = MakeSymbolizer(options);
  ASSERT_TRUE(symbolizer->AddImage(3, prog, "inline_prog").ok());
  const std::vector<uint64_t> addresses = InlineProgramAddresses(prog);
  const auto want = st::Addr2Line("addr2line", prog, addresses, false);
  for (uint64_t a : addresses) {
    const std::vector<Frame>& got = symbolizer->Symbolize(3, a);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_FALSE(got[0].inlined);
    EXPECT_EQ(got[0].function, symbolizer->FunctionFor(3, a)->name);
    const st::RefFrame& innermost = want.at(a).front();
    EXPECT_EQ(got[0].file, innermost.file) << absl::StrFormat("0x%x", a);
    EXPECT_EQ(got[0].line, innermost.line) << absl::StrFormat("0x%x", a);
  }
}

TEST(DwarfTest, WithoutLineInfoSameFramesNoFiles) {
  const std::string prog = InlineProgram();
  ASSERT_FALSE(prog.empty());
  SymbolizerOptions no_lines;
  no_lines.line_info = false;
  auto plain = MakeSymbolizer(no_lines);
  auto full = MakeSymbolizer();
  ASSERT_TRUE(plain->AddImage(3, prog, "inline_prog").ok());
  ASSERT_TRUE(full->AddImage(3, prog, "inline_prog").ok());
  for (uint64_t a : InlineProgramAddresses(prog)) {
    const std::vector<Frame>& got = plain->Symbolize(3, a);
    const std::vector<Frame>& ref = full->Symbolize(3, a);
    ASSERT_EQ(got.size(), ref.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].function, ref[i].function);
      EXPECT_EQ(got[i].file, "");
      EXPECT_EQ(got[i].line, 0u);
    }
  }
  // Neither inline frames nor lines: the symbol table alone.
  SymbolizerOptions bare;
  bare.line_info = false;
  bare.inline_frames = false;
  auto fast = MakeSymbolizer(bare);
  ASSERT_TRUE(fast->AddImage(3, prog, "inline_prog").ok());
  const uint64_t main_addr = SymbolValue(prog, "main");
  ASSERT_EQ(fast->Symbolize(3, main_addr + 8).size(), 1u);
  EXPECT_EQ(fast->Symbolize(3, main_addr + 8)[0].function, "main");
}

// ---------------------------------------------------------------------------
// C++: demangled names against c++filt and llvm-addr2line -C.

std::string CxxProgram() {
  return MustBuild("demangle_prog", "demangle_prog.cc", {"-g", "-O2"}, "g++");
}

// c++filt (libiberty) and LLVM's demangler differ in two spellings only:
// "> >" vs ">>" and " [clone .isra.0]" vs " (.isra.0)".
std::string LibiberyToLlvmStyle(std::string name) {
  for (size_t at; (at = name.find("> >")) != std::string::npos;) {
    name.replace(at, 3, ">>");
  }
  for (size_t at; (at = name.find(" [clone ")) != std::string::npos;) {
    const size_t close = name.find(']', at);
    if (close == std::string::npos) break;
    name = name.substr(0, at) + " (" + name.substr(at + 8, close - at - 8) +
           ")" + name.substr(close + 1);
  }
  return name;
}

TEST(DemangleTest, SymbolNamesMatchCxxfilt) {
  const std::string prog = CxxProgram();
  ASSERT_FALSE(prog.empty());
  auto demangled = MakeSymbolizer();
  SymbolizerOptions raw_options;
  raw_options.demangle = false;
  auto raw = MakeSymbolizer(raw_options);
  ASSERT_TRUE(demangled->AddImage(1, prog, "demangle_prog").ok());
  ASSERT_TRUE(raw->AddImage(1, prog, "demangle_prog").ok());

  const std::vector<st::RefSymbol> symbols =
      st::ReadFunctionSymbols(prog, ".symtab");
  std::vector<std::string> argv = {"c++filt"};
  for (const st::RefSymbol& s : symbols) argv.push_back(s.name);
  std::string out;
  ASSERT_TRUE(st::Run(argv, &out));
  std::vector<std::string> filtered = absl::StrSplit(out, '\n');
  ASSERT_GE(filtered.size(), symbols.size());
  size_t mangled = 0;
  for (size_t i = 0; i < symbols.size(); ++i) {
    auto found = demangled->FindFunctions(symbols[i].name, NameMatch::kExact);
    ASSERT_TRUE(found.ok());
    ASSERT_FALSE(found->empty()) << symbols[i].name;
    EXPECT_EQ((*found)[0].symbol->name, LibiberyToLlvmStyle(filtered[i]))
        << symbols[i].name;
    auto raw_found = raw->FindFunctions(symbols[i].name, NameMatch::kExact);
    ASSERT_TRUE(raw_found.ok());
    ASSERT_FALSE(raw_found->empty());
    EXPECT_EQ((*raw_found)[0].symbol->name, symbols[i].name);
    if (symbols[i].name.rfind("_Z", 0) == 0) ++mangled;
  }
  EXPECT_GT(mangled, 10u);
  // A few names checked by hand.
  auto names = [&](const std::string& pattern) {
    std::set<std::string> out;
    auto found = demangled->FindFunctions(pattern, NameMatch::kRegex);
    EXPECT_TRUE(found.ok());
    for (const FunctionMatch& m : *found) out.insert(m.symbol->name);
    return out;
  };
  EXPECT_THAT(names("overloaded"),
              ::testing::IsSupersetOf({"outer::inner::overloaded(int)",
                                       "outer::inner::overloaded(double)"}));
  // (gcc may clone it as "... const (.isra.0)".)
  EXPECT_THAT(names("Box"), ::testing::Contains(::testing::StartsWith(
                                "outer::inner::Box<int>::get() const")));
  EXPECT_THAT(
      names("anonymous_helper"),
      ::testing::Contains("(anonymous namespace)::anonymous_helper(int)"));
  EXPECT_THAT(names("^operator<"),
              ::testing::Contains("operator<(Widget const&, Widget const&)"));
}

TEST(DemangleTest, InlineFramesMatchLlvmAddr2line) {
  HWT_REQUIRE_TOOL("llvm-addr2line-19");
  const std::string prog = CxxProgram();
  ASSERT_FALSE(prog.empty());
  auto symbolizer = MakeSymbolizer();
  ASSERT_TRUE(symbolizer->AddImage(1, prog, "demangle_prog").ok());
  const std::vector<uint64_t> addresses =
      st::InstructionAddresses(prog, "main");
  ASSERT_FALSE(addresses.empty());
  const auto want =
      st::Addr2Line("llvm-addr2line-19", prog, addresses, /*demangle=*/true);
  size_t inline_frames = 0;
  for (uint64_t a : addresses) {
    const std::vector<Frame>& got = symbolizer->Symbolize(1, a);
    const std::vector<st::RefFrame>& ref = want.at(a);
    ASSERT_EQ(got.size(), ref.size()) << absl::StrFormat("0x%x", a);
    for (size_t i = 0; i < got.size(); ++i) {
      if (i + 1 < got.size()) {
        EXPECT_EQ(got[i].function, ref[i].function);
        ++inline_frames;
      }
      EXPECT_EQ(got[i].file, ref[i].file);
      EXPECT_EQ(got[i].line, ref[i].line);
    }
    EXPECT_EQ(got.back().function, "main");
  }
  EXPECT_GT(inline_frames, 50u);
}

}  // namespace
}  // namespace hwt::symbolizer
