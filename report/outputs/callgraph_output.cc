// --callgraph[=text|dot]: the call trees as indented text (top-down and
// bottom-up, report/profile/callgraph_text.h) or the call graph in Graphviz
// DOT (report/profile/callgraph_dot.h), of the tree after the filters.
#include "absl/strings/str_cat.h"
#include "analysis/tree_functions.h"
#include "report/outputs/output_registry.h"
#include "report/outputs/report_model.h"
#include "report/profile/callgraph_dot.h"
#include "report/profile/callgraph_text.h"

namespace hwt::report {
namespace {

class CallGraphOutput : public Renderer {
 public:
  absl::Status Check(const OutputRequest& request,
                     const ReportFlags&) const override {
    if (request.value == "text" || request.value == "dot") {
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(
        "--callgraph: expected text or dot, got '" + request.value + "'");
  }

  absl::Status Render(ReportModel& model, const OutputRequest& request,
                      OutputSink& sink) override {
    const double min_percent = model.options().min_percent;
    if (request.value == "dot") {
      CallGraphDotOptions dot;
      dot.title = model.Subtitle();
      dot.count_name = model.unit.name;
      dot.weight = model.unit.weight;
      dot.scale = model.unit.scale;
      dot.node_percent = min_percent >= 0 ? min_percent : 0.5;
      dot.edge_percent = min_percent >= 0 ? min_percent : 0.1;
      sink.Add({"call graph", "-", false, "dot",
                RenderCallGraphDot(analysis::FunctionsOfTree(model.tree),
                                   model.names(), dot)});
      return absl::OkStatus();
    }
    CallGraphTextOptions text;
    text.count_name = model.unit.name;
    text.scale = model.unit.scale;
    text.min_percent = min_percent >= 0 ? min_percent : 0.1;
    const NamedTree& tree = model.named_tree();
    const FrameTable& frames = model.names().frames();
    sink.Add({"call trees", "-", false, "callgraph.txt",
              absl::StrCat(RenderTopDownText(tree, frames, text), "\n",
                           RenderBottomUpText(tree, frames, text))});
    return absl::OkStatus();
  }
};

HWT_REGISTER_OUTPUT("callgraph", CallGraphOutput);

}  // namespace
}  // namespace hwt::report
