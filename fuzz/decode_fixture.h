// A fixed capture (code images, CPU, configuration) whose trace buffer is
// replaced by each fuzz input, and the checks every control-flow decode must
// pass whatever the bytes: Decode() and ListPackets() succeed (decode
// problems are gaps and statistics, not errors), every stream ends once,
// event and packet offsets lie inside the buffer, and every input byte is
// accounted for (trace_bytes == bytes_decoded + bytes_lost), and a stream
// that lost every byte makes the decode a failure (DecodeFailed). For Intel PT,
// the fast instruction count (TraceDecoder::CountInstructions) must also
// give exactly Decode()'s instructions, errors, overflows and lost bytes
// when Decode() found no error but overflows (around a decode error libipt's
// own result depends on where it resynchronised and on its block cache), and
// on such traces the profile built through the fast engine must equal the
// one built through libipt (CheckEnginesAgree).
#ifndef HWT_FUZZ_DECODE_FIXTURE_H_
#define HWT_FUZZ_DECODE_FIXTURE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "analysis/function_resolver.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "decoders/decoder.h"

namespace hwt::fuzz {

class DecodeFixture {
 public:
  // Takes the base capture (its buffer `buffer_index` is the one replaced)
  // and builds its address-space timeline once; aborts on failure.
  DecodeFixture(std::unique_ptr<capture::Capture> base, size_t buffer_index);

  // A capture like the base one whose buffer is `bytes` (written to a scratch
  // file), cut into `chunks` (empty: one chunk).
  std::unique_ptr<capture::Capture> WithTrace(
      absl::Span<const uint8_t> bytes,
      std::vector<capture::BufferChunk> chunks = {});

  const capture::Capture& base() const { return *base_; }
  const capture::AddressSpaceTimeline& timeline() const { return timeline_; }

  // Creates the decoder for `capture`, decodes and lists packets, checking
  // the invariants above; aborts on a violation. `deformatted`: the
  // decoder's trace_bytes exclude framing (CoreSight formatted buffers), so
  // their sum is at most the input size instead of equal to it. Returns
  // Decode()'s per-stream statistics.
  std::vector<StreamStats> DecodeAndCheck(const capture::Capture& capture,
                                          uint64_t input_size, bool deformatted,
                                          const DecoderOptions& options = {});

  // Intel PT: profiles `capture` as hwt-report does (analysis::ProfileCapture,
  // one job, hot paths on) once with DecoderEngine::kFast and once with
  // kLibipt, and aborts unless the two profiles' complete text forms
  // (analysis::ProfileToText: every call tree, counter, block, edge, path and
  // the statistics) are byte-identical. Call it only for traces that decoded
  // without an error but overflows (NoErrorButOverflows): around decode
  // errors the two may differ (decoders/pt/pt_fast_count.h).
  void CheckEnginesAgree(const capture::Capture& capture,
                         analysis::FunctionResolver& resolver);

 private:
  std::unique_ptr<capture::Capture> base_;
  size_t buffer_index_;
  capture::AddressSpaceTimeline timeline_;
  std::string trace_path_;
  // The code images, mapped once for every profile of every input.
  std::shared_ptr<ImageFileCache> files_;
};

// Whether no stream of a decode found an error other than an overflow.
bool NoErrorButOverflows(const std::vector<StreamStats>& stats);

// Checks per-stream statistics; aborts on a violation.
void CheckStreamStats(const std::vector<StreamStats>& stats,
                      uint64_t input_size, bool deformatted, const char* what);

}  // namespace hwt::fuzz

#endif  // HWT_FUZZ_DECODE_FIXTURE_H_
