// Helpers of the symbolizer tests that compare with binutils; see
// symbolizer_checks.h.
#include "symbolizer/testing/symbolizer_checks.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "symbolizer/testing/test_programs.h"

namespace hwt::symbolizer::testing {
namespace {

int SectionContaining(const std::vector<RefSection>& sections, uint64_t addr) {
  for (const RefSection& s : sections) {
    if (s.addr != 0 && addr >= s.addr && addr < s.addr + s.size) {
      return s.index;
    }
  }
  return -1;
}

}  // namespace

std::string MustBuild(const std::string& output, const std::string& source,
                      const std::vector<std::string>& flags,
                      const std::string& compiler) {
  std::string error;
  std::string path = BuildProgram(output, source, flags, &error, compiler);
  EXPECT_FALSE(path.empty()) << error;
  return path;
}

std::unique_ptr<Symbolizer> MakeSymbolizer(SymbolizerOptions options) {
  // Keep the machine's /usr/lib/debug out unless a test asks for it.
  if (options.sysroot.empty()) options.sysroot = BuildDir() + "/nosysroot";
  return Symbolizer::Create(std::move(options));
}

// The rule applied by brute force to `table` of `symbols_file` plus the PLT
// labels objdump prints for `image_file`.
NaiveFunctionRule NaiveRule(const std::string& symbols_file,
                            const std::string& table,
                            const std::string& image_file,
                            const std::string& objdump) {
  const std::vector<RefSection> sections = ReadSections(symbols_file);
  std::vector<RefSymbol> symbols = ReadFunctionSymbols(symbols_file, table);
  const std::vector<RefSection> image_sections = ReadSections(image_file);
  for (const auto& [addr, name] : ObjdumpPltLabels(image_file, objdump)) {
    RefSymbol s;
    s.name = name;
    s.value = addr;
    s.section = SectionContaining(image_sections, addr);
    symbols.push_back(s);
  }
  return NaiveFunctionRule(std::move(symbols), sections);
}

// Every byte of the executable sections, plus the rule's own probes.
std::vector<uint64_t> ProbesFor(const std::string& file,
                                const NaiveFunctionRule& rule) {
  std::vector<uint64_t> probes = rule.ProbeAddresses();
  for (const RefSection& s : ReadSections(file)) {
    if (s.flags.find('X') == std::string::npos) continue;
    for (uint64_t a = s.addr; a < s.addr + s.size; ++a) probes.push_back(a);
    probes.push_back(s.addr + s.size);
  }
  std::sort(probes.begin(), probes.end());
  probes.erase(std::unique(probes.begin(), probes.end()), probes.end());
  return probes;
}

// FunctionFor() agrees with the brute-force rule at every probe.
void ExpectMatchesRule(const Symbolizer& symbolizer, uint32_t image,
                       const NaiveFunctionRule& rule,
                       const std::vector<uint64_t>& probes) {
  int failures = 0;
  size_t covered = 0;
  for (uint64_t a : probes) {
    const std::optional<NaiveFunctionRule::Hit> want = rule.At(a);
    const FunctionSymbol* got = symbolizer.FunctionFor(image, a);
    std::string problem;
    if (!want && got != nullptr) {
      problem = absl::StrFormat("got %s, want none", got->raw_name);
    } else if (want && got == nullptr) {
      problem = absl::StrFormat("got none, want %s", want->name);
    } else if (want) {
      ++covered;
      if (got->raw_name != want->name || got->start != want->start ||
          got->start + got->size != want->end) {
        problem =
            absl::StrFormat("got %s [0x%x,0x%x), want %s [0x%x,0x%x)",
                            got->raw_name, got->start, got->start + got->size,
                            want->name, want->start, want->end);
      }
    }
    if (!problem.empty()) {
      ADD_FAILURE() << absl::StrFormat("at 0x%x: ", a) << problem;
      if (++failures >= 20) return;
    }
  }
  EXPECT_GT(covered, 0u);
}

uint64_t SymbolValue(const std::string& file, const std::string& name) {
  for (const RefSymbol& s : ReadFunctionSymbols(file, ".symtab")) {
    if (s.name == name) return s.value;
  }
  ADD_FAILURE() << name << " not in " << file;
  return 0;
}

std::string InlineProgram() {
  return MustBuild("inline_prog", "inline_prog.c", {"-g", "-O2"});
}

std::vector<uint64_t> InlineProgramAddresses(const std::string& prog) {
  std::vector<uint64_t> addresses;
  for (const char* function : {"compute", "hash_args", "main"}) {
    std::vector<uint64_t> a = InstructionAddresses(prog, function);
    EXPECT_FALSE(a.empty()) << function;
    addresses.insert(addresses.end(), a.begin(), a.end());
  }
  return addresses;
}

}  // namespace hwt::symbolizer::testing
