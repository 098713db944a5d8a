// A batch's output directory and its layout:
//   OUTDIR/profiles/NAME.hwtprof   one saved profile per capture
//   OUTDIR/rows/NAME.json          its summary row (failed captures too)
//   OUTDIR/merged.hwtprof          every capture's profile merged
//   OUTDIR/groups/VALUE.hwtprof    with --group-by: one merged per group
//   OUTDIR/summary.json, .csv      the summary
//   OUTDIR/slurm/                  hwt-batch slurm: the job script, the
//                                  input list and one log per shard
//   OUTDIR/.hwt-batch.lock         held while a batch works in OUTDIR
// A batch holds the lock exclusively; the shards of one batch share it and
// each holds its own shard lock, so two batches (or one shard twice) never
// write the same directory, while the shards of one job run side by side.
#ifndef HWT_BATCH_OUT_DIR_H_
#define HWT_BATCH_OUT_DIR_H_

#include <optional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"

namespace hwt::batch {

class OutDir {
 public:
  // Creates the directory (and its parents) and takes the lock: exclusive,
  // or with `shard` = (I, N) shared plus shard I's. Errors: cannot create
  // (Internal, exit 3), locked by another batch (FailedPrecondition, naming
  // its pid).
  static absl::StatusOr<OutDir> Open(
      const std::string& path, std::optional<std::pair<int, int>> shard = {});
  OutDir(OutDir&& other) noexcept;
  OutDir& operator=(OutDir&&) = delete;
  ~OutDir();

  const std::string& path() const { return path_; }
  std::string ProfilePath(const std::string& name) const;
  std::string RowPath(const std::string& name) const;
  std::string MergedPath() const { return path_ + "/merged.hwtprof"; }
  // The file of a group's merged profile, relative to OUTDIR.
  static std::string GroupFile(const std::string& value);
  // Creates the directories a name with '/' needs below profiles/ and rows/.
  absl::Status PrepareName(const std::string& name) const;

 private:
  OutDir(std::string path, int lock_fd, int shard_fd)
      : path_(std::move(path)), lock_fd_(lock_fd), shard_fd_(shard_fd) {}
  std::string path_;
  int lock_fd_ = -1;
  int shard_fd_ = -1;
};

}  // namespace hwt::batch

#endif  // HWT_BATCH_OUT_DIR_H_
