// Saved profiles for tests: one built from an event script (its images,
// symbols and code become the saved images and names), a profile with every
// field of every struct set to something other than its default, and the
// merged tree's folded stacks by the saved names.
#ifndef HWT_ANALYSIS_SAVED_TESTING_SAVED_PROFILES_H_
#define HWT_ANALYSIS_SAVED_TESTING_SAVED_PROFILES_H_

#include <cstdint>
#include <map>
#include <string>

#include "analysis/profile.h"
#include "analysis/saved/saved_profile.h"
#include "analysis/testing/event_script.h"

namespace hwt::analysis::testing {

// `profile` of `script` as a saved profile of one capture named `name`
// (fingerprint "fp-NAME"); image i is "/bin/NAME_i" with build-id
// "b<i>" unless `build_ids` is false.
SavedProfile SavedFromScript(const EventScript& script, Profile profile,
                             const std::string& name, bool build_ids = true);

// Every field set, every enum not its default, every vector non-empty.
SavedProfile EveryFieldSet();

// Reorders a profile's images by `order` (new image i = old order[i]) and
// shifts every address of image `shifted` by nothing: image indices only,
// as another machine's timeline would number them. Blocks and trees are put
// back into canonical order.
SavedProfile PermuteImages(const SavedProfile& profile,
                           const std::vector<uint32_t>& order);

// A frame named by the profile's saved names.
std::string SavedFrameName(const SavedProfile& profile, const FrameKey& key);

// Folded stacks of a tree named by the profile's saved names (function
// name, [BASENAME+0xOFF], [unknown], [gap]); gaps and zero weights left out.
std::map<std::string, uint64_t> FoldedByName(const SavedProfile& profile,
                                             const CallTree& tree);

}  // namespace hwt::analysis::testing

#endif  // HWT_ANALYSIS_SAVED_TESTING_SAVED_PROFILES_H_
