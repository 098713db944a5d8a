// A progress line on stderr for long runs ("decoding 1.2 GiB / 3.4 GiB 35%"),
// shown only when stderr is a terminal and at most ten times a second, and
// erased when done, so that scripted runs and pipes never see it.
#ifndef HWT_BASE_PROGRESS_H_
#define HWT_BASE_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace hwt {

class Progress {
 public:
  // `enabled` = nullopt: on when stderr is a terminal.
  Progress(std::string label, uint64_t total_bytes);
  Progress(std::string label, uint64_t total_bytes, bool enabled);
  ~Progress();

  // Reports that `done_bytes` of the total are processed. Cheap: call freely.
  void Update(uint64_t done_bytes) {
    if (!enabled_) return;
    if (++calls_ % 1024 != 0 && done_bytes < total_) return;
    MaybeDraw(done_bytes);
  }
  // The same for callers that report rarely (a finished piece of work): no
  // call is skipped, only the drawing is limited to ten times a second.
  void UpdateRarely(uint64_t done_bytes) {
    if (enabled_) MaybeDraw(done_bytes);
  }
  // Erases the line.
  void Finish();

 private:
  void MaybeDraw(uint64_t done_bytes);

  std::string label_;
  uint64_t total_;
  bool enabled_;
  bool drawn_ = false;
  uint64_t calls_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

// "1.5 MiB", "3.2 GiB".
std::string FormatBytes(uint64_t bytes);

}  // namespace hwt

#endif  // HWT_BASE_PROGRESS_H_
