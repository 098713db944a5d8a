// hwt-decode's run: opens the capture, checks the mode against its
// backend, and lists packets, instructions, blocks, branches, calls or SPE
// records, or writes the statistics; see decode_run.h.
#include "report/driver/decode_run.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "absl/strings/str_format.h"
#include "base/output.h"
#include "base/progress.h"
#include "base/status_macros.h"
#include "base/threads.h"
#include "decoders/decoder.h"
#include "decoders/progress_sink.h"
#include "decoders/pt/pt_decoder.h"
#include "decoders/spe/decoder.h"
#include "decoders/spe/listing.h"
#include "decoders/spe/midr.h"
#include "decoders/spe/trace_decoder.h"
#include "decoders/stats_decode.h"
#include "pipeline/timeline_symbolizer.h"
#include "report/listing/decode_listing.h"
#include "report/listing/decode_stats.h"
#include "report/listing/packet_listing.h"
#include "report/spe/spe_stats_report.h"

namespace hwt::report {
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

// The table's mode names (decode_options.cc).
Mode ModeOf(const std::string& name) {
  if (name == "packets") return Mode::kPackets;
  if (name == "insn") return Mode::kInsn;
  if (name == "blocks") return Mode::kBlocks;
  if (name == "branches") return Mode::kBranches;
  if (name == "calls") return Mode::kCalls;
  if (name == "records") return Mode::kRecords;
  return Mode::kStats;
}

// The flags with the mode resolved (`mode` hides the flag's text).
struct Run : DecodeFlags {
  explicit Run(const DecodeFlags& flags)
      : DecodeFlags(flags), mode(ModeOf(flags.mode)) {}
  Mode mode;
};

// --records: every record with all its fields, partial ones too. Those are
// no sample events of the shared decoder, so the listing stays on SPE's record
// decoder. Returns the bytes it skipped.
absl::StatusOr<uint64_t> ListSpeRecords(const capture::Capture& capture,
                                        bool json, Output& out) {
  spe::RecordListingSink sink(json ? spe::RecordListingSink::Format::kJson
                                   : spe::RecordListingSink::Format::kText,
                              spe::IdentifyCpu(capture.manifest().cpu.midr),
                              [&out](std::string_view line) {
                                out.Write(line);
                                out.Write("\n");
                              });
  HWT_ASSIGN_OR_RETURN(spe::CaptureStats stats,
                       spe::DecodeCapture(capture, sink));
  return stats.total.bytes_skipped;
}

// --packets and --stats through the shared decoder. The statistics are SPE's
// own (packets by type, partial records, operations, events, data sources:
// more than StreamStats holds), which the SPE decoder keeps beside its
// StreamStats. Returns the bytes it skipped.
absl::StatusOr<uint64_t> DecodeSpe(const Run& flags, const OpenedInput& input,
                                   Output& out) {
  HWT_ASSIGN_OR_RETURN(
      std::unique_ptr<TraceDecoder> decoder,
      CreateDecoder(*input.capture, input.timeline, DecoderOptions()));
  if (flags.mode == Mode::kPackets) {
    PacketListing listing(capture::Backend::kSpe, decoder->streams().size(),
                          &out);
    HWT_RETURN_IF_ERROR(decoder->ListPackets(listing));
  } else {
    NullEventSink statistics_only;
    HWT_RETURN_IF_ERROR(decoder->Decode(statistics_only));
    const spe::CaptureStats* stats = spe::SpeCaptureStatsOf(*decoder);
    if (stats == nullptr) {
      return absl::InternalError("the SPE decoder kept no SPE statistics");
    }
    out.Write(flags.format == "json" ? FormatSpeStatsJson(*stats)
                                     : FormatSpeStatsText(*stats));
  }
  return TotalStats(decoder->stats()).bytes_lost;
}

int RunSpe(const Run& flags, const OpenedInput& input, Output& out) {
  const auto& capture = *input.capture;
  absl::StatusOr<uint64_t> bytes_skipped;
  switch (flags.mode) {
    case Mode::kPackets:
    case Mode::kStats:
      bytes_skipped = DecodeSpe(flags, input, out);
      break;
    case Mode::kRecords:
      bytes_skipped = ListSpeRecords(capture, flags.format == "json", out);
      break;
    default:
      return Fail(
          kTool,
          absl::InvalidArgumentError(
              capture.source_path() +
              ": SPE captures hold samples, not control flow: use --records, "
              "--packets or --stats"));
  }
  if (!bytes_skipped.ok()) return Fail(kTool, bytes_skipped.status());
  if (absl::Status s = out.Commit(); !s.ok()) return Fail(kTool, s);
  if (*bytes_skipped > 0) {
    if (!flags.quiet) {
      fprintf(stderr,
              "%s: %llu bytes were not valid SPE packets and were skipped "
              "(see --stats)\n",
              kTool, static_cast<unsigned long long>(*bytes_skipped));
    }
    return kExitDecodeErrors;
  }
  return kExitOk;
}

// Writes the statistics and returns the exit code for them.
int FinishStats(const Run& flags, DecodeSummary& summary, Output& out) {
  const bool json = flags.format == "json";
  if (flags.mode == Mode::kStats) {
    out.Write(json ? FormatDecodeStatsJson(summary)
                   : FormatDecodeStatsText(summary));
  }
  if (absl::Status s = out.Commit(); !s.ok()) return Fail(kTool, s);

  // A stream of which no byte could be decoded (no sync point at all) is
  // a failure too, not a clean run.
  if (DecodeFailed(summary.stats)) {
    if (flags.mode != Mode::kStats && !flags.quiet) {
      fprintf(stderr, "%s: %s\n", kTool,
              DecodeFailureMessage(summary.stats).c_str());
    }
    return kExitDecodeErrors;
  }
  return kExitOk;
}

// --stats --fast: instructions counted on the fast path, no events.
int RunFastCount(const Run& flags, const OpenedInput& input,
                 TraceDecoder& decoder, Output& out) {
  std::string note;
  if (absl::Status s = decoder.CountInstructions(&note); !s.ok()) {
    return Fail(kTool, s);
  }
  DecodeSummary summary;
  summary.capture = input.capture.get();
  summary.streams = decoder.streams();
  summary.stats = decoder.stats();
  summary.warnings = InputWarnings(input);
  summary.blocks_counted = false;
  summary.notes.push_back(note);
  return FinishStats(flags, summary, out);
}

// Decodes into `sink` (a listing) with a progress line.
absl::Status DecodeWithProgress(
    TraceDecoder& decoder, EventSink* sink,
    const std::vector<uint64_t>& buffer_sizes,
    const std::function<void(uint64_t, uint64_t)>& update) {
  ProgressSink with_progress(sink, decoder.streams(), buffer_sizes, update);
  return decoder.Decode(with_progress);
}

int RunControlFlow(const Run& flags, const OpenedInput& input, Output& out) {
  const auto& capture = *input.capture;
  DecoderOptions options;
  options.jobs = flags.jobs;
  // --stats on the fast engine: the same statistics, several times faster.
  // Listings show libipt's trace offsets, which the walker does not keep.
  const bool fast_engine = flags.mode == Mode::kStats &&
                           flags.decoder != "libipt" &&
                           capture.manifest().backend == capture::Backend::kPt;
  if (fast_engine) options.engine = DecoderEngine::kFast;
  // libipt's workers share the image sections' block caches behind one lock:
  // on long segments two of them spend about as much CPU in it as they
  // decode, so its --stats keeps the short segments Decode() uses
  // (docs/performance.md).
  if (flags.mode == Mode::kStats && !fast_engine) {
    options.segment_bytes = pt::kDecodeSegmentBytes;
  }
  auto decoder = CreateDecoder(capture, input.timeline, options);
  if (!decoder.ok()) return Fail(kTool, decoder.status());
  const auto& streams = (*decoder)->streams();
  if (flags.stream >= 0 &&
      static_cast<size_t>(flags.stream) >= streams.size()) {
    return Fail(kTool,
                absl::InvalidArgumentError(absl::StrFormat(
                    "--stream %d: the capture has %u stream%s", flags.stream,
                    streams.size(), streams.size() == 1 ? "" : "s")));
  }
  const bool json = flags.format == "json";
  std::vector<std::string> warnings = InputWarnings(input);

  if (flags.mode == Mode::kPackets) {
    PacketListing listing(capture.manifest().backend, streams.size(), &out);
    if (absl::Status s = (*decoder)->ListPackets(listing); !s.ok()) {
      return Fail(kTool, s);
    }
  } else {
    std::unique_ptr<symbolizer::Symbolizer> symbols;
    std::unique_ptr<EventSink> listing;
    NullEventSink null_sink;
    EventSink* sink = &null_sink;
    if (flags.mode != Mode::kStats) {
      if (!flags.no_symbols) {
        auto created = pipeline::CreateSymbolizerForTimeline(input.timeline, {},
                                                             &warnings);
        if (!created.ok()) return Fail(kTool, created.status());
        symbols = std::move(*created);
      }
      ListingOptions listing_options;
      listing_options.json = json;
      if (flags.stream >= 0) listing_options.stream = flags.stream;
      switch (flags.mode) {
        case Mode::kInsn:
          listing_options.mode = ListingMode::kInsn;
          break;
        case Mode::kBranches:
          listing_options.mode = ListingMode::kBranches;
          break;
        case Mode::kCalls:
          listing_options.mode = ListingMode::kCalls;
          break;
        default:
          listing_options.mode = ListingMode::kBlocks;
          break;
      }
      listing = std::make_unique<DecodeListing>(
          streams, input.timeline, symbols.get(), listing_options, &out);
      sink = listing.get();
    }
    if (flags.fast) return RunFastCount(flags, input, **decoder, out);
    Progress progress("decoding", TotalTraceBytes(capture));
    const auto update = [&progress](uint64_t done, uint64_t) {
      progress.UpdateRarely(done);
    };
    const absl::Status decoded =
        flags.mode == Mode::kStats
            ? DecodeForStats(**decoder, ResolveJobs(flags.jobs),
                             BufferSizes(capture), update)
            : DecodeWithProgress(**decoder, sink, BufferSizes(capture), update);
    if (!decoded.ok()) return Fail(kTool, decoded);
    progress.Finish();
  }

  DecodeSummary summary;
  summary.capture = &capture;
  summary.streams = streams;
  summary.stats = (*decoder)->stats();
  summary.warnings = warnings;
  if (fast_engine) {
    if (std::string note = (*decoder)->EngineNote(); !note.empty()) {
      summary.notes.push_back(std::move(note));
    }
  }
  return FinishStats(flags, summary, out);
}

}  // namespace

int RunDecode(const DecodeFlags& flags) {
  const Run run(flags);
  auto input = OpenInput(flags.input, kTool, flags.quiet);
  if (!input.ok()) return Fail(kTool, input.status());
  auto out = Output::Open(flags.output);
  if (!out.ok()) return Fail(kTool, out.status());
  const capture::Backend backend = (*input).capture->manifest().backend;
  if (flags.fast && run.mode != Mode::kStats) {
    return Fail(kTool,
                absl::InvalidArgumentError("--fast counts instructions for "
                                           "--stats; it cannot list"));
  }
  if (flags.fast && backend != capture::Backend::kPt) {
    return Fail(kTool,
                absl::InvalidArgumentError(absl::StrFormat(
                    "--fast counts Intel PT traces; this is a %s capture",
                    capture::BackendName(backend))));
  }
  if ((*input).capture->manifest().backend == capture::Backend::kSpe) {
    return ImportExitCode(*input->capture, RunSpe(run, *input, *out));
  }
  if (run.mode == Mode::kRecords) {
    return Fail(kTool, absl::InvalidArgumentError(
                           "--records lists SPE sample records; this is a " +
                           std::string(capture::BackendName(
                               (*input).capture->manifest().backend)) +
                           " capture"));
  }
  return ImportExitCode(*input->capture, RunControlFlow(run, *input, *out));
}

}  // namespace hwt::report
