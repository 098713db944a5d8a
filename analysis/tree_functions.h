// The functions and call edges of a call tree, by the rules of
// docs/call-stacks.md: per frame its own weight, its total (a frame that
// recurses counts its subtree once) and the near calls that entered it, and
// per (caller, callee) the near calls between them. A profile's own tables
// (Profile::functions, Profile::call_edges) are those of its merged tree;
// report/ takes them of a filtered tree, so that its tables and call graphs
// follow the filters.
#ifndef HWT_ANALYSIS_TREE_FUNCTIONS_H_
#define HWT_ANALYSIS_TREE_FUNCTIONS_H_

#include <vector>

#include "analysis/profile.h"

namespace hwt::analysis {

struct TreeFunctions {
  std::vector<FunctionStats> functions;  // sorted by frame
  std::vector<CallEdge> call_edges;      // sorted by (caller, callee)
};

// [gap] frames have no function and are left out.
TreeFunctions FunctionsOfTree(const CallTree& tree);

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_TREE_FUNCTIONS_H_
