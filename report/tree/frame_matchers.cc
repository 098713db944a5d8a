// The frame matchers of the tree filters; see frame_matchers.h.
#include "report/tree/frame_matchers.h"

#include <regex.h>

#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
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

}  // namespace hwt::report
