// Lookups and identities of the saved profile model; see saved_profile.h.
#include "analysis/saved/saved_profile.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hwt::analysis {

std::string SavedImage::Identity() const {
  if (!build_id.empty()) return "build-id:" + build_id;
  return absl::StrFormat("path:%s#%016x", path, content_hash);
}

const SavedFunction* SavedImage::FunctionAt(uint64_t start) const {
  auto it = std::lower_bound(
      functions.begin(), functions.end(), start,
      [](const SavedFunction& f, uint64_t v) { return f.start < v; });
  return it != functions.end() && it->start == start ? &*it : nullptr;
}

const SavedAddress* SavedImage::AddressAt(uint64_t vaddr) const {
  auto it = std::lower_bound(
      addresses.begin(), addresses.end(), vaddr,
      [](const SavedAddress& a, uint64_t v) { return a.vaddr < v; });
  return it != addresses.end() && it->vaddr == vaddr ? &*it : nullptr;
}

std::string_view SavedImage::CodeAt(uint64_t vaddr, size_t size) const {
  auto it = std::upper_bound(
      code.begin(), code.end(), vaddr,
      [](uint64_t v, const CodeRange& r) { return v < r.vaddr; });
  if (it == code.begin()) return {};
  --it;
  const uint64_t offset = vaddr - it->vaddr;
  if (offset >= it->bytes.size()) return {};
  return std::string_view(it->bytes).substr(offset, size);
}

StreamStats CaptureSource::TotalStats() const {
  StreamStats total;
  for (const SavedStream& s : streams) total.Merge(s.stats);
  return total;
}

std::string CaptureSource::Field(const std::string& key) const {
  if (key == "name") return name;
  if (key == "path") return path;
  if (key == "backend") return backend;
  if (key == "mode") return mode;
  if (key == "command") return command;
  if (key == "hostname") return hostname;
  if (key == "os") return os;
  if (key == "created") return created;
  if (key == "recorder") return recorder;
  if (key == "cpu") {
    if (cpu_family != 0) {
      return absl::StrCat(cpu_family, "/", cpu_model, "/", cpu_stepping);
    }
    return cpu_midr != 0 ? absl::StrFormat("midr:0x%x", cpu_midr) : cpu_arch;
  }
  auto it = labels.find(key);
  return it != labels.end() ? it->second : "";
}

bool SameContent(const SavedProfile& a, const SavedProfile& b) {
  return a.sources == b.sources && a.images == b.images &&
         a.profile == b.profile;
}

}  // namespace hwt::analysis
