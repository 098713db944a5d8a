// Symbolizer tests on programs compiled at test time, compared with ground
// truth from binutils: readelf symbols and sections fed to a brute-force
// implementation of the function rule, objdump's NAME@plt labels; unknown
// code, batching, lookups, libc and other architectures. DWARF frames and
// C++ names: symbolizer_dwarf_test.cc.
#include "symbolizer/symbolizer.h"

#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "symbolizer/testing/binutils_truth.h"
#include "symbolizer/testing/symbolizer_checks.h"
#include "symbolizer/testing/test_programs.h"

namespace hwt::symbolizer {
namespace {

namespace st = ::hwt::symbolizer::testing;
using ::testing::HasSubstr;

using st::ExpectMatchesRule;
using st::InlineProgram;
using st::InlineProgramAddresses;
using st::MakeSymbolizer;
using st::MustBuild;
using st::NaiveRule;
using st::ProbesFor;
using st::SymbolValue;

// ---------------------------------------------------------------------------
// The function rule on the functions.c program (aliases, size 0, nesting...).

class FunctionRuleTest : public ::testing::TestWithParam<bool> {};

TEST_P(FunctionRuleTest, EveryAddressMatchesReadelfUnderTheRule) {
  const bool pie = GetParam();
  const std::string prog =
      MustBuild(pie ? "functions_pie" : "functions_nopie", "functions.c",
                {"-g", "-O2", "-fno-inline", pie ? "-pie" : "-no-pie"});
  ASSERT_FALSE(prog.empty());
  auto symbolizer = MakeSymbolizer();
  ASSERT_TRUE(symbolizer->AddImage(1, prog, "/bin/functions").ok());
  EXPECT_EQ(symbolizer->GetImageInfo(1)->symbol_source,
            ImageInfo::SymbolSource::kSymtab);
  const st::NaiveFunctionRule rule = NaiveRule(prog, ".symtab", prog);
  ExpectMatchesRule(*symbolizer, 1, rule, ProbesFor(prog, rule));
}

INSTANTIATE_TEST_SUITE_P(PieAndNoPie, FunctionRuleTest, ::testing::Bool());

// The same cases, checked by hand against the source's intent.
TEST(FunctionRuleTest, HandCheckedCases) {
  const std::string prog = MustBuild("functions_pie", "functions.c",
                                     {"-g", "-O2", "-fno-inline", "-pie"});
  ASSERT_FALSE(prog.empty());
  auto symbolizer = MakeSymbolizer();
  ASSERT_TRUE(symbolizer->AddImage(1, prog, "/bin/functions").ok());
  auto name_at = [&](uint64_t a) -> std::string {
    const FunctionSymbol* f = symbolizer->FunctionFor(1, a);
    return f == nullptr ? "<none>" : f->raw_name;
  };
  // Four names at one address and size: the one sorting first.
  const uint64_t alias = SymbolValue(prog, "alias_target");
  EXPECT_EQ(name_at(alias), "aa_alias");
  EXPECT_EQ(name_at(alias + 4), "aa_alias");
  // The IFUNC symbol shares its resolver's address and size: "ifunc_fn" <
  // "resolve_ifunc_fn".
  EXPECT_EQ(name_at(SymbolValue(prog, "ifunc_fn")), "ifunc_fn");
  // Size 0: covers up to after_zero, which follows it directly.
  const uint64_t zero = SymbolValue(prog, "zero_size_fn");
  const uint64_t after = SymbolValue(prog, "after_zero");
  EXPECT_EQ(after, zero + 6);  // five nops and a ret
  for (uint64_t a = zero; a < after; ++a) EXPECT_EQ(name_at(a), "zero_size_fn");
  const FunctionSymbol* z = symbolizer->FunctionFor(1, zero);
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(z->size, 6u);
  EXPECT_EQ(name_at(after), "after_zero");
  // after_zero is one ret; the NOTYPE-labelled code after it is a gap.
  EXPECT_EQ(name_at(after + 1), "<none>");
  EXPECT_EQ(name_at(after + 4), "<none>");
  // Nested: inner_fn (3 bytes at outer+4) wins inside outer_fn.
  const uint64_t outer = SymbolValue(prog, "outer_fn");
  EXPECT_EQ(name_at(outer + 3), "outer_fn");
  EXPECT_EQ(name_at(outer + 4), "inner_fn");
  EXPECT_EQ(name_at(outer + 6), "inner_fn");
  EXPECT_EQ(name_at(outer + 7), "outer_fn");
  EXPECT_EQ(name_at(outer + 12), "outer_fn");
  // FunctionFor reports the whole of outer_fn even between its pieces.
  const FunctionSymbol* range = symbolizer->FunctionFor(1, outer + 7);
  ASSERT_NE(range, nullptr);
  EXPECT_EQ(range->start, outer);
  EXPECT_EQ(range->start + range->size, outer + 13);
  // Same start: big_same (5 bytes) beats small_same (2 bytes) everywhere.
  const uint64_t same = SymbolValue(prog, "big_same");
  for (uint64_t a = same; a < same + 5; ++a) EXPECT_EQ(name_at(a), "big_same");
  // Size 0 and alone in its section: covers the section (4 bytes).
  const uint64_t last = SymbolValue(prog, "last_zero");
  EXPECT_EQ(name_at(last + 3), "last_zero");
  EXPECT_NE(name_at(last + 4), "last_zero");
  // Unknown code is named after the image and the address.
  EXPECT_EQ(symbolizer->Symbolize(1, after + 2).front().function,
            absl::StrFormat("[functions+0x%x]", after + 2));
}

// ---------------------------------------------------------------------------
// PLT entries against objdump's NAME@plt labels.

struct PltCase {
  const char* name;
  const char* source;
  std::vector<std::string> flags;
  const char* compiler = "gcc";
  const char* objdump = "objdump";
};

class PltTest : public ::testing::TestWithParam<PltCase> {};

TEST_P(PltTest, EntriesMatchObjdumpLabels) {
  const PltCase& c = GetParam();
  HWT_REQUIRE_TOOL(c.compiler);
  HWT_REQUIRE_TOOL(c.objdump);
  std::string error;
  const std::string prog =
      st::BuildProgram(c.name, c.source, c.flags, &error, c.compiler);
  if (prog.empty() && std::string(c.compiler) != "gcc") {
    HWT_SKIP_OUTSIDE_CI("cannot cross-build: " + error);
  }
  ASSERT_FALSE(prog.empty()) << error;
  auto symbolizer = MakeSymbolizer();
  ASSERT_TRUE(symbolizer->AddImage(7, prog, c.name).ok());

  const std::map<uint64_t, std::string> want =
      st::ObjdumpPltLabels(prog, c.objdump);
  ASSERT_FALSE(want.empty()) << "objdump shows no PLT entries in " << prog;
  auto found = symbolizer->FindFunctions("@plt$", NameMatch::kRegex);
  ASSERT_TRUE(found.ok());
  std::map<uint64_t, std::string> got;
  for (const FunctionMatch& m : *found) {
    EXPECT_TRUE(m.symbol->plt);
    got[m.symbol->start] = m.symbol->raw_name;
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(symbolizer->GetImageInfo(7)->plt_count, want.size());

  // Addresses inside an entry belong to it.
  for (const auto& [addr, name] : want) {
    const FunctionSymbol* f = symbolizer->FunctionFor(7, addr + 3);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->raw_name, name);
  }
  // The whole image follows the rule (symbols + PLT).
  const st::NaiveFunctionRule rule =
      NaiveRule(prog, ".symtab", prog, c.objdump);
  ExpectMatchesRule(*symbolizer, 7, rule, ProbesFor(prog, rule));
}

INSTANTIATE_TEST_SUITE_P(
    Variants, PltTest,
    ::testing::Values(
        PltCase{
            "plt_lazy", "plt_prog.c", {"-O2", "-fno-builtin", "-Wl,-z,lazy"}},
        PltCase{"plt_now", "plt_prog.c", {"-O2", "-fno-builtin", "-Wl,-z,now"}},
        PltCase{
            "plt_ibt",
            "plt_prog.c",
            {"-O2", "-fno-builtin", "-fcf-protection=full", "-Wl,-z,ibtplt"}},
        PltCase{"plt_ibt_now",
                "plt_prog.c",
                {"-O2", "-fno-builtin", "-fcf-protection=full", "-Wl,-z,ibtplt",
                 "-Wl,-z,now"}},
        PltCase{"plt_nopie", "plt_prog.c", {"-O2", "-fno-builtin", "-no-pie"}},
        // i386 ELF32 with %ebx-relative stubs (GNU ld).
        PltCase{"lib_gcc_i386.so",
                "shared_lib.c",
                {"-m32", "-O2", "-fPIC", "-shared", "-nostdlib"}},
        // Cross-built with clang + lld; llvm-objdump names the PLT there.
        PltCase{"x_aarch64.so",
                "shared_lib.c",
                {"--target=aarch64-linux-gnu", "-g", "-O2", "-fPIC", "-shared",
                 "-nostdlib", "-fuse-ld=lld"},
                "clang-19",
                "llvm-objdump-19"},
        PltCase{"lib_aarch64_bti.so",
                "shared_lib.c",
                {"--target=aarch64-linux-gnu", "-O2", "-fPIC", "-shared",
                 "-nostdlib", "-fuse-ld=lld", "-mbranch-protection=standard",
                 "-Wl,-z,force-bti"},
                "clang-19",
                "llvm-objdump-19"},
        PltCase{"x_i686.so",
                "shared_lib.c",
                {"--target=i686-linux-gnu", "-g", "-O2", "-fPIC", "-shared",
                 "-nostdlib", "-fuse-ld=lld"},
                "clang-19",
                "llvm-objdump-19"}),
    [](const ::testing::TestParamInfo<PltCase>& info) {
      std::string name = info.param.name;
      std::replace_if(
          name.begin(), name.end(), [](char ch) { return !isalnum(ch); }, '_');
      return name;
    });

// A static executable: glibc's IRELATIVE slots sit in .plt there, but
// objdump labels none of them (there are no dynamic symbols): no PLT
// functions, the stubs are code no symbol covers, and the rest of the image
// follows the rule. (Kept from the recorder's former function table tests.)
TEST(PltTest, StaticExecutableHasNoLabelledEntries) {
  const std::string prog =
      MustBuild("plt_static", "plt_prog.c", {"-O2", "-fno-builtin", "-static"});
  ASSERT_FALSE(prog.empty());
  EXPECT_TRUE(st::ObjdumpPltLabels(prog).empty());
  auto symbolizer = MakeSymbolizer();
  ASSERT_TRUE(symbolizer->AddImage(7, prog, "plt_static").ok());
  EXPECT_EQ(symbolizer->GetImageInfo(7)->plt_count, 0u);
  auto found = symbolizer->FindFunctions("@plt$", NameMatch::kRegex);
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE(found->empty());
  const st::NaiveFunctionRule rule = NaiveRule(prog, ".symtab", prog);
  ExpectMatchesRule(*symbolizer, 7, rule, rule.ProbeAddresses());
}

// LLVM (and so llvm-objdump) does not name ARM PLT entries, and binutils
// here is x86-only: the truth is lld's documented ARM layout, a 32-byte
// header then one 16-byte entry per .rel.plt relocation, in order.
TEST(PltTest, ArmEntriesFollowLldLayout) {
  HWT_REQUIRE_TOOL("clang-19");
  HWT_REQUIRE_TOOL("ld.lld-19");
  std::string error;
  const std::string lib =
      st::BuildProgram("x_arm.so", "shared_lib.c",
                       {"--target=armv7a-linux-gnueabihf", "-g", "-O2", "-fPIC",
                        "-shared", "-nostdlib", "-fuse-ld=lld"},
                       &error, "clang-19");
  if (lib.empty()) HWT_SKIP_OUTSIDE_CI("cannot cross-build: " + error);
  std::string relocs;
  ASSERT_TRUE(st::Run({"readelf", "-rW", lib}, &relocs));
  std::vector<std::string> names;
  bool in_plt = false;
  for (absl::string_view line : absl::StrSplit(relocs, '\n')) {
    if (line.find("Relocation section") != absl::string_view::npos) {
      in_plt = line.find(".rel.plt") != absl::string_view::npos;
      continue;
    }
    std::vector<std::string> t =
        absl::StrSplit(line, ' ', absl::SkipWhitespace());
    if (in_plt && t.size() >= 5 && t[2] == "R_ARM_JUMP_SLOT") {
      names.push_back(t[4]);
    }
  }
  ASSERT_EQ(names.size(), 3u);
  uint64_t plt = 0;
  for (const st::RefSection& s : st::ReadSections(lib)) {
    if (s.name == ".plt") plt = s.addr;
  }
  ASSERT_NE(plt, 0u);
  auto symbolizer = MakeSymbolizer();
  ASSERT_TRUE(symbolizer->AddImage(1, lib, "lib_arm.so").ok());
  EXPECT_EQ(symbolizer->GetImageInfo(1)->arch, "arm");
  for (size_t i = 0; i < names.size(); ++i) {
    const FunctionSymbol* f = symbolizer->FunctionFor(1, plt + 32 + 16 * i);
    ASSERT_NE(f, nullptr) << names[i];
    EXPECT_EQ(f->raw_name, names[i] + "@plt");
    EXPECT_EQ(f->start, plt + 32 + 16 * i);
    EXPECT_EQ(f->size, 16u);
  }
  EXPECT_EQ(symbolizer->FunctionFor(1, plt), nullptr);  // the PLT header
  // ARM symbols: readelf's values keep the Thumb bit; ours clear it.
  const FunctionSymbol* api =
      symbolizer->FunctionFor(1, SymbolValue(lib, "api_entry") & ~uint64_t{1});
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(api->raw_name, "api_entry");
}

// ---------------------------------------------------------------------------
// Unknown code, missing images, batching, lookups by name, code bytes.

TEST(SymbolizerTest, UnknownAddressesAndMissingImages) {
  const std::string prog = InlineProgram();
  ASSERT_FALSE(prog.empty());
  auto symbolizer = MakeSymbolizer();
  ASSERT_TRUE(symbolizer->AddImage(0, prog, "/usr/bin/inline_prog").ok());
  ASSERT_TRUE(symbolizer->AddImage(1, "", "/usr/lib/libgone.so.1").ok());
  ASSERT_TRUE(
      symbolizer->AddImage(2, st::BuildDir() + "/does-not-exist", "/lib/x.so")
          .ok());
  EXPECT_THAT(std::string(symbolizer->AddImage(2, prog, "again").message()),
              HasSubstr("already added"));

  // Outside every image.
  ASSERT_EQ(symbolizer->Symbolize(Symbolizer::kNoImage, 0x1234).size(), 1u);
  EXPECT_EQ(symbolizer->Symbolize(Symbolizer::kNoImage, 0x1234)[0].function,
            "[unknown]");
  EXPECT_EQ(symbolizer->Symbolize(99, 0x1234)[0].function, "[unknown]");
  EXPECT_EQ(symbolizer->FunctionFor(Symbolizer::kNoImage, 0x1234), nullptr);
  // Missing images: named after the path's base name.
  EXPECT_EQ(symbolizer->Symbolize(1, 0x4f0)[0].function,
            "[libgone.so.1+0x4f0]");
  EXPECT_EQ(symbolizer->Symbolize(2, 0x10)[0].function, "[x.so+0x10]");
  EXPECT_TRUE(symbolizer->GetImageInfo(1)->missing);
  EXPECT_THAT(symbolizer->GetImageInfo(2)->missing_reason,
              HasSubstr("does-not-exist"));
  EXPECT_EQ(symbolizer->FunctionFor(1, 0x4f0), nullptr);
  // Only the loaded image has functions to find (the profile builder asks
  // no address of the others).
  EXPECT_TRUE(symbolizer->HasFunctions(0));
  EXPECT_FALSE(symbolizer->HasFunctions(1));
  EXPECT_FALSE(symbolizer->HasFunctions(2));
  EXPECT_FALSE(symbolizer->HasFunctions(99));
  EXPECT_FALSE(symbolizer->HasFunctions(Symbolizer::kNoImage));
  // Far outside the loaded image's code.
  EXPECT_EQ(symbolizer->Symbolize(0, 0x7fff0000)[0].function,
            "[inline_prog+0x7fff0000]");
  EXPECT_EQ(symbolizer->Symbolize(0, 0x7fff0000)[0].file, "");
  EXPECT_FALSE(symbolizer->GetImageInfo(0)->missing);
  EXPECT_EQ(symbolizer->GetImageInfo(0)->arch, "x86_64");
  EXPECT_EQ(symbolizer->GetImageInfo(0)->build_id.size(), 40u);
  EXPECT_EQ(symbolizer->GetImageInfo(5), nullptr);
}

TEST(SymbolizerTest, BatchEqualsOneByOneAndIsCached) {
  const std::string prog = InlineProgram();
  ASSERT_FALSE(prog.empty());
  auto batch = MakeSymbolizer();
  auto single = MakeSymbolizer();
  ASSERT_TRUE(batch->AddImage(4, prog, "inline_prog").ok());
  ASSERT_TRUE(single->AddImage(4, prog, "inline_prog").ok());
  std::vector<ImageAddress> addresses;
  for (uint64_t a : InlineProgramAddresses(prog)) {
    addresses.push_back({4, a});
    addresses.push_back({Symbolizer::kNoImage, a});
  }
  std::reverse(addresses.begin(), addresses.end());
  const auto results = batch->SymbolizeBatch(addresses);
  ASSERT_EQ(results.size(), addresses.size());
  for (size_t i = 0; i < addresses.size(); ++i) {
    const std::vector<Frame>& one =
        single->Symbolize(addresses[i].image, addresses[i].vaddr);
    ASSERT_EQ(results[i]->size(), one.size());
    for (size_t j = 0; j < one.size(); ++j) {
      EXPECT_EQ((*results[i])[j].function, one[j].function);
      EXPECT_EQ((*results[i])[j].line, one[j].line);
    }
    // Cached: the same object comes back.
    EXPECT_EQ(results[i],
              &batch->Symbolize(addresses[i].image, addresses[i].vaddr));
  }
}

TEST(SymbolizerTest, FindFunctionsAndReadCode) {
  const std::string prog = InlineProgram();
  ASSERT_FALSE(prog.empty());
  auto symbolizer = MakeSymbolizer();
  ASSERT_TRUE(symbolizer->AddImage(2, prog, "inline_prog").ok());
  ASSERT_TRUE(symbolizer->AddImage(5, prog, "inline_prog (2nd mapping)").ok());
  auto found = symbolizer->FindFunctions("compute", NameMatch::kExact);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 2u);  // one per image id, same file loaded once
  EXPECT_EQ((*found)[0].image_id, 2u);
  EXPECT_EQ((*found)[1].image_id, 5u);
  EXPECT_EQ((*found)[0].symbol, (*found)[1].symbol);
  const FunctionSymbol& compute = *(*found)[0].symbol;
  EXPECT_EQ(compute.start, SymbolValue(prog, "compute"));

  auto regex =
      symbolizer->FindFunctions("^(compute|hash_.*)$", NameMatch::kRegex);
  ASSERT_TRUE(regex.ok());
  EXPECT_EQ(regex->size(), 4u);
  EXPECT_FALSE(symbolizer->FindFunctions("([", NameMatch::kRegex).ok());

  // Code bytes: the file's bytes at the section offset of the address.
  auto code = symbolizer->ReadCode(2, compute.start, compute.size);
  ASSERT_TRUE(code.ok()) << code.status();
  ASSERT_EQ(code->size(), compute.size);
  uint64_t offset = 0;
  for (const st::RefSection& s : st::ReadSections(prog)) {
    if (s.name == ".text") offset = s.offset + (compute.start - s.addr);
  }
  ASSERT_NE(offset, 0u);
  auto file = ReadFileToString(prog);
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(std::string(code->begin(), code->end()),
            file->substr(offset, compute.size));
  EXPECT_FALSE(symbolizer->ReadCode(2, 0x7fffffff0000, 16).ok());
  EXPECT_FALSE(symbolizer->ReadCode(9, compute.start, 16).ok());
}

// ---------------------------------------------------------------------------
// This machine's libc: thousands of symbols, IFUNCs, IRELATIVE PLT slots.

const char kLibc[] = "/lib/x86_64-linux-gnu/libc.so.6";

TEST(LibcTest, DynsymOnlyMatchesReadelf) {
  if (access(kLibc, R_OK) != 0) {
    HWT_SKIP_OUTSIDE_CI(std::string(kLibc) + " not present");
  }
  auto symbolizer = MakeSymbolizer();  // no debug files reachable
  ASSERT_TRUE(symbolizer->AddImage(1, kLibc, kLibc).ok());
  const ImageInfo* info = symbolizer->GetImageInfo(1);
  ASSERT_EQ(info->symbol_source, ImageInfo::SymbolSource::kDynsym);
  EXPECT_GT(info->function_count, 1000u);
  const st::NaiveFunctionRule rule = NaiveRule(kLibc, ".dynsym", kLibc);
  ExpectMatchesRule(*symbolizer, 1, rule, rule.ProbeAddresses());
  // IFUNC symbols are functions too (memcpy is one in glibc).
  auto memcpy_found = symbolizer->FindFunctions("memcpy", NameMatch::kExact);
  ASSERT_TRUE(memcpy_found.ok());
  EXPECT_FALSE(memcpy_found->empty());
  // PLT entries, including the *ABS*+0x... (IRELATIVE) ones.
  const auto labels = st::ObjdumpPltLabels(kLibc);
  EXPECT_EQ(info->plt_count, labels.size());
  for (const auto& [addr, name] : labels) {
    const FunctionSymbol* f = symbolizer->FunctionFor(1, addr);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->raw_name, name);
  }
}

TEST(LibcTest, WithSystemDebugFile) {
  if (access(kLibc, R_OK) != 0) {
    HWT_SKIP_OUTSIDE_CI(std::string(kLibc) + " not present");
  }
  SymbolizerOptions options;
  options.sysroot = "/";
  auto symbolizer = Symbolizer::Create(options);
  ASSERT_TRUE(symbolizer->AddImage(1, kLibc, kLibc).ok());
  const ImageInfo* info = symbolizer->GetImageInfo(1);
  if (info->debug_file.empty()) {
    HWT_SKIP_OUTSIDE_CI(
        "no debug file for libc on this machine (package libc6-dbg)");
  }
  EXPECT_EQ(info->symbol_source, ImageInfo::SymbolSource::kDebugFileSymtab);
  EXPECT_TRUE(info->has_dwarf);
  const st::NaiveFunctionRule rule =
      NaiveRule(info->debug_file, ".symtab", kLibc);
  std::vector<uint64_t> probes = rule.ProbeAddresses();
  ExpectMatchesRule(*symbolizer, 1, rule, probes);

  // Full symbolization of a spread of addresses: never empty, names agree
  // with the fast path, lines found for most.
  size_t with_line = 0, total = 0;
  for (size_t i = 0; i < probes.size(); i += 97) {
    const FunctionSymbol* f = symbolizer->FunctionFor(1, probes[i]);
    if (f == nullptr || f->plt) continue;
    const std::vector<Frame>& frames = symbolizer->Symbolize(1, probes[i]);
    ASSERT_FALSE(frames.empty());
    EXPECT_EQ(frames.back().function, f->name);
    ++total;
    if (frames.back().line != 0) ++with_line;
  }
  EXPECT_GT(total, 50u);
  EXPECT_GT(with_line * 2, total);
  EXPECT_EQ(symbolizer->GetImageInfo(1)->dwarf_errors, 0u)
      << symbolizer->GetImageInfo(1)->first_dwarf_error;
}

// ---------------------------------------------------------------------------
// Other architectures (cross-built with clang + lld when available).

struct CrossCase {
  const char* name;
  const char* target;
  const char* arch;
};

class CrossArchTest : public ::testing::TestWithParam<CrossCase> {};

TEST_P(CrossArchTest, SymbolsMatchReadelfUnderTheRule) {
  const CrossCase& c = GetParam();
  HWT_REQUIRE_TOOL("clang-19");
  HWT_REQUIRE_TOOL("ld.lld-19");
  std::string error;
  const std::string lib =
      st::BuildProgram(c.name, "shared_lib.c",
                       {std::string("--target=") + c.target, "-g", "-O2",
                        "-fPIC", "-shared", "-nostdlib", "-fuse-ld=lld"},
                       &error, "clang-19");
  if (lib.empty()) HWT_SKIP_OUTSIDE_CI("cannot cross-build: " + error);
  auto symbolizer = MakeSymbolizer();
  ASSERT_TRUE(symbolizer->AddImage(1, lib, c.name).ok());
  EXPECT_EQ(symbolizer->GetImageInfo(1)->arch, c.arch);
  std::vector<st::RefSymbol> symbols = st::ReadFunctionSymbols(lib, ".symtab");
  ASSERT_FALSE(symbols.empty());
  for (st::RefSymbol& s : symbols) s.value &= ~uint64_t{1};  // ARM Thumb bit
  const st::NaiveFunctionRule rule(symbols, st::ReadSections(lib));
  std::vector<uint64_t> probes = rule.ProbeAddresses();
  // PLT entries are checked elsewhere; stay within the symbols here.
  int checked = 0;
  for (uint64_t a : probes) {
    const FunctionSymbol* f = symbolizer->FunctionFor(1, a);
    if (f != nullptr && f->plt) continue;
    auto want = rule.At(a);
    ASSERT_EQ(want.has_value(), f != nullptr) << absl::StrFormat("0x%x", a);
    if (want) {
      EXPECT_EQ(f->raw_name, want->name);
      ++checked;
    }
  }
  EXPECT_GT(checked, 4);
  // DWARF works for the other architectures too.
  auto found = symbolizer->FindFunctions("api_entry", NameMatch::kExact);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  const FunctionSymbol* api = (*found)[0].symbol;
  const std::vector<Frame>& frames = symbolizer->Symbolize(1, api->start);
  EXPECT_EQ(frames.back().function, "api_entry");
  EXPECT_THAT(frames.back().file, HasSubstr("shared_lib.c"));
  EXPECT_GT(frames.back().line, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Targets, CrossArchTest,
    ::testing::Values(
        CrossCase{"x_aarch64.so", "aarch64-linux-gnu", "aarch64"},
        CrossCase{"x_arm.so", "armv7a-linux-gnueabihf", "arm"},
        CrossCase{"x_thumb.so", "thumbv7a-linux-gnueabihf", "arm"},
        CrossCase{"x_i686.so", "i686-linux-gnu", "i386"},
        CrossCase{"x_aarch64_be.so", "aarch64_be-linux-gnu", "aarch64_be"}),
    [](const ::testing::TestParamInfo<CrossCase>& info) {
      std::string name = info.param.name;
      std::replace_if(
          name.begin(), name.end(), [](char ch) { return !isalnum(ch); }, '_');
      return name;
    });

}  // namespace
}  // namespace hwt::symbolizer
