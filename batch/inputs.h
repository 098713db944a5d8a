// The inputs of a batch: what `hwt-batch run INPUT...` names, expanded into
// one entry per capture with a unique name. An INPUT is a capture (bundle
// directory, packed bundle, OpenCSD snapshot, bare raw file), a directory
// searched recursively for captures (bundles, packed bundles and snapshots;
// found captures are not searched further; symbolic links are not
// followed), or @FILE, a list with one input per line, each optionally
// followed by its own --cpu, --image, --backend and --sysroot (what a bare
// raw file needs). Names are the input's path relative to the directory it
// was found in (the base name for a capture named directly), without the
// .hwt / .tar / .tar.zst suffix; the same file reached twice is one input.
// The split of a batch into shards is here too: stable, the same on every
// machine that sees the same inputs.
#ifndef HWT_BATCH_INPUTS_H_
#define HWT_BATCH_INPUTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/capture.h"

namespace hwt::batch {

struct BatchInput {
  std::string path;  // as found (absolute when the argument was)
  std::string name;  // unique in the batch; may contain '/'
  capture::InputOptions options;
  uint64_t bytes = 0;  // on disk, what shards are balanced by
};

struct ExpandResult {
  std::vector<BatchInput> inputs;
  // Inputs skipped, with why (the same file twice, a saved profile).
  std::vector<std::string> notes;
};

// Expands the INPUT arguments; `defaults` (the command line's --cpu,
// --image, ...) apply to every input, a list line's own options replace
// them. `exclude` (the batch's output directory) is never searched.
// Errors: a missing path, a directory with no capture, a bad list line
// (with its file and line number).
absl::StatusOr<ExpandResult> ExpandInputs(const std::vector<std::string>& args,
                                          const capture::InputOptions& defaults,
                                          const std::string& exclude = "");

// Parses "I/N" (0 <= I < N).
absl::StatusOr<std::pair<int, int>> ParseShard(const std::string& text);

// The inputs of shard `index` of `count`: the inputs sorted by size
// (largest first, then name) dealt to the least-loaded shard, so shards
// get about the same number of bytes. Every input is in exactly one shard.
std::vector<BatchInput> ShardOf(const std::vector<BatchInput>& inputs,
                                int index, int count);

}  // namespace hwt::batch

#endif  // HWT_BATCH_INPUTS_H_
