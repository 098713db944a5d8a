// hwt-report's option table: every option's names, kind, default, help,
// --help section and the output it requests or only applies to. The help
// texts are the tool's --help; the order is its order.
#include "report/driver/report_options.h"

#include <utility>

#include "report/driver/input_options.h"

namespace hwt::report {
namespace {

using K = OptionKind;

// Where a row's value goes in ReportFlags.
#define HWT_FIELD(member) \
  [](ReportFlags& f) -> OptionTarget { return &f.member; }

// An output's name as a template argument: the row of an output that takes
// a file needs no field of its own (ReportFlags::outputs holds its value).
template <size_t N>
struct OutputName {
  constexpr OutputName(const char (&name)[N]) {  // NOLINT: implicit
    for (size_t i = 0; i < N; ++i) text[i] = name[i];
  }
  char text[N];
};

template <OutputName kName>
OptionTarget OutputValue(ReportFlags& flags) {
  return &flags.outputs[std::string(kName.text)];
}

// The row of output kName: `info` with the output it requests.
template <OutputName kName>
OptionRow<ReportFlags> FileOutput(OptionInfo info) {
  info.kind = K::kFlagValue;
  info.requests = kName.text;
  return {std::move(info), &OutputValue<kName>};
}

constexpr char kReportAbout[] =
    "Profiles a capture: an interactive flame graph (the default), folded "
    "stacks, speedscope JSON, call graphs, top functions, hot blocks, "
    "branches, paths and loops, annotated disassembly; of SPE captures the "
    "same from their samples, and the SPE sample report (the default).\n\n"
    "Examples:\n"
    "  hwt-report fib.hwt                      # fib.flame.svg\n"
    "  hwt-report --html fib.hwt               # fib.report.html\n"
    "  hwt-report --top 20 --function '^main$' fib.hwt\n"
    "  hwt-report --annotate fib --hot fib.hwt\n"
    "  hwt-report --callgraph=dot fib.hwt | dot -Tsvg > fib.svg\n"
    "  hwt-report --folded --no-inline --cpu 6/85/4 --image ./prog "
    "trace.pt\n"
    "  hwt-report --pprof --bolt --only-image prog prog.hwt  # prog.pb.gz, "
    "prog.bolt.pa\n"
    "  hwt-report --save fib.hwtprof fib.hwt   # a saved profile\n"
    "  hwt-report --top 20 a.hwtprof b.hwt     # inputs merged\n"
    "  hwt-report --diff old.hwtprof new.hwtprof > diff.svg\n\n"
    "SVG, HTML and JSON go to stdout, or when stdout is a terminal to "
    "NAME.flame.svg / NAME.report.html / NAME.speedscope.json (exports: "
    "NAME.pb.gz, ...) in the current directory.\n"
    "Exit status: 0 clean, 1 the trace had decode errors (reported), 2 bad "
    "usage or unreadable input, 3 internal error or failure to write.";

std::vector<OptionRow<ReportFlags>> InputRows() {
  std::vector<OptionRow<ReportFlags>> rows = {
      {{.names = "INPUT",
        .kind = K::kPositional,
        .help = "capture bundle (NAME.hwt/), packed bundle (.tar, .tar.zst), "
                "OpenCSD snapshot directory, Linux perf.data file, raw trace "
                "file, or saved profile (.hwtprof); several are merged"},
       HWT_FIELD(inputs)},
  };
  for (OptionRow<ReportFlags>& row :
       InputOptionRows<ReportFlags, &ReportFlags::input>()) {
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<OptionRow<ReportFlags>> OutputRows() {
  return {
      {{.names = "--save",
        .help = "write the (merged) profile of the inputs to FILE.hwtprof; "
                "with no other output, only that",
        .group = "Outputs"},
       HWT_FIELD(save)},
      {{.names = "--diff",
        .kind = K::kRepeated,
        .help = "BASE NEW: what changed from BASE to NEW (profiles, batch "
                "directories or captures): a differential flame graph, "
                "--folded difffolded stacks, --top N changed functions",
        .group = "Outputs",
        .arity = 2},
       HWT_FIELD(diff)},
      {{.names = "--absolute",
        .kind = K::kFlag,
        .help = "--diff: compare raw counts, not shares of each total",
        .group = "Outputs",
        .applies_to = {"diff"}},
       HWT_FIELD(absolute)},
      FileOutput<"flame">(
          {.names = "--flame{-}",
           .help = "interactive SVG flame graph (default output); =FILE",
           .group = "Outputs"}),
      FileOutput<"html">(
          {.names = "--html{-}",
           .help = "interactive HTML report (one self-contained file: "
                   "overview, flame graph, functions, disassembly, hot "
                   "spots); =FILE",
           .group = "Outputs"}),
      FileOutput<"folded">(
          {.names = "--folded{-}",
           .help = "folded stacks (flamegraph.pl, inferno, speedscope); =FILE",
           .group = "Outputs"}),
      FileOutput<"speedscope">(
          {.names = "--speedscope{-}",
           .help = "speedscope JSON: a call/return timeline per thread and "
                   "the merged profile; =FILE",
           .group = "Outputs"}),
      FileOutput<"callgraph">(
          {.names = "--callgraph{text}",
           .help = "call graph: =text (top-down and bottom-up trees) or =dot "
                   "(Graphviz)",
           .group = "Outputs"}),
      {{.names = "--top",
        .help = "the N functions with the most self and total weight",
        .group = "Outputs",
        .requests = "top"},
       HWT_FIELD(top)},
      {{.names = "--hot",
        .kind = K::kFlag,
        .help = "hot blocks, branches (taken/not taken), call paths, "
                "intra-procedural paths and loops",
        .group = "Outputs",
        .requests = "hot"},
       HWT_FIELD(hot)},
      {{.names = "--annotate",
        .help = "disassembly of FUNC (exact name or regex) with execution "
                "counts per instruction",
        .group = "Outputs",
        .requests = "annotate"},
       HWT_FIELD(annotate)},
      FileOutput<"spe">(
          {.names = "--spe{-}",
           .help = "SPE captures: the sample report (latency, events, "
                   "operations, data sources, data hot spots, per function "
                   "and instruction; the default output of an SPE capture); "
                   "=FILE",
           .group = "Outputs"}),
      {{.names = "--format",
        .help = "text or json (--top, --hot, --spe)",
        .group = "Outputs",
        .default_value = "text",
        .choices = {"text", "json"},
        .applies_to = {"top", "hot", "spe", "diff"}},
       HWT_FIELD(format)},
      {{.names = "-o,--output",
        .help = "write the output to FILE (atomically) instead of stdout",
        .group = "Outputs"},
       HWT_FIELD(output)},
  };
}

std::vector<OptionRow<ReportFlags>> ExportRows() {
  return {
      FileOutput<"pprof">(
          {.names = "--pprof{-}",
           .help = "pprof profile (gzip'd profile.proto: go tool pprof, "
                   "speedscope, Perfetto; SPE: samples and latency); =FILE, "
                   "default NAME.pb.gz",
           .group = "Exports"}),
      FileOutput<"bolt">(
          {.names = "--bolt{-}",
           .help = "BOLT pre-aggregated profile of one image (llvm-bolt --pa "
                   "-p FILE); =FILE, default NAME.bolt.pa",
           .group = "Exports"}),
      FileOutput<"autofdo">(
          {.names = "--autofdo{-}",
           .help = "AutoFDO text profile of one image (create_llvm_prof "
                   "--profiler=text); =FILE, default NAME.afdo.txt",
           .group = "Exports"}),
      FileOutput<"profgen">(
          {.names = "--profgen{-}",
           .help = "llvm-profgen unsymbolized profile of one image "
                   "(--unsymbolized-profile); =FILE, default "
                   "NAME.profgen.txt",
           .group = "Exports"}),
      FileOutput<"llvm-sample">(
          {.names = "--llvm-sample{-}",
           .help = "LLVM sample profile of one image (clang "
                   "-fprofile-sample-use, llvm-profdata); =FILE, default "
                   "NAME.prof",
           .group = "Exports"}),
      FileOutput<"chrome-trace">(
          {.names = "--chrome-trace{-}",
           .help = "the call/return timeline per thread as Chrome trace JSON "
                   "(Perfetto, chrome://tracing, speedscope); =FILE, default "
                   "NAME.trace.json",
           .group = "Exports"}),
  };
}

std::vector<OptionRow<ReportFlags>> FlameRows() {
  const std::vector<std::string_view> flame = {"flame", "html", "diff"};
  return {
      {{.names = "--icicle",
        .kind = K::kFlag,
        .help = "flame graph upside down (root at the top)",
        .group = "Flame graph",
        .applies_to = flame},
       HWT_FIELD(icicle)},
      {{.names = "--title",
        .help = "flame graph title",
        .group = "Flame graph",
        .applies_to = flame},
       HWT_FIELD(title)},
      {{.names = "--count-name",
        .help = "what the counts are called in tooltips (default: "
                "instructions, ns, ticks or samples)",
        .group = "Flame graph",
        .applies_to = flame},
       HWT_FIELD(count_name)},
      {{.names = "--min-width",
        .help = "leave out frames narrower than PIXELS (or PERCENT%) of a "
                "1200-pixel graph (--flame, --html)",
        .group = "Flame graph",
        .default_value = "0.1",
        .show_default = true,
        .applies_to = flame},
       HWT_FIELD(min_width)},
      {{.names = "--rows",
        .help = "rows per --hot section and --spe list (0 = all)",
        .group = "Outputs",
        .default_value = "20",
        .show_default = true,
        .applies_to = {"hot", "html", "spe"}},
       HWT_FIELD(rows)},
      {{.names = "--min-percent",
        .help = "--callgraph: leave out frames below this share (default "
                "0.1 text, 0.5 dot)",
        .group = "Outputs",
        .default_value = "-1",
        .applies_to = {"callgraph"}},
       HWT_FIELD(min_percent)},
  };
}

std::vector<OptionRow<ReportFlags>> FilterRows() {
  return {
      {{.names = "--thread",
        .help = "only stream N (a buffer, or a CoreSight trace ID)",
        .group = "Filters"},
       HWT_FIELD(thread)},
      {{.names = "--only-image",
        .help = "only stacks through a frame of image NAME (base name or "
                "path); the image of --bolt, --autofdo, --profgen and "
                "--llvm-sample (default: the main executable); --image "
                "loads images of a raw trace",
        .group = "Filters"},
       HWT_FIELD(image)},
      {{.names = "--function",
        .help = "only the subtrees under frames matching REGEX",
        .group = "Filters"},
       HWT_FIELD(function)},
      {{.names = "--range",
        .help = "only trace bytes START:END of each buffer (decimal or 0x)",
        .group = "Filters"},
       HWT_FIELD(range)},
      {{.names = "--time",
        .help = "only blocks with timestamps in START:END (the trace's "
                "time unit)",
        .group = "Filters"},
       HWT_FIELD(time)},
  };
}

std::vector<OptionRow<ReportFlags>> DecodeRows() {
  return {
      {{.names = "--weight",
        .help = "what the counts are: instructions (exact; SPE: samples), "
                "time (from the trace's timestamps; SPE: the samples' "
                "latency in cycles), or auto (time when the trace has it)",
        .default_value = "instructions",
        .show_default = true,
        .choices = {"auto", "instructions", "time"}},
       HWT_FIELD(weight)},
      {{.names = "--no-inline",
        .kind = K::kFlag,
        .help = "do not expand DWARF inline frames"},
       HWT_FIELD(no_inline)},
      {{.names = "--no-demangle",
        .kind = K::kFlag,
        .help = "show mangled C++ names"},
       HWT_FIELD(no_demangle)},
      {{.names = "-j,--jobs",
        .help = "decoding threads (0: all usable cores, the affinity mask "
                "and cgroup quota)",
        .default_value = "0",
        .show_default = true,
        .check = OptionCheck::kNonNegative},
       HWT_FIELD(jobs)},
      {{.names = "--decoder",
        .help = "PT flow engine: fast (the block-cache walker, libipt where "
                "it gives up; buffers are split at PSBs across the workers) "
                "or libipt (the reference); auto is fast; the output is the "
                "same",
        .default_value = "fast",
        .show_default = true,
        .choices = {"auto", "fast", "libipt"}},
       HWT_FIELD(decoder)},
      {{.names = "--fast", .kind = K::kFlag, .help = "same as --decoder fast"},
       HWT_FIELD(fast)},
      {{.names = "--stats",
        .kind = K::kFlag,
        .help = "say on stderr how much of the trace took the fast path"},
       HWT_FIELD(engine_stats)},
      {{.names = "--max-events",
        .help = "--speedscope, --chrome-trace: cap on call/return events kept",
        .default_value = "5000000",
        .show_default = true,
        .applies_to = {"speedscope", "chrome-trace"}},
       HWT_FIELD(max_events)},
      {{.names = "-q,--quiet",
        .kind = K::kFlag,
        .help = "no warnings or notes on stderr"},
       HWT_FIELD(quiet)},
  };
}

#undef HWT_FIELD

OptionTable<ReportFlags> BuildReportTable() {
  OptionTable<ReportFlags> table;
  table.tool = {
      .name = "hwt-report", .about = kReportAbout, .column_width = 36};
  for (auto rows : {InputRows(), OutputRows(), ExportRows(), FlameRows(),
                    FilterRows(), DecodeRows()}) {
    for (OptionRow<ReportFlags>& row : rows) {
      table.rows.push_back(std::move(row));
    }
  }
  return table;
}

}  // namespace

const OptionTable<ReportFlags>& ReportOptionTable() {
  static const OptionTable<ReportFlags>* const table =
      new OptionTable<ReportFlags>(BuildReportTable());
  return *table;
}

}  // namespace hwt::report
