// The helpers of the profile's types; see profile.h.
#include "analysis/profile.h"

namespace hwt::analysis {

void AddStats(ProfileStats& into, const ProfileStats& from) {
  into.events += from.events;
  into.blocks += from.blocks;
  into.instructions += from.instructions;
  into.time += from.time;
  into.gaps += from.gaps;
  for (size_t i = 0; i < into.gaps_by_reason.size(); ++i) {
    into.gaps_by_reason[i] += from.gaps_by_reason[i];
  }
  into.disables += from.disables;
  into.enables += from.enables;
  into.exceptions += from.exceptions;
  into.context_events += from.context_events;
  into.unknown_region_blocks += from.unknown_region_blocks;
  into.invalid_region_events += from.invalid_region_events;
  into.malformed_blocks += from.malformed_blocks;
}

}  // namespace hwt::analysis
