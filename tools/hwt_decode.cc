// hwt-decode: decodes a capture and lists what it holds: packets,
// instructions, blocks, branches, the call trace, SPE records, or statistics.
// A thin front end: the work is in decoders/ and report/.
#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_format.h"
#include "base/output.h"
#include "base/progress.h"
#include "decoders/decoder.h"
#include "decoders/progress_sink.h"
#include "decoders/spe/decoder.h"
#include "decoders/spe/listing.h"
#include "decoders/spe/midr.h"
#include "report/common/symbol_names.h"
#include "report/listing/decode_listing.h"
#include "report/listing/decode_stats.h"
#include "report/listing/packet_listing.h"
#include "report/spe/spe_stats_report.h"
#include "tools/tool_common.h"

namespace {

constexpr char kTool[] = "hwt-decode";

enum class Mode {
  kStats,
  kPackets,
  kInsn,
  kBlocks,
  kBranches,
  kCalls,
  kRecords
};

struct Flags {
  hwt::tools::InputFlags input;
  Mode mode = Mode::kStats;
  std::string format = "text";
  std::string output = "-";
  int jobs = 0;
  int stream = -1;
  bool no_symbols = false;
  bool quiet = false;
  bool fast = false;
};

// Discards SPE records (statistics only).
class NullRecordSink : public hwt::spe::RecordSink {
 public:
  void OnRecords(uint32_t, absl::Span<const hwt::spe::Record>) override {}
};

int RunSpe(const Flags& flags, const hwt::tools::OpenedInput& input,
           hwt::Output& out) {
  const auto& capture = *input.capture;
  absl::StatusOr<hwt::spe::CaptureStats> stats;
  const bool json = flags.format == "json";
  switch (flags.mode) {
    case Mode::kPackets: {
      hwt::report::PacketListing listing(
          hwt::capture::Backend::kSpe, capture.manifest().buffers.size(), &out);
      stats = hwt::spe::ListCapturePackets(capture, listing);
      break;
    }
    case Mode::kRecords: {
      hwt::spe::RecordListingSink sink(
          json ? hwt::spe::RecordListingSink::Format::kJson
               : hwt::spe::RecordListingSink::Format::kText,
          hwt::spe::IdentifyCpu(capture.manifest().cpu.midr),
          [&out](std::string_view line) {
            out.Write(line);
            out.Write("\n");
          });
      stats = hwt::spe::DecodeCapture(capture, sink);
      break;
    }
    case Mode::kStats: {
      NullRecordSink sink;
      stats = hwt::spe::DecodeCapture(capture, sink);
      if (stats.ok()) {
        out.Write(json ? hwt::report::FormatSpeStatsJson(*stats)
                       : hwt::report::FormatSpeStatsText(*stats));
      }
      break;
    }
    default:
      return hwt::tools::Fail(
          kTool,
          absl::InvalidArgumentError(
              capture.source_path() +
              ": SPE captures hold samples, not control flow: use --records, "
              "--packets or --stats"));
  }
  if (!stats.ok()) return hwt::tools::Fail(kTool, stats.status());
  if (absl::Status s = out.Commit(); !s.ok()) return hwt::tools::Fail(kTool, s);
  if (stats->total.bytes_skipped > 0) {
    if (!flags.quiet) {
      fprintf(stderr,
              "%s: %llu bytes were not valid SPE packets and were skipped "
              "(see --stats)\n",
              kTool,
              static_cast<unsigned long long>(stats->total.bytes_skipped));
    }
    return hwt::tools::kExitDecodeErrors;
  }
  return hwt::tools::kExitOk;
}

// Writes the statistics and returns the exit code for them.
int FinishStats(const Flags& flags, hwt::report::DecodeSummary& summary,
                hwt::Output& out) {
  const bool json = flags.format == "json";
  if (flags.mode == Mode::kStats) {
    out.Write(json ? hwt::report::FormatDecodeStatsJson(summary)
                   : hwt::report::FormatDecodeStatsText(summary));
  }
  if (absl::Status s = out.Commit(); !s.ok()) return hwt::tools::Fail(kTool, s);

  // A stream of which no byte could be decoded (no sync point at all) is
  // a failure too, not a clean run.
  if (hwt::report::DecodeFailed(summary.stats)) {
    if (flags.mode != Mode::kStats && !flags.quiet) {
      fprintf(stderr, "%s: %s\n", kTool,
              hwt::report::DecodeFailureMessage(summary.stats).c_str());
    }
    return hwt::tools::kExitDecodeErrors;
  }
  return hwt::tools::kExitOk;
}

// --stats --fast: instructions counted on the fast path, no events.
int RunFastCount(const Flags& flags, const hwt::tools::OpenedInput& input,
                 hwt::TraceDecoder& decoder, hwt::Output& out) {
  std::string note;
  if (absl::Status s = decoder.CountInstructions(&note); !s.ok()) {
    return hwt::tools::Fail(kTool, s);
  }
  hwt::report::DecodeSummary summary;
  summary.capture = input.capture.get();
  summary.streams = decoder.streams();
  summary.stats = decoder.stats();
  summary.warnings = hwt::tools::InputWarnings(input);
  summary.blocks_counted = false;
  summary.notes.push_back(note);
  return FinishStats(flags, summary, out);
}

int RunControlFlow(const Flags& flags, const hwt::tools::OpenedInput& input,
                   hwt::Output& out) {
  const auto& capture = *input.capture;
  hwt::DecoderOptions options;
  options.jobs = flags.jobs;
  auto decoder = hwt::CreateDecoder(capture, input.timeline, options);
  if (!decoder.ok()) return hwt::tools::Fail(kTool, decoder.status());
  const auto& streams = (*decoder)->streams();
  if (flags.stream >= 0 &&
      static_cast<size_t>(flags.stream) >= streams.size()) {
    return hwt::tools::Fail(
        kTool, absl::InvalidArgumentError(absl::StrFormat(
                   "--stream %d: the capture has %u stream%s", flags.stream,
                   streams.size(), streams.size() == 1 ? "" : "s")));
  }
  const bool json = flags.format == "json";
  std::vector<std::string> warnings = hwt::tools::InputWarnings(input);

  if (flags.mode == Mode::kPackets) {
    hwt::report::PacketListing listing(capture.manifest().backend,
                                       streams.size(), &out);
    if (absl::Status s = (*decoder)->ListPackets(listing); !s.ok()) {
      return hwt::tools::Fail(kTool, s);
    }
  } else {
    std::unique_ptr<hwt::symbolizer::Symbolizer> symbols;
    std::unique_ptr<hwt::EventSink> listing;
    hwt::NullEventSink null_sink;
    hwt::EventSink* sink = &null_sink;
    if (flags.mode != Mode::kStats) {
      if (!flags.no_symbols) {
        auto created = hwt::report::CreateSymbolizerForTimeline(input.timeline,
                                                                {}, &warnings);
        if (!created.ok()) return hwt::tools::Fail(kTool, created.status());
        symbols = std::move(*created);
      }
      hwt::report::ListingOptions listing_options;
      listing_options.json = json;
      if (flags.stream >= 0) listing_options.stream = flags.stream;
      switch (flags.mode) {
        case Mode::kInsn:
          listing_options.mode = hwt::report::ListingMode::kInsn;
          break;
        case Mode::kBranches:
          listing_options.mode = hwt::report::ListingMode::kBranches;
          break;
        case Mode::kCalls:
          listing_options.mode = hwt::report::ListingMode::kCalls;
          break;
        default:
          listing_options.mode = hwt::report::ListingMode::kBlocks;
          break;
      }
      listing = std::make_unique<hwt::report::DecodeListing>(
          streams, input.timeline, symbols.get(), listing_options, &out);
      sink = listing.get();
    }
    if (flags.fast) return RunFastCount(flags, input, **decoder, out);
    hwt::Progress progress("decoding", hwt::tools::TotalTraceBytes(capture));
    hwt::ProgressSink with_progress(
        sink, streams, hwt::tools::BufferSizes(capture),
        [&progress](uint64_t done, uint64_t) { progress.Update(done); });
    if (absl::Status s = (*decoder)->Decode(with_progress); !s.ok()) {
      return hwt::tools::Fail(kTool, s);
    }
    progress.Finish();
  }

  hwt::report::DecodeSummary summary;
  summary.capture = &capture;
  summary.streams = streams;
  summary.stats = (*decoder)->stats();
  summary.warnings = warnings;
  return FinishStats(flags, summary, out);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Decodes a hardware trace capture (Intel PT, ARM CoreSight, ARM SPE) "
      "and lists what it holds.\n\n"
      "Examples:\n"
      "  hwt-decode --stats CAPTURE.hwt\n"
      "  hwt-decode --stats --format json --cpu 6/85/4 --image ./prog "
      "trace.pt\n"
      "  hwt-decode --calls CAPTURE.hwt | less\n\n"
      "Exit status: 0 clean, 1 the trace had decode errors (reported), 2 bad "
      "usage or unreadable input, 3 internal error or failure to write.",
      kTool};
  app.get_formatter()->column_width(30);
  Flags flags;
  hwt::tools::AddInputFlags(app, &flags.input);
  auto* modes = app.add_option_group("modes", "what to list (default --stats)");
  auto mode_flag = [&](const char* name, Mode mode, const char* help) {
    modes->add_flag_callback(
        name, [&flags, mode] { flags.mode = mode; }, help);
  };
  mode_flag("--stats", Mode::kStats,
            "statistics per stream and in total: bytes, instructions, blocks, "
            "errors with offsets");
  mode_flag("--packets", Mode::kPackets,
            "every packet (ptdump / trc_pkt_lister / perf arm-spe style)");
  mode_flag("--insn", Mode::kInsn, "one line per executed instruction");
  mode_flag("--blocks", Mode::kBlocks,
            "one line per block of straight-line code, and every event");
  mode_flag("--branches", Mode::kBranches,
            "one line per executed branch: from, to, kind");
  mode_flag("--calls", Mode::kCalls, "the call trace, indented by depth");
  mode_flag("--records", Mode::kRecords, "SPE: one line per sample record");
  modes->require_option(0, 1);
  app.add_option("--format", flags.format,
                 "text or json (json lines for listings)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app.add_option("-o,--output", flags.output,
                 "write to FILE (atomically) instead of stdout");
  app.add_option("--jobs", flags.jobs, "decoder threads (default: all cores)");
  app.add_option("--stream", flags.stream,
                 "list only this stream (see --stats for the streams)");
  app.add_flag("--no-symbols", flags.no_symbols,
               "do not name addresses in listings");
  app.add_flag("-q,--quiet", flags.quiet, "no warnings on stderr");
  app.add_flag("--fast", flags.fast,
               "with --stats, Intel PT: count instructions on the block-cache "
               "fast path, several times faster (the full decode's "
               "instructions, errors and lost bytes; near a decode error "
               "the count may differ by a few instructions; no block count)");

  int exit_code = 0;
  if (!hwt::tools::ParseCommandLine(app, argc, argv, &exit_code)) {
    return exit_code;
  }
  auto input = hwt::tools::OpenInput(flags.input, kTool, flags.quiet);
  if (!input.ok()) return hwt::tools::Fail(kTool, input.status());
  auto out = hwt::Output::Open(flags.output);
  if (!out.ok()) return hwt::tools::Fail(kTool, out.status());
  const hwt::capture::Backend backend = (*input).capture->manifest().backend;
  if (flags.fast && flags.mode != Mode::kStats) {
    return hwt::tools::Fail(
        kTool, absl::InvalidArgumentError("--fast counts instructions for "
                                          "--stats; it cannot list"));
  }
  if (flags.fast && backend != hwt::capture::Backend::kPt) {
    return hwt::tools::Fail(
        kTool, absl::InvalidArgumentError(absl::StrFormat(
                   "--fast counts Intel PT traces; this is a %s capture",
                   hwt::capture::BackendName(backend))));
  }
  if ((*input).capture->manifest().backend == hwt::capture::Backend::kSpe) {
    return hwt::tools::ImportExitCode(*input->capture,
                                      RunSpe(flags, *input, *out));
  }
  if (flags.mode == Mode::kRecords) {
    return hwt::tools::Fail(
        kTool, absl::InvalidArgumentError(
                   "--records lists SPE sample records; this is a " +
                   std::string(hwt::capture::BackendName(
                       (*input).capture->manifest().backend)) +
                   " capture"));
  }
  return hwt::tools::ImportExitCode(*input->capture,
                                    RunControlFlow(flags, *input, *out));
}
