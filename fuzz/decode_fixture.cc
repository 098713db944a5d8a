// Implementation of the decode fuzzing fixture; see decode_fixture.h.
#include "fuzz/decode_fixture.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "analysis/capture_profile.h"
#include "analysis/profile_text.h"
#include "decoders/memory_image.h"
#include "fuzz/fuzz_support.h"
#include "report/listing/decode_stats.h"

namespace hwt::fuzz {
namespace {

// Checks events as they arrive.
class CheckingEventSink : public EventSink {
 public:
  CheckingEventSink(size_t streams, uint64_t limit)
      : ends_(streams, 0), limit_(limit) {}

  void OnEvents(uint32_t stream, absl::Span<const Event> events) override {
    HWT_FUZZ_CHECK(stream < ends_.size(), "event for an unknown stream");
    HWT_FUZZ_CHECK(ends_[stream] == 0, "event after the stream's end");
    for (const Event& event : events) {
      if (event.offset > limit_) {
        Fail(
            absl::StrFormat("%s event at offset 0x%x beyond the 0x%x-byte "
                            "buffer",
                            DescribeEvent(event), event.offset, limit_));
      }
      if (event.kind == EventKind::kGap && event.value > limit_) {
        Fail(absl::StrFormat("gap of %u bytes in a %u-byte buffer", event.value,
                             limit_));
      }
      ++events_;
    }
  }
  void OnStreamEnd(uint32_t stream) override {
    HWT_FUZZ_CHECK(stream < ends_.size(), "end of an unknown stream");
    ++ends_[stream];
  }
  void CheckEnds() const {
    for (size_t s = 0; s < ends_.size(); ++s) {
      if (ends_[s] != 1) {
        Fail(absl::StrFormat("stream %d ended %d times", s, ends_[s]));
      }
    }
  }

 private:
  std::vector<int> ends_;
  uint64_t limit_;
  uint64_t events_ = 0;
};

class CheckingPacketSink : public PacketSink {
 public:
  CheckingPacketSink(size_t streams, uint64_t limit)
      : streams_(streams), limit_(limit) {}
  void OnPacket(uint32_t stream, uint64_t offset,
                std::string_view text) override {
    HWT_FUZZ_CHECK(stream < streams_, "packet for an unknown stream");
    if (offset > limit_) {
      Fail(
          absl::StrFormat("packet \"%s\" at offset 0x%x beyond the 0x%x-byte "
                          "buffer",
                          std::string(text), offset, limit_));
    }
  }

 private:
  size_t streams_;
  uint64_t limit_;
};

// Line `line` (from 1) of `text`, or "(none)" past its end.
std::string LineOf(const std::string& text, size_t line) {
  size_t begin = 0;
  for (size_t n = 1; n < line; ++n) {
    begin = text.find('\n', begin);
    if (begin == std::string::npos) return "(none)";
    ++begin;
  }
  if (begin >= text.size()) return "(none)";
  const size_t end = text.find('\n', begin);
  return text.substr(begin, end == std::string::npos ? end : end - begin);
}

}  // namespace

bool NoErrorButOverflows(const std::vector<StreamStats>& stats) {
  return std::all_of(stats.begin(), stats.end(), [](const StreamStats& s) {
    return s.errors == s.overflows;
  });
}

void CheckStreamStats(const std::vector<StreamStats>& stats,
                      uint64_t input_size, bool deformatted, const char* what) {
  uint64_t total = 0;
  for (size_t s = 0; s < stats.size(); ++s) {
    const StreamStats& st = stats[s];
    if (st.trace_bytes != st.bytes_decoded + st.bytes_lost) {
      Fail(absl::StrFormat(
          "%s: stream %d: trace_bytes %u != bytes_decoded %u + bytes_lost %u",
          what, s, st.trace_bytes, st.bytes_decoded, st.bytes_lost));
    }
    if (st.error_list.size() > StreamStats::kMaxListedErrors ||
        st.error_list.size() > st.errors) {
      Fail(absl::StrFormat("%s: stream %d: %d listed errors, %u counted", what,
                           s, st.error_list.size(), st.errors));
    }
    for (const DecodeErrorInfo& error : st.error_list) {
      if (error.offset > input_size) {
        Fail(
            absl::StrFormat("%s: error at offset 0x%x beyond the %u-byte "
                            "buffer: %s",
                            what, error.offset, input_size, error.message));
      }
    }
    total += st.trace_bytes;
  }
  // A stream of which no byte decoded (no sync point at all) is a failed
  // decode for the tools' exit status and a batch's row, never "clean".
  for (size_t s = 0; s < stats.size(); ++s) {
    if (stats[s].trace_bytes != 0 && stats[s].bytes_decoded == 0 &&
        !report::DecodeFailed(stats)) {
      Fail(
          absl::StrFormat("%s: stream %d lost all its %u bytes, yet the "
                          "decode does not count as failed",
                          what, s, stats[s].trace_bytes));
    }
  }
  if (deformatted ? total > input_size : total != input_size) {
    Fail(absl::StrFormat("%s: streams hold %u trace bytes, the buffer %u", what,
                         total, input_size));
  }
}

DecodeFixture::DecodeFixture(std::unique_ptr<capture::Capture> base,
                             size_t buffer_index)
    : base_(std::move(base)), buffer_index_(buffer_index) {
  auto timeline = capture::BuildAddressSpaceTimeline(*base_);
  CheckOk(timeline.status(), "BuildAddressSpaceTimeline");
  timeline_ = std::move(*timeline);
  trace_path_ = ScratchDir() + "/trace.bin";
  files_ = std::make_shared<ImageFileCache>();
}

std::unique_ptr<capture::Capture> DecodeFixture::WithTrace(
    absl::Span<const uint8_t> bytes, std::vector<capture::BufferChunk> chunks) {
  WriteFileOrDie(trace_path_, bytes);
  capture::Manifest manifest = base_->manifest();
  capture::BufferInfo& buffer = manifest.buffers.at(buffer_index_);
  buffer.file = trace_path_;
  buffer.size = bytes.size();
  buffer.chunks = std::move(chunks);
  return std::make_unique<capture::Capture>(
      base_->kind(), base_->source_path(), base_->root(), std::move(manifest),
      base_->records(), base_->options(), std::nullopt);
}

std::vector<StreamStats> DecodeFixture::DecodeAndCheck(
    const capture::Capture& capture, uint64_t input_size, bool deformatted,
    const DecoderOptions& options) {
  std::vector<StreamStats> decoded;
  {
    auto decoder = CreateDecoder(capture, timeline_, options);
    CheckOk(decoder.status(), "CreateDecoder");
    CheckingEventSink sink((*decoder)->streams().size(), input_size);
    CheckOk((*decoder)->Decode(sink), "Decode");
    sink.CheckEnds();
    CheckStreamStats((*decoder)->stats(), input_size, deformatted, "Decode");
    decoded = (*decoder)->stats();
  }
  if (capture.manifest().backend == capture::Backend::kPt) {
    auto decoder = CreateDecoder(capture, timeline_, options);
    CheckOk(decoder.status(), "CreateDecoder");
    std::string note;
    CheckOk((*decoder)->CountInstructions(&note), "CountInstructions");
    const std::vector<StreamStats>& counted = (*decoder)->stats();
    HWT_FUZZ_CHECK(counted.size() == decoded.size(),
                   "CountInstructions: stream count differs from Decode");
    for (size_t i = 0; i < counted.size(); ++i) {
      const StreamStats& a = counted[i];
      const StreamStats& b = decoded[i];
      HWT_FUZZ_CHECK(a.trace_bytes == b.trace_bytes,
                     "CountInstructions: trace bytes differ from Decode");
      // Around a decode error libipt's own result depends on its history
      // (where it resynchronises, what its block cache holds when a PSB+
      // lacks the execution mode), so a run restarted at a PSB may count a
      // few instructions differently there: the counts must be exact when
      // the full decode found no error but overflows.
      if (b.errors != b.overflows) continue;
      HWT_FUZZ_CHECK(
          a.instructions == b.instructions && a.errors == b.errors &&
              a.overflows == b.overflows && a.bytes_lost == b.bytes_lost &&
              a.trace_bytes == b.trace_bytes,
          absl::StrFormat("CountInstructions differs from Decode on stream "
                          "%u: %u instructions, %u errors, %u overflows, %u "
                          "bytes lost instead of %u, %u, %u, %u (%s)",
                          i, a.instructions, a.errors, a.overflows,
                          a.bytes_lost, b.instructions, b.errors, b.overflows,
                          b.bytes_lost, note));
    }
  }
  {
    auto decoder = CreateDecoder(capture, timeline_, options);
    CheckOk(decoder.status(), "CreateDecoder");
    CheckingPacketSink sink((*decoder)->streams().size(), input_size);
    CheckOk((*decoder)->ListPackets(sink), "ListPackets");
    CheckStreamStats((*decoder)->stats(), input_size, deformatted,
                     "ListPackets");
  }
  return decoded;
}

void DecodeFixture::CheckEnginesAgree(const capture::Capture& capture,
                                      analysis::FunctionResolver& resolver) {
  std::string text[2];
  const DecoderEngine engines[2] = {DecoderEngine::kLibipt,
                                    DecoderEngine::kFast};
  for (int i = 0; i < 2; ++i) {
    analysis::CaptureProfileOptions options;
    options.jobs = 1;
    options.engine = engines[i];
    options.files = files_;
    auto profile =
        analysis::ProfileCapture(capture, timeline_, resolver, options);
    CheckOk(profile.status(), i == 0 ? "ProfileCapture (libipt engine)"
                                     : "ProfileCapture (fast engine)");
    text[i] = analysis::ProfileToText(profile->profile);
  }
  if (text[0] == text[1]) return;
  size_t line = 1;
  const size_t n = std::min(text[0].size(), text[1].size());
  for (size_t i = 0; i < n && text[0][i] == text[1][i]; ++i) {
    if (text[0][i] == '\n') ++line;
  }
  // Both profiles whole when they are small (fuzz inputs mostly give small
  // profiles), else the first line that differs.
  std::string both;
  if (text[0].size() + text[1].size() <= 64 * 1024) {
    both = absl::StrFormat(
        "\n--- profile through libipt:\n%s--- profile through the fast "
        "engine:\n%s---",
        text[0], text[1]);
  }
  Fail(absl::StrFormat(
      "the profile built through the fast engine differs from the one built "
      "through libipt on a trace decoded without errors (analysis::"
      "ProfileToText, %u against %u bytes), first at line %u:\n  libipt: "
      "%s\n  fast:   %s%s",
      text[0].size(), text[1].size(), line, LineOf(text[0], line),
      LineOf(text[1], line), both));
}

}  // namespace hwt::fuzz
