// Hex dumps as the test data and fuzz seeds write them: bytes as hex digits
// in whitespace-separated words ("b0 d0c2 ..."), '#' starting a comment that
// runs to the end of the line.
#ifndef HWT_BASE_HEX_DUMP_H_
#define HWT_BASE_HEX_DUMP_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace hwt {

// The bytes of `text`; an error naming the line when a word is not an even
// number of hex digits.
absl::StatusOr<std::string> ParseHexDump(std::string_view text);

}  // namespace hwt

#endif  // HWT_BASE_HEX_DUMP_H_
