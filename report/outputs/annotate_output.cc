// --annotate FUNC: the disassembly of the matching functions with the
// execution count of every instruction (report/profile/annotate.h), read
// from the image files (a saved profile's images must be on this machine).
#include "absl/strings/str_cat.h"
#include "report/outputs/output_registry.h"
#include "report/outputs/report_model.h"
#include "report/profile/annotate.h"

namespace hwt::report {
namespace {

class AnnotateOutput : public Renderer {
 public:
  absl::Status Render(ReportModel& model, const OutputRequest&,
                      OutputSink& sink) override {
    if (model.symbolizer == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("--annotate: ", model.annotate_problem));
    }
    absl::StatusOr<std::string> text =
        AnnotateFunctions(model.options().annotate, *model.symbolizer,
                          *model.profile, model.expansion(), model.names());
    if (!text.ok()) return text.status();
    sink.Add({"annotated code", "-", false, "annotate.txt", *std::move(text)});
    return absl::OkStatus();
  }
};

HWT_REGISTER_OUTPUT("annotate", AnnotateOutput);

}  // namespace
}  // namespace hwt::report
