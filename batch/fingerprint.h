// The identity of a batch input and of what the analysis makes of it, so
// that running a batch again skips captures whose profile is up to date:
// the tool version, the analysis options, the input's path and, for every
// file of the capture (all files below a bundle or snapshot directory), its
// relative path, size and modification time, plus the full contents of the
// manifest (manifest.json, snapshot.ini). With `verify` the contents of
// every file are hashed instead of trusting times (slower: reads all).
#ifndef HWT_BATCH_FINGERPRINT_H_
#define HWT_BATCH_FINGERPRINT_H_

#include <string>

#include "absl/status/statusor.h"
#include "batch/inputs.h"

namespace hwt::batch {

// "fp1:" and 16 hex digits. Errors: a file of the capture cannot be read.
absl::StatusOr<std::string> Fingerprint(const BatchInput& input,
                                        const std::string& analysis,
                                        bool verify);

}  // namespace hwt::batch

#endif  // HWT_BATCH_FINGERPRINT_H_
