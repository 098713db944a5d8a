// Reading hwttrace's word stream; see valgrind_trace.h.
#include "recorder/valgrind_trace.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"

namespace hwt::recorder {
namespace {

constexpr uint64_t kControl = 0xff;
constexpr uint32_t kMaxPayload = 1 << 20;

bool HasTool(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return false;
  bool found = false;
  while (struct dirent* e = readdir(d)) {
    if (strncmp(e->d_name, "hwttrace-", 9) == 0) found = true;
  }
  closedir(d);
  return found;
}

}  // namespace

absl::StatusOr<size_t> ToolTraceReader::Process(
    absl::Span<const uint64_t> words, ToolTraceHandler& handler) {
  size_t i = 0;
  while (i < words.size()) {
    size_t run = i;
    while (run < words.size() && (words[run] >> 56) != kControl) {
      uint64_t length = words[run] >> 56;
      if (length == 0 || length > 15) {
        return absl::DataLossError(absl::StrFormat(
            "valgrind trace offset %d: instruction word 0x%016x has length %d",
            offset_ + 8 * run, words[run], length));
      }
      ++run;
    }
    if (run > i) {
      HWT_RETURN_IF_ERROR(
          handler.OnInstructionWords(words.subspan(i, run - i)));
      offset_ += 8 * (run - i);
      i = run;
    }
    if (run == words.size()) break;
    uint64_t control = words[run];
    uint32_t payload = static_cast<uint32_t>(control & 0xffffffffu);
    if (payload > kMaxPayload || ((control >> 48) & 0xff) != 0) {
      return absl::DataLossError(absl::StrFormat(
          "valgrind trace offset %d: malformed record word 0x%016x", offset_,
          control));
    }
    size_t record_words = 1 + (payload + 7) / 8;
    if (run + record_words > words.size()) break;  // the rest comes later
    std::string_view bytes(reinterpret_cast<const char*>(&words[run + 1]),
                           payload);
    HWT_RETURN_IF_ERROR(handler.OnRecord(
        static_cast<ToolRecordType>((control >> 32) & 0xffff), bytes));
    offset_ += 8 * record_words;
    i = run + record_words;
  }
  return i;
}

absl::StatusOr<std::string> FindValgrindToolDir() {
  if (const char* env = getenv("HWT_VALGRIND_TOOL_DIR")) {
    if (HasTool(env)) return std::string(env);
    return absl::NotFoundError(absl::StrFormat(
        "HWT_VALGRIND_TOOL_DIR=%s holds no hwttrace-* valgrind tool", env));
  }
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  std::vector<std::string> tried;
  if (n > 0) {
    exe[n] = 0;
    std::string dir(exe);
    for (int up = 0; up < 3; ++up) {
      size_t slash = dir.rfind('/');
      if (slash == std::string::npos) break;
      dir.resize(slash);
      std::string candidate = dir + "/libexec/hwt";
      if (HasTool(candidate)) return candidate;
      tried.push_back(candidate);
    }
  }
  return absl::NotFoundError(absl::StrFormat(
      "the valgrind recorder's tool (hwttrace) is not installed: looked in "
      "%s; it is built with the project when valgrind's development files "
      "are present (set HWT_VALGRIND_TOOL_DIR to its folder)",
      absl::StrJoin(tried, ", ")));
}

}  // namespace hwt::recorder
