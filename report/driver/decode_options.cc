// hwt-decode's option table: the input, the listing modes (one exclusive
// group), the output and the decode options, in --help order.
#include "report/driver/decode_options.h"

#include <utility>

#include "report/driver/input_options.h"

namespace hwt::report {
namespace {

using K = OptionKind;

#define HWT_FIELD(member) \
  [](DecodeFlags& f) -> OptionTarget { return &f.member; }

constexpr char kDecodeAbout[] =
    "Decodes a hardware trace capture (Intel PT, ARM CoreSight, ARM SPE) "
    "and lists what it holds.\n\n"
    "Examples:\n"
    "  hwt-decode --stats CAPTURE.hwt\n"
    "  hwt-decode --stats --format json --cpu 6/85/4 --image ./prog "
    "trace.pt\n"
    "  hwt-decode --calls CAPTURE.hwt | less\n\n"
    "Exit status: 0 clean, 1 the trace had decode errors (reported), 2 bad "
    "usage or unreadable input, 3 internal error or failure to write.";

constexpr char kModes[] = "modes";

OptionRow<DecodeFlags> Mode(std::string_view names, std::string_view mode,
                            std::string_view help) {
  return {{.names = names,
           .kind = K::kSelect,
           .help = help,
           .group = kModes,
           .select = mode,
           .requests = "listing"},
          HWT_FIELD(mode)};
}

OptionTable<DecodeFlags> BuildDecodeTable() {
  OptionTable<DecodeFlags> table;
  table.tool = {
      .name = "hwt-decode", .about = kDecodeAbout, .column_width = 30};
  table.groups = {{kModes, "what to list (default --stats)", true}};
  table.rows.push_back({{.names = "INPUT",
                         .kind = K::kPositional,
                         .help = kCaptureInputHelp,
                         .required = true},
                        HWT_FIELD(input.input)});
  for (OptionRow<DecodeFlags>& row :
       InputOptionRows<DecodeFlags, &DecodeFlags::input>()) {
    table.rows.push_back(std::move(row));
  }
  std::vector<OptionRow<DecodeFlags>> rows = {
      Mode("--stats", "stats",
           "statistics per stream and in total: bytes, instructions, blocks, "
           "errors with offsets"),
      Mode("--packets", "packets",
           "every packet (ptdump / trc_pkt_lister / perf arm-spe style)"),
      Mode("--insn", "insn", "one line per executed instruction"),
      Mode("--blocks", "blocks",
           "one line per block of straight-line code, and every event"),
      Mode("--branches", "branches",
           "one line per executed branch: from, to, kind"),
      Mode("--calls", "calls", "the call trace, indented by depth"),
      Mode("--records", "records", "SPE: one line per sample record"),
      {{.names = "--format",
        .help = "text or json (json lines for listings)",
        .default_value = "text",
        .show_default = true,
        .choices = {"text", "json"}},
       HWT_FIELD(format)},
      {{.names = "-o,--output",
        .help = "write to FILE (atomically) instead of stdout",
        .default_value = "-"},
       HWT_FIELD(output)},
      {{.names = "--jobs", .help = "decoder threads (default: all cores)"},
       HWT_FIELD(jobs)},
      {{.names = "--stream",
        .help = "list only this stream (see --stats for the streams)",
        .default_value = "-1"},
       HWT_FIELD(stream)},
      {{.names = "--no-symbols",
        .kind = K::kFlag,
        .help = "do not name addresses in listings"},
       HWT_FIELD(no_symbols)},
      {{.names = "-q,--quiet",
        .kind = K::kFlag,
        .help = "no warnings on stderr"},
       HWT_FIELD(quiet)},
      {{.names = "--fast",
        .kind = K::kFlag,
        .help = "with --stats, Intel PT: count instructions on the "
                "block-cache fast path, several times faster (the full "
                "decode's instructions, errors and lost bytes; near a decode "
                "error the count may differ by a few instructions; no block "
                "count)"},
       HWT_FIELD(fast)},
      {{.names = "--decoder",
        .help = "with --stats, Intel PT: the flow engine, fast (the "
                "block-cache walker, libipt where it gives up) or libipt; "
                "auto is fast; the statistics are the same (listings always "
                "decode with libipt, whose trace offsets they show)",
        .default_value = "fast",
        .show_default = true,
        .choices = {"auto", "fast", "libipt"}},
       HWT_FIELD(decoder)},
  };
  for (OptionRow<DecodeFlags>& row : rows) table.rows.push_back(std::move(row));
  return table;
}

#undef HWT_FIELD

}  // namespace

const OptionTable<DecodeFlags>& DecodeOptionTable() {
  static const OptionTable<DecodeFlags>* const table =
      new OptionTable<DecodeFlags>(BuildDecodeTable());
  return *table;
}

}  // namespace hwt::report
