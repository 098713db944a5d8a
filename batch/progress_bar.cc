// The batch progress bar; see progress_bar.h.
#include "batch/progress_bar.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/progress.h"

namespace hwt::batch {

ProgressBar::ProgressBar(size_t total, uint64_t total_bytes, bool enabled)
    : total_(total),
      total_bytes_(total_bytes),
      enabled_(enabled && total > 0),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

void ProgressBar::Done(const std::string& status, uint64_t bytes) {
  if (status == "ok") {
    ++ok_;
  } else if (status == "decode-errors") {
    ++errors_;
  } else {
    ++failed_;
  }
  bytes_ += bytes;
  last_ = {};  // draw now
  Tick();
}

std::string ProgressBar::Line(double elapsed) const {
  const size_t done = ok_ + errors_ + failed_;
  constexpr int kWidth = 24;
  const int filled = total_ == 0 ? 0 : static_cast<int>(kWidth * done / total_);
  std::string bar = absl::StrCat("[", std::string(filled, '#'),
                                 std::string(kWidth - filled, '.'), "] ");
  absl::StrAppend(&bar, done, "/", total_, "  ok ", ok_);
  if (errors_ != 0) absl::StrAppend(&bar, "  errors ", errors_);
  if (failed_ != 0) absl::StrAppend(&bar, "  failed ", failed_);
  if (elapsed > 0.5 && bytes_ != 0) {
    const double rate = bytes_ / elapsed;
    absl::StrAppend(&bar, "  ", FormatBytes(static_cast<uint64_t>(rate)), "/s");
    if (total_bytes_ > bytes_ && rate > 0) {
      const int64_t eta = static_cast<int64_t>((total_bytes_ - bytes_) / rate);
      absl::StrAppend(&bar, "  ETA ",
                      eta >= 60
                          ? absl::StrFormat("%dm%02ds", eta / 60, eta % 60)
                          : absl::StrFormat("%ds", eta));
    }
  }
  return bar;
}

void ProgressBar::Tick() {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  fprintf(stderr, "\r\033[K%s", Line(elapsed).c_str());
  fflush(stderr);
  drawn_ = true;
}

void ProgressBar::Finish() {
  if (drawn_) {
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
    drawn_ = false;
  }
}

}  // namespace hwt::batch
