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
// `hwt-batch slurm` shares it too while its job is queued and running, and
// holds .hwt-batch.slurm.lock exclusively: no other batch or submission
// comes in while its shards work, and its shards still can.
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
  // For a Slurm submission, while it waits for its shards: the lock shared
  // plus the submission lock. The same errors.
  static absl::StatusOr<OutDir> OpenForSubmission(const std::string& path);
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
  OutDir(std::string path, int lock_fd, bool exclusive, int second_lock_fd)
      : path_(std::move(path)),
        lock_fd_(lock_fd),
        exclusive_(exclusive),
        second_lock_fd_(second_lock_fd) {}
  std::string path_;
  int lock_fd_ = -1;
  bool exclusive_ = false;   // lock_fd_'s lock
  int second_lock_fd_ = -1;  // the shard's or the submission's lock
};

}  // namespace hwt::batch

#endif  // HWT_BATCH_OUT_DIR_H_
