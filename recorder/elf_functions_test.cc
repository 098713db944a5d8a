// The ground truth's ELF reader against binutils: its symbols equal what
// `readelf -sW` lists (FUNC and IFUNC, defined), its PLT entries what
// `objdump -d` labels NAME@plt, its demangled names what `nm -C` prints, and
// the function it picks for an address what the rules of docs/call-stacks.md
// give when applied here, by brute force, to readelf's symbols and sections.
// Files: test programs (static, PIE with lazy and non-lazy PLT), libc (whose
// symbols come from libc6-dbg's debug file, found by build-id), ld.so and
// libstdc++ (C++ names).
#include "recorder/elf_functions.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/testing/test_env.h"
#include "gtest/gtest.h"
#include "recorder/testing/test_programs.h"

namespace hwt::recorder {
namespace {

using ::hwt::recorder::testing::Program;
using ::hwt::testing::RunCommand;

struct Sym {
  uint64_t value = 0;
  uint64_t size = 0;
  std::string name;
  std::string ndx;  // readelf's Ndx column
  bool operator<(const Sym& o) const {
    return std::tie(value, size, name) < std::tie(o.value, o.size, o.name);
  }
  bool operator==(const Sym& o) const {
    return value == o.value && size == o.size && name == o.name;
  }
};

struct SectionRange {
  uint64_t addr = 0;
  uint64_t size = 0;
};

std::string Tool(const std::vector<std::string>& argv) {
  auto result = RunCommand(argv, 120);
  EXPECT_EQ(result.exit_code, 0) << argv[0] << ": " << result.err;
  return result.out;
}

uint64_t ParseNumber(absl::string_view text, int base) {
  uint64_t v = 0;
  if (absl::ConsumePrefix(&text, "0x")) base = 16;
  bool ok =
      base == 16 ? absl::SimpleHexAtoi(text, &v) : absl::SimpleAtoi(text, &v);
  EXPECT_TRUE(ok) << text;
  return v;
}

// readelf -sW: the defined FUNC/IFUNC symbols of `table` (".symtab" or
// ".dynsym"); .dynsym names lose the version readelf appends.
std::vector<Sym> ReadelfFunctions(const std::string& file,
                                  const std::string& table) {
  std::vector<Sym> out;
  bool in_table = false;
  for (absl::string_view line :
       absl::StrSplit(Tool({"readelf", "-sW", file}), '\n')) {
    if (absl::StartsWith(line, "Symbol table")) {
      in_table = line.find("'" + table + "'") != absl::string_view::npos;
      continue;
    }
    std::vector<absl::string_view> f =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (!in_table || f.size() < 8 || !absl::EndsWith(f[0], ":")) continue;
    if (f[3] != "FUNC" && f[3] != "IFUNC") continue;
    if (f[6] == "UND") continue;
    Sym s;
    s.value = ParseNumber(f[1], 16);
    s.size = ParseNumber(f[2], 10);
    s.name = std::string(f[7]);
    s.ndx = std::string(f[6]);
    if (table == ".dynsym") s.name = s.name.substr(0, s.name.find('@'));
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// readelf -SW: section index -> address range.
std::map<std::string, SectionRange> ReadelfSections(const std::string& file) {
  std::map<std::string, SectionRange> out;
  for (absl::string_view line :
       absl::StrSplit(Tool({"readelf", "-SW", file}), '\n')) {
    size_t open = line.find('[');
    size_t close = line.find(']');
    if (open == absl::string_view::npos || close == absl::string_view::npos) {
      continue;
    }
    std::string index(
        absl::StripAsciiWhitespace(line.substr(open + 1, close - open - 1)));
    std::vector<absl::string_view> f =
        absl::StrSplit(line.substr(close + 1), ' ', absl::SkipEmpty());
    if (f.size() < 5 || !absl::ascii_isdigit(index[0])) continue;
    out[index] = SectionRange{ParseNumber(f[2], 16), ParseNumber(f[4], 16)};
  }
  return out;
}

// objdump -d: the <NAME@plt> labels of the PLT sections.
std::vector<Sym> ObjdumpPltLabels(const std::string& file) {
  std::vector<Sym> out;
  std::vector<std::string> args = {"objdump", "-d"};
  const std::string headers = Tool({"readelf", "-SW", file});
  for (const char* name : {".plt", ".plt.sec", ".plt.got"}) {
    if (headers.find(absl::StrCat(" ", name, " ")) == std::string::npos) {
      continue;
    }
    args.push_back("-j");
    args.push_back(name);
  }
  if (args.size() == 2) return out;  // no PLT section
  args.push_back(file);
  for (absl::string_view line : absl::StrSplit(Tool(args), '\n')) {
    size_t lt = line.find(" <");
    if (lt == absl::string_view::npos || !absl::EndsWith(line, ">:")) continue;
    Sym s;
    s.value = ParseNumber(line.substr(0, lt), 16);
    s.name = std::string(line.substr(lt + 2, line.size() - lt - 4));
    if (absl::EndsWith(s.name, "@plt")) out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The file readelf should be read on: the debug file the table names.
std::string SymbolFile(const std::string& file, const ElfFunctionTable& t) {
  return t.source()[0] == '/' ? t.source() : file;
}

class ElfFunctionsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto table = ElfFunctionTable::Read(GetParam());
    ASSERT_TRUE(table.ok()) << table.status();
    table_ = std::move(*table);
  }
  std::vector<Sym> OurSymbols(bool plt) const {
    std::vector<Sym> out;
    for (const ElfFunction& f : table_.functions()) {
      bool is_plt = absl::EndsWith(f.raw_name, "@plt") && f.size == 0;
      if (is_plt != plt) continue;
      out.push_back(Sym{f.start, f.size, f.raw_name, ""});
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  ElfFunctionTable table_;
};

std::string Describe(const std::vector<Sym>& a, const std::vector<Sym>& b) {
  std::vector<Sym> only_a, only_b;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(),
                      std::back_inserter(only_a));
  std::set_difference(b.begin(), b.end(), a.begin(), a.end(),
                      std::back_inserter(only_b));
  std::string out;
  for (size_t i = 0; i < only_a.size() && i < 5; ++i) {
    out += absl::StrFormat(" ours only: %x %d %s\n", only_a[i].value,
                           only_a[i].size, only_a[i].name);
  }
  for (size_t i = 0; i < only_b.size() && i < 5; ++i) {
    out += absl::StrFormat(" binutils only: %x %d %s\n", only_b[i].value,
                           only_b[i].size, only_b[i].name);
  }
  return out;
}

TEST_P(ElfFunctionsTest, SymbolsAreReadelfs) {
  const std::string file = SymbolFile(GetParam(), table_);
  const std::string table =
      table_.source() == ".dynsym" ? ".dynsym" : ".symtab";
  std::vector<Sym> expected = ReadelfFunctions(file, table);
  ASSERT_FALSE(expected.empty());
  std::vector<Sym> ours = OurSymbols(false);
  EXPECT_TRUE(ours == expected) << Describe(ours, expected);
  // The table is the richest: no other has more function symbols.
  if (table == ".dynsym") {
    EXPECT_TRUE(ReadelfFunctions(GetParam(), ".symtab").empty());
  } else if (file == GetParam()) {
    EXPECT_GE(expected.size(), ReadelfFunctions(file, ".dynsym").size());
  }
}

TEST_P(ElfFunctionsTest, PltEntriesAreObjdumpsLabels) {
  std::vector<Sym> expected = ObjdumpPltLabels(GetParam());
  std::vector<Sym> ours = OurSymbols(true);
  for (Sym& s : ours) s.size = 0;
  EXPECT_TRUE(ours == expected) << Describe(ours, expected);
}

// The rules applied by brute force to readelf's symbols and sections (and
// objdump's PLT labels): for every symbol start, start + 1, last byte and
// end, the chosen function must be the one Find returns.
TEST_P(ElfFunctionsTest, FindAppliesTheRules) {
  const std::string file = SymbolFile(GetParam(), table_);
  const std::string table =
      table_.source() == ".dynsym" ? ".dynsym" : ".symtab";
  std::map<std::string, SectionRange> sections = ReadelfSections(file);
  std::map<std::string, SectionRange> image_sections =
      ReadelfSections(GetParam());
  struct Candidate {
    uint64_t start, end;
    std::string name;
  };
  std::vector<Candidate> all;
  std::map<uint64_t, std::set<uint64_t>> starts;  // section addr -> starts
  std::vector<std::pair<Sym, SectionRange>> placed;
  for (const Sym& s : ReadelfFunctions(file, table)) {
    auto it = sections.find(s.ndx);
    placed.emplace_back(s, it != sections.end() ? it->second : SectionRange{});
  }
  for (const Sym& s : ObjdumpPltLabels(GetParam())) {
    SectionRange in;
    for (const auto& [index, range] : image_sections) {
      if (s.value >= range.addr && s.value < range.addr + range.size) {
        in = range;
      }
    }
    placed.emplace_back(s, in);
  }
  for (const auto& [s, range] : placed) starts[range.addr].insert(s.value);
  for (const auto& [s, range] : placed) {
    uint64_t end = s.value + s.size;
    if (s.size == 0) {
      const std::set<uint64_t>& st = starts[range.addr];
      auto next = st.upper_bound(s.value);
      end = range.size == 0 ? s.value + 1 : range.addr + range.size;
      if (next != st.end() && *next < end) end = *next;
    }
    all.push_back({s.value, end, s.name});
  }
  auto expected_at = [&](uint64_t a) -> std::string {
    const Candidate* best = nullptr;
    for (const Candidate& c : all) {
      if (a < c.start || a >= c.end) continue;
      if (best == nullptr || c.start > best->start ||
          (c.start == best->start &&
           (c.end - c.start > best->end - best->start ||
            (c.end - c.start == best->end - best->start &&
             c.name < best->name)))) {
        best = &c;
      }
    }
    return best == nullptr ? "" : best->name;
  };
  std::set<uint64_t> probes;
  for (const Candidate& c : all) {
    probes.insert({c.start, c.start + 1, c.end - 1, c.end});
  }
  // libc has ~9k functions: every fourth probe keeps the brute force short.
  size_t step = probes.size() > 4000 ? 4 : 1;
  size_t i = 0, checked = 0, wrong = 0;
  for (uint64_t a : probes) {
    if (i++ % step != 0) continue;
    const ElfFunction* f = table_.Find(a);
    std::string got = f == nullptr ? "" : f->raw_name;
    std::string want = expected_at(a);
    ++checked;
    if (got != want && ++wrong <= 5) {
      ADD_FAILURE() << absl::StrFormat("0x%x: ours '%s', rules '%s'", a, got,
                                       want);
    }
  }
  EXPECT_EQ(wrong, 0u) << "of " << checked << " addresses";
}

INSTANTIATE_TEST_SUITE_P(
    Files, ElfFunctionsTest,
    ::testing::Values(Program("counted_static"), Program("fib_static"),
                      Program("fib_dynamic"), Program("maps_dynamic"),
                      "/lib/x86_64-linux-gnu/libc.so.6",
                      "/lib64/ld-linux-x86-64.so.2",
                      "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string name = info.param.substr(info.param.rfind('/') + 1);
      std::replace_if(
          name.begin(), name.end(), [](char ch) { return !isalnum(ch); }, '_');
      return name;
    });

// libc's symbols come from libc6-dbg's file, found by build-id.
TEST(ElfFunctionsChoiceTest, LibcUsesItsDebugFile) {
  auto table = ElfFunctionTable::Read("/lib/x86_64-linux-gnu/libc.so.6");
  ASSERT_TRUE(table.ok()) << table.status();
  std::string notes =
      Tool({"readelf", "-n", "/lib/x86_64-linux-gnu/libc.so.6"});
  size_t at = notes.find("Build ID: ");
  ASSERT_NE(at, std::string::npos);
  std::string id = notes.substr(at + 10, notes.find('\n', at) - at - 10);
  EXPECT_EQ(table->source(), "/usr/lib/debug/.build-id/" + id.substr(0, 2) +
                                 "/" + id.substr(2) + ".debug");
}

// Demangled names are `nm -C`'s (libstdc++'s exported C++ functions).
TEST(ElfFunctionsChoiceTest, NamesAreDemangledAsNmDoes) {
  const std::string file = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6";
  auto table = ElfFunctionTable::Read(file);
  ASSERT_TRUE(table.ok()) << table.status();
  auto lines = [&](bool demangle) {
    std::vector<std::string> args = {"nm", "-D", "--defined-only",
                                     "--without-symbol-versions"};
    if (demangle) args.push_back("-C");
    args.push_back(file);
    std::vector<std::string> out;
    for (absl::string_view l : absl::StrSplit(Tool(args), '\n')) {
      if (l.size() > 19) out.emplace_back(l.substr(19));
    }
    return out;
  };
  std::vector<std::string> raw = lines(false), demangled = lines(true);
  ASSERT_EQ(raw.size(), demangled.size());
  std::map<std::string, std::string> nm;
  for (size_t i = 0; i < raw.size(); ++i) nm[raw[i]] = demangled[i];
  size_t compared = 0;
  for (const ElfFunction& f : table->functions()) {
    if (!absl::StartsWith(f.raw_name, "_Z")) continue;
    auto it = nm.find(f.raw_name);
    if (it == nm.end()) continue;
    EXPECT_EQ(f.name, it->second) << f.raw_name;
    ++compared;
  }
  EXPECT_GT(compared, 1000u);
  EXPECT_EQ(DemangleSymbol("_ZN3foo3barEv@@V_1.0"), "foo::bar()@@V_1.0");
  EXPECT_EQ(DemangleSymbol("main"), "main");
  EXPECT_EQ(DemangleSymbol("b"), "b");  // not "bool": not an Itanium name
  EXPECT_EQ(UncoveredCodeName("/lib/x/libfoo.so.1", 0x1a30),
            "[libfoo.so.1+0x1a30]");
}

}  // namespace
}  // namespace hwt::recorder
