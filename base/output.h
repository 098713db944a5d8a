// Where a tool writes its result: stdout, or a file written atomically (the
// file appears complete on Commit() or not at all, also when the tool is
// interrupted). Buffered: listings of millions of lines go through here.
#ifndef HWT_BASE_OUTPUT_H_
#define HWT_BASE_OUTPUT_H_

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "base/file_util.h"

namespace hwt {

class Output {
 public:
  // "-" or "" = stdout.
  static absl::StatusOr<Output> Open(const std::string& path);

  Output(Output&&) = default;
  Output& operator=(Output&&) = default;

  void Write(std::string_view text) {
    buffer_.append(text.data(), text.size());
    if (buffer_.size() >= kFlushSize) Flush();
  }
  // Flushes; for files, renames into place. Errors (disk full, closed pipe)
  // are reported here.
  absl::Status Commit();

  bool is_stdout() const { return !file_.has_value(); }
  const std::string& path() const { return path_; }

 private:
  static constexpr size_t kFlushSize = 1 << 16;
  Output() = default;
  void Flush();

  std::string path_;
  std::optional<AtomicFileWriter> file_;
  std::string buffer_;
  absl::Status error_;
};

}  // namespace hwt

#endif  // HWT_BASE_OUTPUT_H_
