// Report front-end glue; see report_support.h.
#include "report/profile/report_support.h"

#include <regex.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/file_util.h"

namespace hwt::report {
namespace {

// A compiled POSIX regex shared by the copies of a matcher.
class Regex {
 public:
  static absl::StatusOr<std::shared_ptr<Regex>> Compile(
      const std::string& pattern) {
    auto r = std::shared_ptr<Regex>(new Regex());
    const int rc =
        regcomp(&r->regex_, pattern.c_str(), REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char message[256];
      regerror(rc, &r->regex_, message, sizeof(message));
      r->valid_ = false;
      return absl::InvalidArgumentError(
          absl::StrCat("bad regular expression '", pattern, "': ", message));
    }
    return r;
  }
  ~Regex() {
    if (valid_) regfree(&regex_);
  }
  bool Search(const std::string& text) const {
    return regexec(&regex_, text.c_str(), 0, nullptr, 0) == 0;
  }

 private:
  Regex() = default;
  regex_t regex_;
  bool valid_ = true;
};

}  // namespace

absl::StatusOr<FrameMatcher> FunctionNameMatcher(const std::string& regex,
                                                 ProfileNames& names) {
  auto compiled = Regex::Compile(regex);
  if (!compiled.ok()) return compiled.status();
  auto cache =
      std::make_shared<absl::flat_hash_map<analysis::FrameKey, bool>>();
  std::shared_ptr<Regex> re = *std::move(compiled);
  return FrameMatcher([re, cache, &names](const analysis::FrameKey& key) {
    auto [it, inserted] = cache->try_emplace(key, false);
    if (inserted) it->second = re->Search(names.Name(key));
    return it->second;
  });
}

bool ImagePathMatches(const std::string& path, const std::string& image) {
  return path == image || BaseName(path) == image;
}

FrameMatcher ImageMatcher(const std::string& image, ProfileNames& names) {
  auto cache = std::make_shared<absl::flat_hash_map<uint32_t, bool>>();
  return [image, cache, &names](const analysis::FrameKey& key) {
    if (key.image == analysis::kNoImage) return false;
    auto [it, inserted] = cache->try_emplace(key.image, false);
    if (inserted) {
      const std::string path = names.symbols().ImagePath(key.image);
      it->second = ImagePathMatches(path, image);
    }
    return it->second;
  };
}

std::optional<double> ParseMinWidth(const std::string& text, int width) {
  std::string number = text;
  const bool percent = !number.empty() && number.back() == '%';
  if (percent) number.pop_back();
  char* end = nullptr;
  const double v = strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || v < 0) return std::nullopt;
  return percent ? v / 100.0 * (width - 20) : v;
}

std::vector<std::string> SpeedscopeThreadNames(
    const CallTimeline& timeline, const std::vector<StreamInfo>& streams,
    bool cpu_mode) {
  std::vector<std::string> names;
  for (const ThreadTimeline& t : timeline.threads) {
    std::string name = t.stream < streams.size()
                           ? streams[t.stream].name
                           : absl::StrCat("stream ", t.stream);
    if (cpu_mode) absl::StrAppendFormat(&name, " context 0x%x", t.context);
    names.push_back(std::move(name));
  }
  return names;
}

WeightUnit ChooseWeightUnit(bool use_time, bool has_time,
                            const capture::Manifest& manifest) {
  WeightUnit unit;
  if (!use_time || !has_time) return unit;
  unit.weight = Weight::kTime;
  const uint64_t hz = manifest.cpu.nominal_frequency_hz;
  if (manifest.backend == capture::Backend::kPt && hz != 0) {
    unit.name = "ns";
    unit.scale = 1e9 / static_cast<double>(hz);
    unit.speedscope_unit = "nanoseconds";
  } else {
    unit.name = "ticks";
  }
  return unit;
}

std::string DefaultOutputName(const std::string& input,
                              const std::string& suffix) {
  std::string name = input;
  while (name.size() > 1 && name.back() == '/') name.pop_back();
  if (name == "." || name == ".." || absl::EndsWith(name, "/.") ||
      absl::EndsWith(name, "/..")) {
    // A snapshot directory given as ".": its real name.
    std::error_code error;
    const std::filesystem::path path =
        std::filesystem::weakly_canonical(name, error);
    if (!error) name = path.string();
  }
  name = BaseName(name);
  for (const char* ext :
       {".tar.zst", ".tzst", ".tar", ".hwt", ".raw", ".bin"}) {
    if (absl::EndsWith(name, ext) && name.size() > strlen(ext)) {
      name.resize(name.size() - strlen(ext));
      break;
    }
  }
  if (name.empty() || name == "." || name == "..") name = "trace";
  return absl::StrCat(name, ".", suffix);
}

}  // namespace hwt::report
