// Merging saved profiles, exactly: images are joined by identity (build-id,
// else path and content hash) so profiles from different machines and load
// addresses line up; the raw sections (blocks, block edges, call trees by
// stack, node blocks, functions, call edges, paths, statistics) are added
// up; every capture keeps its own threads (capture id + stream + context);
// the names, segment maps and code bytes of an image are united. The result
// is in one canonical order (images by identity, captures by name, blocks by
// key, trees by frame), so the merge is associative and commutative: any
// grouping and any order of the same inputs gives the same profile, byte
// for byte once written. Derived orders (paths by weight) are recomputed.
//
// Memory: the accumulator holds only the merged aggregates, so merging a
// thousand files one after the other needs the memory of their union, not
// of the thousand.
#ifndef HWT_ANALYSIS_SAVED_PROFILE_MERGE_H_
#define HWT_ANALYSIS_SAVED_PROFILE_MERGE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "analysis/saved/saved_profile.h"

namespace hwt::analysis {

class ProfileAccumulator {
 public:
  ProfileAccumulator();
  ~ProfileAccumulator();
  ProfileAccumulator(const ProfileAccumulator&) = delete;
  ProfileAccumulator& operator=(const ProfileAccumulator&) = delete;

  // Adds a profile. Errors (InvalidArgument): a capture that is already in
  // (the same non-empty fingerprint), named with `what` (e.g. the file).
  absl::Status Add(const SavedProfile& profile, const std::string& what = "");
  // Number of captures added so far.
  size_t captures() const;
  // The merged profile; the accumulator is empty afterwards. Block regions
  // (indices into one capture's timeline) become kNoRegion; images that no
  // block, frame or function refers to are left out.
  SavedProfile Finish(const std::string& writer);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// Merges in one call (same result as an accumulator fed in any order).
absl::StatusOr<SavedProfile> MergeProfiles(
    absl::Span<const SavedProfile* const> profiles, const std::string& writer);

// Call trees of one profile (ids as they are) merged by stack, canonical:
// e.g. the threads of one stream in every capture.
CallTree MergeCallTrees(absl::Span<const CallTree* const> trees);

// The order of captures in a merged profile.
bool SourceLess(const CaptureSource& a, const CaptureSource& b);

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_SAVED_PROFILE_MERGE_H_
