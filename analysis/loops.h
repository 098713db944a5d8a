// Loops found in the executed control flow. A back edge is a taken jump or
// conditional branch from address A to an address T <= A in the same
// function; the loop is identified by its header T, its body is the address
// range [T, end of the furthest back-edge branch). Per loop:
//   back_edges   times a back edge to T was taken,
//   entries      times control came into the body from an instruction of
//                the same function outside it (a jump, a fall-through, also
//                in the middle of a block; calls and returns do not count),
//   trip count   (back_edges + entries) / entries: passes through the body
//                per entry (a loop that tests at the top also counts the
//                final test pass),
//   instructions executed inside the body (the loop's own code, callees not
//                included), to set against the profile's instructions.
#ifndef HWT_ANALYSIS_LOOPS_H_
#define HWT_ANALYSIS_LOOPS_H_

#include <cstdint>
#include <vector>

#include "analysis/block_expansion.h"
#include "analysis/profile.h"

namespace hwt::analysis {

struct Loop {
  uint32_t image = kNoImage;
  uint64_t header = 0;  // ELF vaddr
  uint64_t end = 0;     // body = [header, end)
  FunctionId function;
  std::vector<uint64_t> latches;  // addresses of the back-edge branches
  uint64_t back_edges = 0;
  uint64_t entries = 0;
  uint64_t instructions = 0;

  double trip_count() const {
    return entries == 0 ? 0.0
                        : static_cast<double>(back_edges + entries) / entries;
  }
};

// Loops of `profile`, by instructions (descending), then (image, header).
// Needs the block expansion for instruction boundaries; failed blocks
// contribute nothing.
std::vector<Loop> FindLoops(const Profile& profile,
                            const BlockExpansion& expansion);

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_LOOPS_H_
