// Ground-truth helpers for the symbolizer tests; see binutils_truth.h.
#include "symbolizer/testing/binutils_truth.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/testing/test_env.h"

namespace hwt::symbolizer::testing {
namespace {

std::vector<std::string> Tokens(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  std::string t;
  while (in >> t) out.push_back(t);
  return out;
}

uint64_t Hex(const std::string& s) {
  return std::strtoull(s.c_str(), nullptr, 16);
}

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n');
}

}  // namespace

bool Run(const std::vector<std::string>& argv, std::string* out,
         std::string* error) {
  hwt::testing::CommandResult r = hwt::testing::RunCommand(argv, 120);
  if (out != nullptr) *out = std::move(r.out);
  if (r.exit_code != 0) {
    if (error != nullptr) {
      *error = absl::StrCat(absl::StrJoin(argv, " "), ": exit ", r.exit_code,
                            ": ", r.err);
    }
    return false;
  }
  return true;
}

bool HaveTool(const std::string& tool) {
  return hwt::testing::RunCommand({"sh", "-c", "command -v " + tool}, 10)
             .exit_code == 0;
}

std::string TestSource(const std::string& name) {
  return hwt::testing::SourceDir() + "/testdata/symbolizer/" + name;
}

std::vector<RefSection> ReadSections(const std::string& file) {
  std::string out;
  Run({"readelf", "-SW", file}, &out);
  std::vector<RefSection> sections;
  for (const std::string& line : Lines(out)) {
    const size_t open = line.find('[');
    const size_t close = line.find(']');
    if (open == std::string::npos || close == std::string::npos ||
        close < open || line.find("Nr]") != std::string::npos) {
      continue;
    }
    const std::string number = line.substr(open + 1, close - open - 1);
    if (number.find_first_not_of(" 0123456789") != std::string::npos) continue;
    std::vector<std::string> t = Tokens(line.substr(close + 1));
    RefSection s;
    s.index = std::atoi(number.c_str());
    if (s.index == 0) continue;
    if (t.size() < 5) continue;
    s.name = t[0];
    s.type = t[1];
    s.addr = Hex(t[2]);
    s.offset = Hex(t[3]);
    s.size = Hex(t[4]);
    if (t.size() >= 10) s.flags = t[6];  // the Flg column may be empty
    sections.push_back(s);
  }
  return sections;
}

std::vector<RefSymbol> ReadFunctionSymbols(const std::string& file,
                                           const std::string& table) {
  std::string out;
  Run({"readelf", "-sW", file}, &out);
  std::vector<RefSymbol> symbols;
  bool in_table = false;
  for (const std::string& line : Lines(out)) {
    if (line.rfind("Symbol table '", 0) == 0) {
      in_table = line.find("'" + table + "'") != std::string::npos;
      continue;
    }
    if (!in_table) continue;
    std::vector<std::string> t = Tokens(line);
    if (t.size() < 8 || t[0].back() != ':') continue;
    const std::string& type = t[3];
    if (type != "FUNC" && type != "IFUNC") continue;
    size_t i = 6;               // after Num Value Size Type Bind Vis
    if (t[i].front() == '[') {  // e.g. "[VARIANT_PCS]" or "[<other>: 88]"
      while (i < t.size() && t[i].back() != ']') ++i;
      ++i;
    }
    if (i + 1 >= t.size()) continue;
    const std::string& ndx = t[i];
    if (ndx == "UND" || ndx == "COM") continue;
    RefSymbol s;
    s.value = Hex(t[1]);
    s.size = std::strtoull(t[2].c_str(), nullptr, 0);
    s.section = ndx == "ABS" ? -1 : std::atoi(ndx.c_str());
    s.name = t[i + 1];
    if (table == ".dynsym") s.name = s.name.substr(0, s.name.find('@'));
    symbols.push_back(s);
  }
  return symbols;
}

std::map<uint64_t, std::string> ObjdumpPltLabels(const std::string& file,
                                                 const std::string& objdump) {
  // Disassemble the PLT sections only (all of libc takes seconds).
  std::vector<std::string> argv = {objdump, "-d"};
  for (const RefSection& s : ReadSections(file)) {
    if (s.name == ".plt" || s.name == ".plt.sec" || s.name == ".plt.got" ||
        s.name == ".iplt") {
      argv.push_back("-j");
      argv.push_back(s.name);
    }
  }
  std::map<uint64_t, std::string> labels;
  if (argv.size() == 2) return labels;
  argv.push_back(file);
  std::string out;
  Run(argv, &out);
  for (const std::string& line : Lines(out)) {
    const size_t lt = line.find(" <");
    if (lt == std::string::npos || line.size() < 7 ||
        line.compare(line.size() - 6, 6, "@plt>:") != 0) {
      continue;
    }
    labels[Hex(line.substr(0, lt))] =
        line.substr(lt + 2, line.size() - 2 - (lt + 2));
  }
  return labels;
}

std::vector<uint64_t> InstructionAddresses(const std::string& file,
                                           const std::string& function) {
  // objdump lists the alignment padding after a function too: keep only the
  // symbol's own bytes.
  uint64_t start = 0, end = UINT64_MAX;
  for (const RefSymbol& s : ReadFunctionSymbols(file, ".symtab")) {
    if (s.name == function) {
      start = s.value;
      end = s.value + s.size;
    }
  }
  std::string out;
  Run({"objdump", "-d", "--no-show-raw-insn", file}, &out);
  std::vector<uint64_t> addresses;
  bool inside = false;
  const std::string label = "<" + function + ">:";
  for (const std::string& line : Lines(out)) {
    if (line.find(label) != std::string::npos && line[0] != ' ') {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.empty()) break;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const uint64_t address = Hex(line.substr(0, colon));
    if (address >= start && address < end) addresses.push_back(address);
  }
  return addresses;
}

NaiveFunctionRule::NaiveFunctionRule(std::vector<RefSymbol> symbols,
                                     const std::vector<RefSection>& sections) {
  for (const RefSymbol& s : symbols) {
    uint64_t end = s.value + s.size;
    if (s.size == 0) {
      end = s.value + 1;
      bool found_next = false;
      uint64_t next = UINT64_MAX;
      for (const RefSymbol& o : symbols) {
        if (s.section >= 0 && o.section == s.section && o.value > s.value &&
            o.value < next) {
          next = o.value;
          found_next = true;
        }
      }
      if (found_next) {
        end = next;
      } else {
        for (const RefSection& sec : sections) {
          if (s.section >= 0 && sec.index == s.section &&
              sec.addr + sec.size > s.value) {
            end = sec.addr + sec.size;
          }
        }
      }
    }
    ranges_.push_back({s.name, s.value, end});
  }
}

std::optional<NaiveFunctionRule::Hit> NaiveFunctionRule::At(
    uint64_t vaddr) const {
  const Range* best = nullptr;
  for (const Range& r : ranges_) {
    if (vaddr < r.start || vaddr >= r.end) continue;
    if (best == nullptr || r.start > best->start ||
        (r.start == best->start &&
         (r.end - r.start > best->end - best->start ||
          (r.end - r.start == best->end - best->start &&
           r.name < best->name)))) {
      best = &r;
    }
  }
  if (best == nullptr) return std::nullopt;
  return Hit{best->name, best->start, best->end};
}

std::vector<uint64_t> NaiveFunctionRule::ProbeAddresses() const {
  std::vector<uint64_t> out;
  for (const Range& r : ranges_) {
    out.push_back(r.start);
    out.push_back(r.start + 1);
    out.push_back(r.end - 1);
    out.push_back(r.end);
    out.push_back(r.start + (r.end - r.start) / 2);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::map<uint64_t, std::vector<RefFrame>> Addr2Line(
    const std::string& tool, const std::string& file,
    const std::vector<uint64_t>& addresses, bool demangle) {
  std::map<uint64_t, std::vector<RefFrame>> result;
  for (size_t begin = 0; begin < addresses.size(); begin += 500) {
    std::vector<std::string> argv = {tool, "-a", "-f", "-i", "-e", file};
    if (demangle) argv.push_back("-C");
    for (size_t i = begin; i < std::min(addresses.size(), begin + 500); ++i) {
      argv.push_back(absl::StrFormat("0x%x", addresses[i]));
    }
    std::string out;
    Run(argv, &out);
    std::vector<std::string> lines = Lines(out);
    std::vector<RefFrame>* current = nullptr;
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string& line = lines[i];
      if (line.rfind("0x", 0) == 0) {
        current = &result[Hex(line.substr(2))];
        continue;
      }
      if (current == nullptr || line.empty() || i + 1 >= lines.size()) continue;
      RefFrame frame;
      frame.function = line == "??" ? "" : line;
      std::string where = lines[++i];
      const size_t disc = where.find(" (discriminator");
      if (disc != std::string::npos) where.resize(disc);
      const size_t colon = where.rfind(':');
      if (colon != std::string::npos) {
        frame.file = where.substr(0, colon);
        frame.line = static_cast<uint32_t>(
            std::strtoul(where.c_str() + colon + 1, nullptr, 10));
      }
      if (frame.file == "??") frame.file.clear();
      current->push_back(frame);
    }
  }
  return result;
}

}  // namespace hwt::symbolizer::testing
