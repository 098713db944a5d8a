// The call graph in Graphviz DOT: a node per function with its self and
// total weight (filled from pale to red by total share, text larger with
// self share), an edge per caller -> callee with the number of calls (wider
// and darker with the callee's share through it). Like pprof, functions
// below `node_percent` of the total and edges whose callee total is below
// `edge_percent` are left out.
#ifndef HWT_REPORT_PROFILE_CALLGRAPH_DOT_H_
#define HWT_REPORT_PROFILE_CALLGRAPH_DOT_H_

#include <string>

#include "analysis/tree_functions.h"
#include "report/naming/symbolized_profile.h"
#include "report/tree/profile_filter.h"

namespace hwt::report {

struct CallGraphDotOptions {
  std::string title;
  std::string count_name = "instructions";
  Weight weight = Weight::kInstructions;
  double scale = 1.0;
  double node_percent = 0.0;
  double edge_percent = 0.0;
};

std::string RenderCallGraphDot(const analysis::TreeFunctions& functions,
                               ProfileNames& names,
                               const CallGraphDotOptions& options);

}  // namespace hwt::report

#endif  // HWT_REPORT_PROFILE_CALLGRAPH_DOT_H_
