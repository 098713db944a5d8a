// Debug descriptions of frame keys.
#include "analysis/frame.h"

#include "absl/strings/str_format.h"

namespace hwt::analysis {

std::string DescribeFrameKey(const FrameKey& key) {
  switch (key.kind) {
    case FrameKind::kFunction:
      return absl::StrFormat("fn %u:0x%x", key.image, key.start);
    case FrameKind::kUnknownCode:
      return absl::StrFormat("code %u:0x%x", key.image, key.start);
    case FrameKind::kUnknown:
      return "[unknown]";
    case FrameKind::kGap:
      return "[gap]";
  }
  return "?";
}

}  // namespace hwt::analysis
