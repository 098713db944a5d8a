// The batch's progress bar on stderr, only when stderr is a terminal:
// "[#######.......] 120/500  ok 117  errors 2  failed 1  35.2 MiB/s  ETA
// 4m10s", redrawn at most ten times a second and erased at the end, so that
// scripts and logs never see it.
#ifndef HWT_BATCH_PROGRESS_BAR_H_
#define HWT_BATCH_PROGRESS_BAR_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace hwt::batch {

class ProgressBar {
 public:
  // `enabled` false: silent. `total_bytes`: trace bytes of all captures.
  ProgressBar(size_t total, uint64_t total_bytes, bool enabled);
  ~ProgressBar() { Finish(); }

  // A capture finished with `status` ("ok", "decode-errors", "failed") after
  // `bytes` trace bytes.
  void Done(const std::string& status, uint64_t bytes);
  // Redraws if due (call now and then).
  void Tick();
  // Erases the bar.
  void Finish();

  // The text of the bar, for tests.
  std::string Line(double elapsed_s) const;

 private:
  size_t total_;
  uint64_t total_bytes_;
  bool enabled_;
  bool drawn_ = false;
  size_t ok_ = 0, errors_ = 0, failed_ = 0;
  uint64_t bytes_ = 0;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace hwt::batch

#endif  // HWT_BATCH_PROGRESS_BAR_H_
