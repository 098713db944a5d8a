// CreateDecoder(): picks the decoder for a capture's backend.
// Each backend is one case here; its decoder lives in its own folder.
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "base/threads.h"
#include "decoders/coresight/coresight_decoder.h"
#include "decoders/decoder.h"
#include "decoders/pt/pt_decoder.h"
#include "decoders/spe/trace_decoder.h"

namespace hwt {

absl::StatusOr<std::unique_ptr<TraceDecoder>> CreateDecoder(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& address_space,
    const DecoderOptions& requested) {
  // Resolved here once, so that every backend reads jobs = 0 the same way.
  DecoderOptions options = requested;
  options.jobs = ResolveJobs(requested.jobs);
  const capture::Backend backend = capture.manifest().backend;
  switch (backend) {
    case capture::Backend::kPt: {
      pt::PtDecoderOptions pt_options;
      pt_options.jobs = options.jobs;
      pt_options.segment_bytes = options.segment_bytes;
      pt_options.files = options.files;
      pt_options.fast = options.engine == DecoderEngine::kFast;
      HWT_ASSIGN_OR_RETURN(
          std::unique_ptr<pt::PtDecoder> decoder,
          pt::PtDecoder::Create(capture, address_space, pt_options));
      return std::unique_ptr<TraceDecoder>(std::move(decoder));
    }
    case capture::Backend::kCoreSight:
      return coresight::CreateCoreSightDecoder(capture, address_space, options);
    case capture::Backend::kSpe: {
      // Samples, not control flow: decoded in one pass, buffer by buffer
      // (jobs, segments and the image files do not apply).
      HWT_ASSIGN_OR_RETURN(std::unique_ptr<spe::SpeTraceDecoder> decoder,
                           spe::SpeTraceDecoder::Create(capture));
      return std::unique_ptr<TraceDecoder>(std::move(decoder));
    }
    case capture::Backend::kUnknown:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrFormat("%s: unknown trace backend '%s'", capture.source_path(),
                      capture::BackendName(backend)));
}

}  // namespace hwt
