// Expanding batch inputs; see inputs.h.
#include "batch/inputs.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "analysis/saved/profile_file.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "capture/bundle_archive.h"

namespace hwt::batch {
namespace {

constexpr int kMaxListDepth = 8;

bool IsFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string RealPath(const std::string& path) {
  char* real = realpath(path.c_str(), nullptr);
  if (real == nullptr) return path;
  std::string out(real);
  free(real);
  return out;
}

std::string Join(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

// Bytes of a file, or of every regular file below a directory.
uint64_t DiskBytes(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return 0;
  if (S_ISREG(st.st_mode)) return static_cast<uint64_t>(st.st_size);
  if (!S_ISDIR(st.st_mode)) return 0;
  uint64_t total = 0;
  if (DIR* dir = opendir(path.c_str())) {
    while (dirent* e = readdir(dir)) {
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      total += DiskBytes(Join(path, name));
    }
    closedir(dir);
  }
  return total;
}

enum class Kind { kNone, kBundle, kSnapshot, kPacked };

Kind KindOf(const std::string& path, bool is_dir) {
  if (is_dir) {
    if (IsFile(path + "/manifest.json")) return Kind::kBundle;
    if (IsFile(path + "/snapshot.ini")) return Kind::kSnapshot;
    return Kind::kNone;
  }
  auto file = MappedFile::Open(path);
  if (!file.ok()) return Kind::kNone;
  const auto head =
      file->bytes().subspan(0, std::min<size_t>(file->size(), 512));
  if (capture::SniffArchive(head) != capture::ArchiveKind::kNone &&
      capture::IsTarArchive(path)) {
    return Kind::kPacked;
  }
  return Kind::kNone;
}

std::string StripSuffixes(std::string name) {
  for (int round = 0; round < 2; ++round) {
    for (absl::string_view suffix :
         {".tar.zst", ".tzst", ".tar.gz", ".tgz", ".tar", ".hwt"}) {
      if (name.size() > suffix.size() && absl::EndsWith(name, suffix)) {
        name.resize(name.size() - suffix.size());
        break;
      }
    }
  }
  return name;
}

// Splits a list line into words: whitespace separates, "..." and '...'
// quote.
absl::StatusOr<std::vector<std::string>> Words(absl::string_view line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : line) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote != 0) return absl::InvalidArgumentError("unterminated quote");
  if (in_word) words.push_back(std::move(word));
  return words;
}

class Expander {
 public:
  Expander(const capture::InputOptions& defaults, const std::string& exclude)
      : defaults_(defaults),
        exclude_(exclude.empty() ? "" : RealPath(exclude)) {}

  absl::Status Arg(const std::string& arg, const capture::InputOptions& options,
                   int depth) {
    if (!arg.empty() && arg[0] == '@') return List(arg.substr(1), depth);
    struct stat st;
    if (stat(arg.c_str(), &st) != 0) {
      return absl::NotFoundError(
          absl::StrCat(arg, ": no such file or directory"));
    }
    const bool is_dir = S_ISDIR(st.st_mode);
    // A FIFO or a device would block the batch (or never end): refused.
    if (!is_dir && !S_ISREG(st.st_mode)) {
      return absl::InvalidArgumentError(
          absl::StrCat(arg, ": not a regular file or a directory"));
    }
    const Kind kind = KindOf(arg, is_dir);
    if (is_dir && kind == Kind::kNone) {
      const size_t before = result_.inputs.size();
      HWT_RETURN_IF_ERROR(Search(arg, "", options));
      if (result_.inputs.size() == before) {
        return absl::NotFoundError(absl::StrCat(
            arg,
            ": no capture in this directory (bundles hold manifest.json, "
            "OpenCSD snapshots snapshot.ini; packed bundles are tar "
            "files)"));
      }
      return absl::OkStatus();
    }
    if (!is_dir && analysis::IsProfileFile(arg)) {
      return absl::InvalidArgumentError(
          absl::StrCat(arg,
                       ": a saved profile, not a capture (merge profiles with "
                       "hwt-batch merge)"));
    }
    // A capture named directly: a bundle, snapshot, packed bundle or raw
    // file (OpenCapture tells them apart when it runs).
    Add(arg, BaseName(arg), options);
    return absl::OkStatus();
  }

  ExpandResult Finish() { return std::move(result_); }

 private:
  absl::Status List(const std::string& file, int depth) {
    if (depth >= kMaxListDepth) {
      return absl::InvalidArgumentError(absl::StrCat(
          "@", file, ": lists nested more than ", kMaxListDepth, " deep"));
    }
    HWT_ASSIGN_OR_RETURN(std::string text, ReadFileToString(file));
    int number = 0;
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      ++number;
      auto where = [&](absl::string_view what) {
        return absl::InvalidArgumentError(
            absl::StrCat(file, ":", number, ": ", what));
      };
      auto words = Words(line);
      if (!words.ok()) return where(words.status().message());
      if (words->empty() || (*words)[0][0] == '#') continue;
      capture::InputOptions options = defaults_;
      bool images_given = false;
      for (size_t i = 1; i < words->size(); ++i) {
        std::string flag = (*words)[i], value;
        if (const size_t eq = flag.find('='); eq != std::string::npos) {
          value = flag.substr(eq + 1);
          flag.resize(eq);
        } else if (i + 1 < words->size()) {
          value = (*words)[++i];
        } else {
          return where(absl::StrCat(flag, " needs a value"));
        }
        if (flag == "--cpu") {
          auto cpu = capture::ParseCpuSpec(value);
          if (!cpu.ok()) return where(cpu.status().message());
          options.cpu = *cpu;
        } else if (flag == "--image") {
          auto image = capture::ParseImageSpec(value);
          if (!image.ok()) return where(image.status().message());
          if (!images_given) options.images.clear();
          images_given = true;
          options.images.push_back(*image);
        } else if (flag == "--backend") {
          auto backend = capture::ParseBackend(value);
          if (!backend)
            return where("--backend: expected pt, coresight or spe");
          options.backend = *backend;
        } else if (flag == "--sysroot") {
          options.sysroot = value;
        } else {
          return where(absl::StrCat(
              "unknown option '", flag,
              "' (a line is PATH [--cpu F/M[/S]] [--image FILE[@BIAS]]... "
              "[--backend B] [--sysroot DIR])"));
        }
      }
      absl::Status status = Arg((*words)[0], options, depth + 1);
      if (!status.ok()) return where(status.message());
    }
    return absl::OkStatus();
  }

  // Captures below `root`/`relative`, in name order.
  absl::Status Search(const std::string& root, const std::string& relative,
                      const capture::InputOptions& options) {
    const std::string dir_path = Join(root, relative);
    if (!exclude_.empty() && RealPath(dir_path) == exclude_) return {};
    HWT_ASSIGN_OR_RETURN(const std::vector<std::string> names,
                         SortedDirectoryNames(dir_path));
    for (const std::string& name : names) {
      const std::string child = relative.empty() ? name : relative + "/" + name;
      const std::string path = Join(root, child);
      struct stat st;
      if (lstat(path.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) continue;
      const bool is_dir = S_ISDIR(st.st_mode);
      if (!is_dir && !S_ISREG(st.st_mode)) continue;
      const Kind kind = KindOf(path, is_dir);
      if (kind != Kind::kNone) {
        Add(path, child, options);
      } else if (is_dir) {
        HWT_RETURN_IF_ERROR(Search(root, child, options));
      }
    }
    return absl::OkStatus();
  }

  void Add(const std::string& path, const std::string& relative,
           const capture::InputOptions& options) {
    const std::string real = RealPath(path);
    auto [it, fresh] = seen_.try_emplace(real, path);
    if (!fresh) {
      result_.notes.push_back(absl::StrCat(path, ": the same capture as ",
                                           it->second, "; analysed once"));
      return;
    }
    std::string name = StripSuffixes(relative);
    if (name.empty() || names_.contains(name)) name = relative;
    for (int n = 2; names_.contains(name); ++n) {
      name = absl::StrCat(relative, "~", n);
    }
    names_.insert(name);
    result_.inputs.push_back({path, name, options, DiskBytes(path)});
  }

  capture::InputOptions defaults_;
  std::string exclude_;
  ExpandResult result_;
  absl::flat_hash_map<std::string, std::string> seen_;  // real path -> path
  std::set<std::string> names_;
};

}  // namespace

absl::StatusOr<ExpandResult> ExpandInputs(const std::vector<std::string>& args,
                                          const capture::InputOptions& defaults,
                                          const std::string& exclude) {
  Expander expander(defaults, exclude);
  for (const std::string& arg : args) {
    HWT_RETURN_IF_ERROR(expander.Arg(arg, defaults, 0));
  }
  return expander.Finish();
}

absl::StatusOr<std::pair<int, int>> ParseShard(const std::string& text) {
  std::vector<std::string> parts = absl::StrSplit(text, '/');
  int index = 0, count = 0;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &index) ||
      !absl::SimpleAtoi(parts[1], &count) || count < 1 || index < 0 ||
      index >= count) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--shard: expected I/N with 0 <= I < N, got '", text, "'"));
  }
  return std::make_pair(index, count);
}

std::vector<BatchInput> ShardOf(const std::vector<BatchInput>& inputs,
                                int index, int count) {
  std::vector<size_t> order(inputs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (inputs[a].bytes != inputs[b].bytes) {
      return inputs[a].bytes > inputs[b].bytes;
    }
    return inputs[a].name < inputs[b].name;
  });
  std::vector<uint64_t> load(count, 0);
  std::vector<bool> mine(inputs.size(), false);
  for (size_t i : order) {
    // The least-loaded shard, the lowest index on ties.
    const int shard = static_cast<int>(
        std::min_element(load.begin(), load.end()) - load.begin());
    load[shard] += std::max<uint64_t>(inputs[i].bytes, 1);
    mine[i] = shard == index;
  }
  std::vector<BatchInput> out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (mine[i]) out.push_back(inputs[i]);
  }
  return out;
}

}  // namespace hwt::batch
