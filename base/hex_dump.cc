// Hex dump parsing; see hex_dump.h.
#include "base/hex_dump.h"

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace hwt {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

}  // namespace

absl::StatusOr<std::string> ParseHexDump(std::string_view text) {
  std::string bytes;
  int line = 1;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (IsSpace(c)) {
      ++i;
      continue;
    }
    if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    const size_t start = i;
    while (i < text.size() && !IsSpace(text[i]) && text[i] != '#') ++i;
    const std::string_view word = text.substr(start, i - start);
    if (word.size() % 2 != 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "hex dump line %d: '%s' is not a whole number of bytes", line, word));
    }
    for (size_t k = 0; k < word.size(); k += 2) {
      const int high = HexDigit(word[k]);
      const int low = HexDigit(word[k + 1]);
      if (high < 0 || low < 0) {
        return absl::InvalidArgumentError(
            absl::StrFormat("hex dump line %d: '%s' is not hex", line, word));
      }
      bytes.push_back(static_cast<char>(high << 4 | low));
    }
  }
  return bytes;
}

}  // namespace hwt
