// Test helpers for the symbolizer tests: compiling the programs under
// testdata/symbolizer, and ground truth from the system's binutils (readelf,
// objdump, addr2line) parsed independently of LLVM, plus a deliberately naive
// (linear scan) implementation of the docs/call-stacks.md function rule.
#ifndef HWT_SYMBOLIZER_TESTING_BINUTILS_TRUTH_H_
#define HWT_SYMBOLIZER_TESTING_BINUTILS_TRUTH_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hwt::symbolizer::testing {

// Runs a command; on failure returns its stderr in *error (if given).
bool Run(const std::vector<std::string>& argv, std::string* out,
         std::string* error = nullptr);
// True when `tool` is on PATH.
bool HaveTool(const std::string& tool);
// testdata/symbolizer/NAME.
std::string TestSource(const std::string& name);

// readelf -SW.
struct RefSection {
  int index = 0;
  std::string name;
  std::string type;
  uint64_t addr = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  std::string flags;  // readelf's Flg column, e.g. "AX"
};
std::vector<RefSection> ReadSections(const std::string& file);

// readelf -sW: FUNC and IFUNC symbols defined in a section (or ABS) of one
// table (".symtab" or ".dynsym"). Dynamic names lose readelf's "@VERSION"
// decoration; .symtab names are kept whole.
struct RefSymbol {
  std::string name;
  uint64_t value = 0;
  uint64_t size = 0;
  int section = -1;  // -1: ABS or other special index
};
std::vector<RefSymbol> ReadFunctionSymbols(const std::string& file,
                                           const std::string& table);

// objdump -d: the "<NAME@plt>" labels (name includes "@plt").
std::map<uint64_t, std::string> ObjdumpPltLabels(
    const std::string& file, const std::string& objdump = "objdump");
// objdump -d: addresses of the instructions of the named .symtab function.
std::vector<uint64_t> InstructionAddresses(const std::string& file,
                                           const std::string& function);

// The rule, by brute force: symbols (+ PLT labels as size-0 symbols of the
// section containing them) against section extents.
class NaiveFunctionRule {
 public:
  NaiveFunctionRule(std::vector<RefSymbol> symbols,
                    const std::vector<RefSection>& sections);
  // Winning raw name and its [start, end), or nullopt.
  struct Hit {
    std::string name;
    uint64_t start = 0;
    uint64_t end = 0;
  };
  std::optional<Hit> At(uint64_t vaddr) const;
  // Interesting addresses: every symbol start, start+1, end-1, end.
  std::vector<uint64_t> ProbeAddresses() const;

 private:
  struct Range {
    std::string name;
    uint64_t start, end;
  };
  std::vector<Range> ranges_;
};

// addr2line -a -f -i (binutils, or llvm-addr2line with the same flags):
// frames per address, innermost first.
struct RefFrame {
  std::string function;
  std::string file;  // "" for "??"
  uint32_t line = 0;
};
std::map<uint64_t, std::vector<RefFrame>> Addr2Line(
    const std::string& tool, const std::string& file,
    const std::vector<uint64_t>& addresses, bool demangle);

}  // namespace hwt::symbolizer::testing

#endif  // HWT_SYMBOLIZER_TESTING_BINUTILS_TRUTH_H_
