// FunctionTable: ELF symbols and PLT entries via LLVM libObject, resolved
// into disjoint address intervals; see function_table.h.
#include "recorder/function_table.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include "absl/strings/str_format.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/TargetSelect.h"

namespace hwt::recorder {
namespace {

// getPltEntries needs the target's MC layer to find the PLT stubs.
void InitializeTargetsOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86TargetMC();
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64TargetMC();
  });
}

std::string ToString(llvm::Error error) {
  return llvm::toString(std::move(error));
}

struct Section {
  uint64_t start = 0;
  uint64_t end = 0;
};

}  // namespace

absl::StatusOr<FunctionTable> FunctionTable::Load(const std::string& path) {
  InitializeTargetsOnce();
  auto binary = llvm::object::ObjectFile::createObjectFile(path);
  if (!binary) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: cannot read symbols: %s", path, ToString(binary.takeError())));
  }
  const auto* elf =
      llvm::dyn_cast<llvm::object::ELFObjectFileBase>(binary->getBinary());
  if (elf == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: not an ELF file", path));
  }
  // Sections by index order, for size-0 symbols and PLT entry ends.
  std::map<uint64_t, Section> sections_by_index;  // section index -> range
  std::map<std::string, Section> sections_by_name;
  bool has_symtab = false;
  for (const llvm::object::SectionRef& section : elf->sections()) {
    llvm::object::ELFSectionRef elf_section(section);
    if (elf_section.getType() == llvm::ELF::SHT_SYMTAB) has_symtab = true;
    Section range{section.getAddress(),
                  section.getAddress() + section.getSize()};
    sections_by_index[section.getIndex()] = range;
    if (auto name = section.getName()) {
      sections_by_name[name->str()] = range;
    } else {
      llvm::consumeError(name.takeError());
    }
  }

  struct Candidate {
    FunctionSymbol symbol;
    uint64_t section = 0;
    bool sized = true;
  };
  std::vector<Candidate> candidates;
  auto symbols = has_symtab ? elf->symbols() : elf->getDynamicSymbolIterators();
  for (const llvm::object::ELFSymbolRef& sym : symbols) {
    uint8_t type = sym.getELFType();
    if (type != llvm::ELF::STT_FUNC && type != llvm::ELF::STT_GNU_IFUNC) {
      continue;
    }
    auto section = sym.getSection();
    if (!section) {
      llvm::consumeError(section.takeError());
      continue;
    }
    if (*section == elf->section_end()) continue;  // undefined or absolute
    auto name = sym.getName();
    auto address = sym.getAddress();
    if (!name || !address) {
      if (!name) llvm::consumeError(name.takeError());
      if (!address) llvm::consumeError(address.takeError());
      continue;
    }
    Candidate c;
    c.symbol.start = *address;
    c.symbol.end = *address + sym.getSize();
    c.symbol.raw_name = name->str();
    c.symbol.name = llvm::demangle(c.symbol.raw_name);
    c.section = (*section)->getIndex();
    c.sized = sym.getSize() != 0;
    candidates.push_back(std::move(c));
  }
  // A symbol of size 0 covers its address up to the next function symbol's
  // start in the same section, else to the section's end.
  std::map<uint64_t, std::set<uint64_t>> starts_by_section;
  for (const Candidate& c : candidates) {
    starts_by_section[c.section].insert(c.symbol.start);
  }
  std::vector<FunctionSymbol> result;
  for (Candidate& c : candidates) {
    if (!c.sized) {
      const std::set<uint64_t>& starts = starts_by_section[c.section];
      auto next = starts.upper_bound(c.symbol.start);
      c.symbol.end =
          next != starts.end() ? *next : sections_by_index[c.section].end;
      if (c.symbol.end <= c.symbol.start) continue;
    }
    result.push_back(std::move(c.symbol));
  }

  // PLT entries: NAME@plt up to the next entry of the section or its end.
  std::map<std::string, std::vector<std::pair<uint64_t, std::string>>> plts;
  for (const llvm::object::ELFPltEntry& entry : elf->getPltEntries()) {
    std::string name;
    if (entry.Symbol) {
      llvm::object::SymbolRef sym(*entry.Symbol, elf);
      if (auto sym_name = sym.getName()) {
        name = sym_name->str();
      } else {
        llvm::consumeError(sym_name.takeError());
      }
    }
    plts[entry.Section.str()].emplace_back(entry.Address, name);
  }
  for (auto& [section_name, entries] : plts) {
    std::sort(entries.begin(), entries.end());
    uint64_t section_end = sections_by_name[section_name].end;
    for (size_t i = 0; i < entries.size(); ++i) {
      if (entries[i].second.empty()) continue;  // no symbol: not a function
      FunctionSymbol plt;
      plt.start = entries[i].first;
      plt.end = i + 1 < entries.size() ? entries[i + 1].first : section_end;
      if (plt.end <= plt.start) continue;
      plt.raw_name = entries[i].second + "@plt";
      plt.name = llvm::demangle(entries[i].second) + "@plt";
      result.push_back(std::move(plt));
    }
  }
  return FromSymbols(std::move(result));
}

FunctionTable FunctionTable::FromSymbols(std::vector<FunctionSymbol> symbols) {
  FunctionTable table;
  table.symbols_ = std::move(symbols);
  table.Resolve();
  return table;
}

void FunctionTable::Resolve() {
  // Sweep over all boundaries keeping the covering symbols ordered by the
  // tie-break: highest start, then largest size, then smallest raw name.
  auto better = [this](int32_t a, int32_t b) {
    const FunctionSymbol& x = symbols_[a];
    const FunctionSymbol& y = symbols_[b];
    return std::make_tuple(~x.start, ~(x.end - x.start), x.raw_name, a) <
           std::make_tuple(~y.start, ~(y.end - y.start), y.raw_name, b);
  };
  std::vector<uint64_t> points;
  for (const FunctionSymbol& s : symbols_) {
    points.push_back(s.start);
    points.push_back(s.end);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  std::vector<int32_t> by_start(symbols_.size());
  std::vector<int32_t> by_end(symbols_.size());
  for (size_t i = 0; i < symbols_.size(); ++i) by_start[i] = by_end[i] = i;
  std::sort(by_start.begin(), by_start.end(), [this](int32_t a, int32_t b) {
    return symbols_[a].start < symbols_[b].start;
  });
  std::sort(by_end.begin(), by_end.end(), [this](int32_t a, int32_t b) {
    return symbols_[a].end < symbols_[b].end;
  });
  std::set<int32_t, decltype(better)> active(better);
  size_t next_start = 0;
  size_t next_end = 0;
  bounds_.clear();
  winners_.clear();
  for (uint64_t point : points) {
    while (next_end < by_end.size() &&
           symbols_[by_end[next_end]].end <= point) {
      active.erase(by_end[next_end++]);
    }
    while (next_start < by_start.size() &&
           symbols_[by_start[next_start]].start <= point) {
      int32_t index = by_start[next_start++];
      if (symbols_[index].end > point) active.insert(index);
    }
    int32_t winner = active.empty() ? kNone : *active.begin();
    if (!winners_.empty() && winners_.back() == winner) continue;
    bounds_.push_back(point);
    winners_.push_back(winner);
  }
}

int32_t FunctionTable::Find(uint64_t vaddr) const {
  auto it = std::upper_bound(bounds_.begin(), bounds_.end(), vaddr);
  if (it == bounds_.begin()) return kNone;
  return winners_[it - bounds_.begin() - 1];
}

}  // namespace hwt::recorder
