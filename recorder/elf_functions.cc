// The ground truth's ELF symbol reader; see elf_functions.h for the rules.
#include "recorder/elf_functions.h"

#include <cxxabi.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "base/status_macros.h"

namespace hwt::recorder {
namespace {

using std::literals::string_view_literals::operator""sv;

constexpr uint32_t kShtSymtab = 2;
constexpr uint32_t kShtRela = 4;
constexpr uint32_t kShtNote = 7;
constexpr uint32_t kShtDynamic = 6;
constexpr uint32_t kShtDynsym = 11;
constexpr uint8_t kSttFunc = 2;
constexpr uint8_t kSttGnuIfunc = 10;
constexpr uint16_t kShnUndef = 0;
constexpr uint16_t kShnLoreserve = 0xff00;
constexpr uint32_t kRX86_64GlobDat = 6;
constexpr uint32_t kRX86_64JumpSlot = 7;
constexpr uint32_t kRX86_64Irelative = 37;

struct Section {
  std::string name;
  uint32_t name_offset = 0;
  uint32_t type = 0;
  uint64_t addr = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint64_t entsize = 0;
};

struct Symbol {
  std::string name;
  uint8_t type = 0;
  uint16_t shndx = 0;
  uint64_t value = 0;
  uint64_t size = 0;
};

// One ELF file's sections, read with bounds checks.
class ElfReader {
 public:
  static absl::StatusOr<ElfReader> Open(const std::string& path) {
    ElfReader r;
    HWT_ASSIGN_OR_RETURN(r.file_, MappedFile::Open(path));
    r.path_ = path;
    HWT_RETURN_IF_ERROR(r.ReadSections());
    return r;
  }

  const std::vector<Section>& sections() const { return sections_; }
  const std::string& path() const { return path_; }

  const Section* Named(const std::string& name) const {
    for (const Section& s : sections_) {
      if (s.name == name) return &s;
    }
    return nullptr;
  }

  // The bytes of a section that has file contents (empty for NOBITS).
  absl::StatusOr<std::string_view> Bytes(const Section& s) const {
    if (s.type == 8 /* SHT_NOBITS */) return std::string_view();
    if (s.offset > file_.size() || s.size > file_.size() - s.offset) {
      return Error(s.offset, absl::StrFormat("section %s (%d bytes) is beyond "
                                             "the end of the file",
                                             s.name, s.size));
    }
    return std::string_view(
        reinterpret_cast<const char*>(file_.data() + s.offset), s.size);
  }

  absl::StatusOr<std::vector<Symbol>> Symbols(const Section& table) const {
    std::vector<Symbol> out;
    if (table.link >= sections_.size()) {
      return Error(table.offset, "symbol table without a string table");
    }
    HWT_ASSIGN_OR_RETURN(std::string_view syms, Bytes(table));
    HWT_ASSIGN_OR_RETURN(std::string_view strings,
                         Bytes(sections_[table.link]));
    for (size_t at = 0; at + 24 <= syms.size(); at += 24) {
      const char* p = syms.data() + at;
      Symbol s;
      uint32_t name = Load<uint32_t>(p);
      uint8_t info = static_cast<uint8_t>(p[4]);
      s.type = info & 0xf;
      s.shndx = Load<uint16_t>(p + 6);
      s.value = Load<uint64_t>(p + 8);
      s.size = Load<uint64_t>(p + 16);
      if (name >= strings.size() && name != 0) {
        return Error(table.offset + at, "symbol name beyond its string table");
      }
      if (name != 0) {
        const char* begin = strings.data() + name;
        s.name.assign(begin, strnlen(begin, strings.size() - name));
      }
      out.push_back(std::move(s));
    }
    return out;
  }

  std::string BuildId() const {
    for (const Section& s : sections_) {
      if (s.type != kShtNote) continue;
      auto bytes = Bytes(s);
      if (!bytes.ok()) continue;
      std::string_view n = *bytes;
      size_t at = 0;
      while (at + 12 <= n.size()) {
        uint32_t namesz = Load<uint32_t>(n.data() + at);
        uint32_t descsz = Load<uint32_t>(n.data() + at + 4);
        uint32_t type = Load<uint32_t>(n.data() + at + 8);
        size_t name_at = at + 12;
        size_t desc_at = name_at + (uint64_t{namesz} + 3) / 4 * 4;
        if (desc_at + descsz > n.size()) break;
        if (type == 3 && namesz == 4 && n.substr(name_at, 4) == "GNU\0"sv) {
          std::string hex;
          for (uint32_t i = 0; i < descsz; ++i) {
            absl::StrAppendFormat(&hex, "%02x",
                                  static_cast<uint8_t>(n[desc_at + i]));
          }
          return hex;
        }
        at = desc_at + (uint64_t{descsz} + 3) / 4 * 4;
      }
    }
    return "";
  }

  absl::Status Error(uint64_t offset, const std::string& what) const {
    return absl::DataLossError(
        absl::StrFormat("%s: offset 0x%x: %s", path_, offset, what));
  }

  template <typename T>
  static T Load(const char* p) {
    T v;
    memcpy(&v, p, sizeof v);
    return v;  // little-endian host and file
  }

  uint32_t Crc32() const {
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < file_.size(); ++i) {
      crc ^= file_.data()[i];
      for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
    }
    return ~crc;
  }

 private:
  absl::Status ReadSections() {
    const uint8_t* d = file_.data();
    if (file_.size() < 64 || memcmp(d,
                                    "\x7f"
                                    "ELF",
                                    4) != 0) {
      return Error(0, "not an ELF file");
    }
    if (d[4] != 2 || d[5] != 1) {
      return Error(4, "not a 64-bit little-endian ELF file");
    }
    const char* h = reinterpret_cast<const char*>(d);
    uint64_t shoff = Load<uint64_t>(h + 0x28);
    uint16_t shentsize = Load<uint16_t>(h + 0x3a);
    uint64_t shnum = Load<uint16_t>(h + 0x3c);
    uint32_t shstrndx = Load<uint16_t>(h + 0x3e);
    if (shoff == 0) return absl::OkStatus();  // no sections
    if (shentsize != 64) return Error(0x3a, "section header size is not 64");
    if (shoff > file_.size() || file_.size() - shoff < 64) {
      return Error(shoff, "section headers beyond the end of the file");
    }
    if (shnum == 0) shnum = Load<uint64_t>(h + shoff + 32);  // extended
    if (shstrndx == 0xffff) shstrndx = Load<uint32_t>(h + shoff + 40);
    if (shnum > (file_.size() - shoff) / 64) {
      return Error(shoff, "section headers beyond the end of the file");
    }
    for (uint64_t i = 0; i < shnum; ++i) {
      const char* p = h + shoff + 64 * i;
      Section s;
      s.name_offset = Load<uint32_t>(p);
      s.type = Load<uint32_t>(p + 4);
      s.addr = Load<uint64_t>(p + 16);
      s.offset = Load<uint64_t>(p + 24);
      s.size = Load<uint64_t>(p + 32);
      s.link = Load<uint32_t>(p + 40);
      s.entsize = Load<uint64_t>(p + 56);
      sections_.push_back(std::move(s));
    }
    if (shstrndx >= sections_.size()) return absl::OkStatus();
    HWT_ASSIGN_OR_RETURN(std::string_view names, Bytes(sections_[shstrndx]));
    for (Section& s : sections_) {
      const size_t at = s.name_offset;
      if (at >= names.size()) continue;
      s.name.assign(names.data() + at,
                    strnlen(names.data() + at, names.size() - at));
    }
    return absl::OkStatus();
  }

  MappedFile file_;
  std::string path_;
  std::vector<Section> sections_;
};

bool IsFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The separate debug file of `image`: by build-id under the debug root (its
// build-id must match), else by .gnu_debuglink (its CRC32 must match) in
// ROOT/DIR, DIR/.debug and DIR.
std::optional<ElfReader> FindDebugFile(const ElfReader& image,
                                       const std::string& root) {
  std::string id = image.BuildId();
  if (id.size() > 2) {
    std::string path = absl::StrFormat("%s/.build-id/%s/%s.debug", root,
                                       id.substr(0, 2), id.substr(2));
    if (IsFile(path)) {
      auto debug = ElfReader::Open(path);
      if (debug.ok() && debug->BuildId() == id) return std::move(*debug);
    }
  }
  const Section* link = image.Named(".gnu_debuglink");
  if (link == nullptr) return std::nullopt;
  auto bytes = image.Bytes(*link);
  if (!bytes.ok() || bytes->empty()) return std::nullopt;
  std::string name(bytes->data(), strnlen(bytes->data(), bytes->size()));
  size_t crc_at = (name.size() + 1 + 3) / 4 * 4;
  if (crc_at + 4 > bytes->size()) return std::nullopt;
  uint32_t crc = ElfReader::Load<uint32_t>(bytes->data() + crc_at);
  char real[4096];
  std::string dir = realpath(image.path().c_str(), real) != nullptr
                        ? std::string(real)
                        : image.path();
  dir = dir.substr(0, dir.rfind('/'));
  for (const std::string& candidate :
       {root + dir + "/" + name, dir + "/.debug/" + name, dir + "/" + name}) {
    if (!IsFile(candidate)) continue;
    auto debug = ElfReader::Open(candidate);
    if (debug.ok() && debug->path() != image.path() && debug->Crc32() == crc) {
      return std::move(*debug);
    }
  }
  return std::nullopt;
}

bool IsFunction(const Symbol& s) {
  return (s.type == kSttFunc || s.type == kSttGnuIfunc) && s.shndx != kShnUndef;
}

size_t CountFunctions(const std::vector<Symbol>& symbols) {
  return std::count_if(symbols.begin(), symbols.end(), IsFunction);
}

// A function with the section it lies in (start address and end).
struct Placed {
  ElfFunction function;
  uint64_t section_start = 0;
  uint64_t section_end = 0;
  bool in_section = false;
};

void AddSymbols(const ElfReader& file, const std::vector<Symbol>& symbols,
                std::vector<Placed>* out) {
  for (const Symbol& s : symbols) {
    if (!IsFunction(s)) continue;
    Placed p;
    p.function.start = s.value;
    p.function.size = s.size;
    p.function.raw_name = s.name;
    if (s.shndx < kShnLoreserve && s.shndx < file.sections().size()) {
      const Section& sec = file.sections()[s.shndx];
      p.in_section = true;
      p.section_start = sec.addr;
      p.section_end = sec.addr + sec.size;
    }
    out->push_back(std::move(p));
  }
}

// GOT slot -> the name objdump gives the PLT entry that jumps through it.
absl::StatusOr<std::map<uint64_t, std::string>> PltSlotNames(
    const ElfReader& image) {
  std::map<uint64_t, std::string> names;
  for (const Section& rela : image.sections()) {
    if (rela.type != kShtRela || rela.link >= image.sections().size()) continue;
    const Section& symtab = image.sections()[rela.link];
    if (symtab.type != kShtDynsym) continue;
    HWT_ASSIGN_OR_RETURN(std::vector<Symbol> symbols, image.Symbols(symtab));
    HWT_ASSIGN_OR_RETURN(std::string_view bytes, image.Bytes(rela));
    for (size_t at = 0; at + 24 <= bytes.size(); at += 24) {
      const char* p = bytes.data() + at;
      uint64_t offset = ElfReader::Load<uint64_t>(p);
      uint64_t info = ElfReader::Load<uint64_t>(p + 8);
      int64_t addend = ElfReader::Load<int64_t>(p + 16);
      uint32_t type = static_cast<uint32_t>(info);
      uint32_t sym = static_cast<uint32_t>(info >> 32);
      if (type != kRX86_64JumpSlot && type != kRX86_64GlobDat &&
          type != kRX86_64Irelative) {
        continue;
      }
      std::string name;
      if (sym == 0 || sym >= symbols.size()) {
        name = absl::StrFormat("*ABS*+0x%x", addend);
      } else {
        name = symbols[sym].name;
        if (addend != 0) absl::StrAppendFormat(&name, "+0x%x", addend);
      }
      names.emplace(offset, name + "@plt");
    }
  }
  return names;
}

// PLT entries as objdump labels them: each entry of .plt, .plt.sec and
// .plt.got whose `jmp *disp32(%rip)` (ff 25, possibly after endbr64 and a
// bnd or notrack prefix) goes through a GOT slot with a JUMP_SLOT, GLOB_DAT
// or IRELATIVE relocation. The lazy PLT's header jumps through a slot
// without one and gets no name.
absl::Status AddPltEntries(const ElfReader& image, std::vector<Placed>* out) {
  // Only dynamic relocations name PLT entries: a static executable's
  // IRELATIVE stubs (no .dynamic) stay unnamed, as objdump leaves them.
  bool dynamic = false;
  for (const Section& s : image.sections()) {
    if (s.type == kShtDynamic) dynamic = true;
  }
  if (!dynamic) return absl::OkStatus();
  HWT_ASSIGN_OR_RETURN(auto slots, PltSlotNames(image));
  for (const Section& s : image.sections()) {
    if (s.name != ".plt" && s.name != ".plt.sec" && s.name != ".plt.got") {
      continue;
    }
    uint64_t entry = s.entsize;
    if (entry == 0) entry = s.name == ".plt.got" ? 8 : 16;
    HWT_ASSIGN_OR_RETURN(std::string_view code, image.Bytes(s));
    for (uint64_t at = 0; at + entry <= code.size(); at += entry) {
      for (uint64_t j = at; j + 6 <= at + entry; ++j) {
        if (static_cast<uint8_t>(code[j]) != 0xff || code[j + 1] != 0x25) {
          continue;
        }
        int32_t disp = ElfReader::Load<int32_t>(code.data() + j + 2);
        uint64_t slot = s.addr + j + 6 + static_cast<int64_t>(disp);
        auto it = slots.find(slot);
        if (it != slots.end()) {
          Placed p;
          p.function.start = s.addr + at;
          p.function.raw_name = it->second;
          p.in_section = true;
          p.section_start = s.addr;
          p.section_end = s.addr + s.size;
          out->push_back(std::move(p));
        }
        break;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string DemangleSymbol(const std::string& raw) {
  size_t at = raw.find('@');
  std::string base = raw.substr(0, at);
  // Only Itanium symbol names ("_Z..."): __cxa_demangle also accepts bare
  // type encodings, and would turn a function named "b" into "bool".
  if (base.size() < 2 || base[0] != '_' || base[1] != 'Z') return raw;
  int status = 0;
  char* out = abi::__cxa_demangle(base.c_str(), nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) {
    free(out);
    return raw;
  }
  std::string name(out);
  free(out);
  if (at != std::string::npos) name += raw.substr(at);
  return name;
}

std::string UncoveredCodeName(const std::string& image_path, uint64_t vaddr) {
  size_t slash = image_path.rfind('/');
  std::string base =
      slash == std::string::npos ? image_path : image_path.substr(slash + 1);
  return absl::StrFormat("[%s+0x%x]", base, vaddr);
}

absl::StatusOr<ElfFunctionTable> ElfFunctionTable::Read(
    const std::string& path, const ElfFunctionOptions& options) {
  HWT_ASSIGN_OR_RETURN(ElfReader image, ElfReader::Open(path));
  std::vector<Symbol> symtab;
  std::vector<Symbol> dynsym;
  for (const Section& s : image.sections()) {
    if (s.type == kShtSymtab) {
      HWT_ASSIGN_OR_RETURN(symtab, image.Symbols(s));
    } else if (s.type == kShtDynsym) {
      HWT_ASSIGN_OR_RETURN(dynsym, image.Symbols(s));
    }
  }
  std::vector<Placed> placed;
  ElfFunctionTable table;
  std::optional<ElfReader> debug = FindDebugFile(image, options.debug_root);
  std::vector<Symbol> debug_symtab;
  if (debug) {
    for (const Section& s : debug->sections()) {
      if (s.type != kShtSymtab) continue;
      auto symbols = debug->Symbols(s);
      if (symbols.ok()) debug_symtab = std::move(*symbols);
    }
  }
  const size_t own = CountFunctions(symtab);
  if (debug && CountFunctions(debug_symtab) > own) {
    AddSymbols(*debug, debug_symtab, &placed);
    table.source_ = debug->path();
  } else if (own > 0) {
    AddSymbols(image, symtab, &placed);
    table.source_ = ".symtab";
  } else {
    AddSymbols(image, dynsym, &placed);
    table.source_ = ".dynsym";
  }
  HWT_RETURN_IF_ERROR(AddPltEntries(image, &placed));

  // A size-0 symbol covers up to the next higher function start in its
  // section, else to the section's end (one byte outside every section).
  std::map<uint64_t, std::set<uint64_t>> starts;  // by section start
  for (const Placed& p : placed) {
    if (p.in_section) starts[p.section_start].insert(p.function.start);
  }
  for (Placed& p : placed) {
    ElfFunction& f = p.function;
    f.name = options.demangle ? DemangleSymbol(f.raw_name) : f.raw_name;
    if (f.size != 0) {
      f.end = f.start + f.size;
    } else if (!p.in_section) {
      f.end = f.start + 1;
    } else {
      const std::set<uint64_t>& s = starts[p.section_start];
      auto next = s.upper_bound(f.start);
      f.end = next != s.end() ? std::min(*next, p.section_end) : p.section_end;
      if (f.end <= f.start) f.end = f.start + 1;
    }
    table.functions_.push_back(f);
  }
  std::sort(table.functions_.begin(), table.functions_.end(),
            [](const ElfFunction& a, const ElfFunction& b) {
              return std::tie(a.start, a.raw_name) <
                     std::tie(b.start, b.raw_name);
            });
  table.BuildRanges();
  return table;
}

// Disjoint ranges, each with the function the rules pick: a sweep over all
// starts and ends, keeping the covering functions ordered by preference.
void ElfFunctionTable::BuildRanges() {
  auto better = [this](uint32_t a, uint32_t b) {
    const ElfFunction& x = functions_[a];
    const ElfFunction& y = functions_[b];
    if (x.start != y.start) return x.start > y.start;
    if (x.end - x.start != y.end - y.start) {
      return x.end - x.start > y.end - y.start;
    }
    if (x.raw_name != y.raw_name) return x.raw_name < y.raw_name;
    return a < b;
  };
  std::set<uint32_t, decltype(better)> active(better);
  std::vector<std::pair<uint64_t, int64_t>> events;  // (address, +-(i+1))
  for (uint32_t i = 0; i < functions_.size(); ++i) {
    events.emplace_back(functions_[i].start, int64_t{i} + 1);
    events.emplace_back(functions_[i].end, -(int64_t{i} + 1));
  }
  std::sort(events.begin(), events.end());
  for (size_t e = 0; e < events.size();) {
    const uint64_t at = events[e].first;
    for (; e < events.size() && events[e].first == at; ++e) {
      const uint32_t i = static_cast<uint32_t>(std::abs(events[e].second) - 1);
      if (events[e].second > 0) {
        active.insert(i);
      } else {
        active.erase(i);
      }
    }
    if (active.empty() || e == events.size()) continue;
    const uint64_t next = events[e].first;
    const uint32_t winner = *active.begin();
    if (!ranges_.empty() && ranges_.back().end == at &&
        ranges_.back().function == winner) {
      ranges_.back().end = next;
    } else {
      ranges_.push_back(Range{at, next, winner});
    }
  }
}

const ElfFunction* ElfFunctionTable::Find(uint64_t vaddr) const {
  auto it =
      std::upper_bound(ranges_.begin(), ranges_.end(), vaddr,
                       [](uint64_t v, const Range& r) { return v < r.start; });
  if (it == ranges_.begin()) return nullptr;
  --it;
  return vaddr < it->end ? &functions_[it->function] : nullptr;
}

}  // namespace hwt::recorder
