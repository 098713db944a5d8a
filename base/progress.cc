// Implementation of the terminal progress line; see progress.h.
#include "base/progress.h"

#include <unistd.h>

#include <cstdio>

#include "absl/strings/str_format.h"

namespace hwt {

std::string FormatBytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return absl::StrFormat("%u B", bytes);
  return absl::StrFormat("%.1f %s", value, units[unit]);
}

Progress::Progress(std::string label, uint64_t total_bytes)
    : Progress(std::move(label), total_bytes, isatty(STDERR_FILENO) != 0) {}

Progress::Progress(std::string label, uint64_t total_bytes, bool enabled)
    : label_(std::move(label)),
      total_(total_bytes),
      enabled_(enabled && total_bytes > 0),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

Progress::~Progress() { Finish(); }

void Progress::MaybeDraw(uint64_t done_bytes) {
  auto now = std::chrono::steady_clock::now();
  // Nothing for the first half second: short runs stay silent.
  if (now - start_ < std::chrono::milliseconds(500)) return;
  if (now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  if (done_bytes > total_) done_bytes = total_;
  double seconds = std::chrono::duration<double>(now - start_).count();
  double rate = seconds > 0 ? done_bytes / seconds : 0;
  fprintf(stderr, "\r%s %s / %s %3.0f%% (%s/s)\033[K", label_.c_str(),
          FormatBytes(done_bytes).c_str(), FormatBytes(total_).c_str(),
          100.0 * done_bytes / total_,
          FormatBytes(static_cast<uint64_t>(rate)).c_str());
  fflush(stderr);
  drawn_ = true;
}

void Progress::Finish() {
  if (drawn_) {
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
    drawn_ = false;
  }
}

}  // namespace hwt
