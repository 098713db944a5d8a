// hwt-import's option table: the capture to convert with its input options,
// the bundle to write, --force and --quiet.
#include "report/driver/import_options.h"

#include <utility>

#include "report/driver/input_options.h"

namespace hwt::report {
namespace {

using K = OptionKind;

#define HWT_FIELD(member) \
  [](ImportFlags& f) -> OptionTarget { return &f.member; }

constexpr char kImportAbout[] =
    "Converts a capture into a capture bundle: a Linux perf.data file (perf "
    "or simpleperf, file or pipe form; Intel PT, CoreSight ETM/ETE, Arm "
    "SPE), an OpenCSD snapshot or a bundle. The images the capture maps are "
    "found by build-id (--image without a bias, --symfs/--sysroot, the perf "
    "build-id cache ~/.debug or $PERF_BUILDID_DIR) and copied in; what the "
    "import found missing or lost is kept in the bundle and reported again "
    "by every tool that reads it. OUTPUT is a directory (NAME.hwt) or, when "
    "it ends in .tar, .tar.zst or .tar.gz, one packed file. Nothing is "
    "written unless all of it is.\n\n"
    "Examples:\n"
    "  hwt-import perf.data -o run.hwt\n"
    "  hwt-import perf.data -o run.hwt --symfs /srv/rootfs\n"
    "  hwt-import perf.data -o run.tar.zst --image ./a.out\n\n"
    "Exit status: 0 written, 1 written but the input had problems (reported "
    "on stderr: truncation, lost data), 2 bad usage, unreadable input or "
    "nothing to write, 3 failure to write.";

OptionTable<ImportFlags> BuildImportTable() {
  OptionTable<ImportFlags> table;
  table.tool = {
      .name = "hwt-import", .about = kImportAbout, .column_width = 34};
  table.rows.push_back({{.names = "INPUT",
                         .kind = K::kPositional,
                         .help = kCaptureInputHelp,
                         .required = true},
                        HWT_FIELD(input.input)});
  for (OptionRow<ImportFlags>& row :
       InputOptionRows<ImportFlags, &ImportFlags::input>()) {
    table.rows.push_back(std::move(row));
  }
  std::vector<OptionRow<ImportFlags>> rows = {
      {{.names = "-o,--output",
        .help = "bundle to write: NAME.hwt directory, or .tar/.tar.zst/"
                ".tar.gz file",
        .required = true},
       HWT_FIELD(output)},
      {{.names = "--force",
        .kind = K::kFlag,
        .help = "replace an existing bundle at OUTPUT"},
       HWT_FIELD(force)},
      {{.names = "-q,--quiet",
        .kind = K::kFlag,
        .help = "no warnings, no summary"},
       HWT_FIELD(quiet)},
  };
  for (OptionRow<ImportFlags>& row : rows) table.rows.push_back(std::move(row));
  return table;
}

#undef HWT_FIELD

}  // namespace

const OptionTable<ImportFlags>& ImportOptionTable() {
  static const OptionTable<ImportFlags>* const table =
      new OptionTable<ImportFlags>(BuildImportTable());
  return *table;
}

}  // namespace hwt::report
