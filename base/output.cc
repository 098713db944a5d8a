// Implementation of Output; see output.h.
#include "base/output.h"

#include <cerrno>
#include <cstring>

#include "absl/strings/str_format.h"

namespace hwt {

absl::StatusOr<Output> Output::Open(const std::string& path) {
  Output out;
  if (path.empty() || path == "-") {
    out.path_ = "<stdout>";
    return out;
  }
  auto writer = AtomicFileWriter::Create(path);
  if (!writer.ok()) return writer.status();
  out.path_ = path;
  out.file_.emplace(std::move(*writer));
  return out;
}

void Output::Flush() {
  if (buffer_.empty()) return;
  if (error_.ok()) {
    if (file_.has_value()) {
      error_ = file_->Write(buffer_);
    } else if (fwrite(buffer_.data(), 1, buffer_.size(), stdout) !=
               buffer_.size()) {
      error_ = absl::DataLossError(
          absl::StrFormat("writing to stdout failed: %s", strerror(errno)));
    }
  }
  buffer_.clear();
}

absl::Status Output::Commit() {
  Flush();
  if (!error_.ok()) return error_;
  if (file_.has_value()) return file_->Commit();
  if (fflush(stdout) != 0) {
    return absl::DataLossError(
        absl::StrFormat("writing to stdout failed: %s", strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace hwt
