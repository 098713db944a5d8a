// The tokenizer of the OpenCSD snapshot importer: .ini text into sections and
// key=value entries that remember their line, in the dialect OpenCSD's
// snapshot parser accepts, plus the typed field reads whose errors name the
// file, line, section and key. Building a capture from the entries is the
// parser's work (opencsd_snapshot.cc).
#ifndef HWT_CAPTURE_INI_FILE_H_
#define HWT_CAPTURE_INI_FILE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace hwt::capture::ini {

struct Entry {
  std::string key;
  std::string value;
  int line = 0;
};

struct Section {
  std::string name;
  int line = 0;
  std::vector<Entry> entries;

  // The first entry named `key`, or null.
  const Entry* Find(std::string_view key) const;
};

struct File {
  std::string name;  // as the caller names it in messages
  std::vector<Section> sections;

  // The first section named `section`, or null.
  const Section* Find(std::string_view section) const;
};

// Splits `text`: lines are "[section]" or "key=value" (both trimmed of
// blanks); ';' and '#' start a comment anywhere on a line (as in OpenCSD's
// parser); "\r" ends a line. Errors name "NAME:LINE:": a section header
// without ']', a line that is neither, an entry before any section.
absl::StatusOr<File> Parse(const std::string& name, std::string_view text);

// `text` without leading and trailing `chars`.
std::string Trim(std::string_view text, std::string_view chars = " \t");

// Positions for messages: "NAME: [SECTION]" and "NAME:LINE: [SECTION] KEY".
std::string Where(const File& file, const Section& section);
std::string Where(const File& file, const Section& section, const Entry& entry);

// Numbers as OpenCSD reads them (strtoul base 0): 0x-hex, 0-octal, decimal,
// optionally quoted; nullopt when not a number or out of range.
std::optional<uint64_t> ParseNumber(std::string_view text);

// The entry's value as a number; the error names the entry.
absl::StatusOr<uint64_t> RequireNumber(const File& file, const Section& section,
                                       const Entry& entry);

// The non-empty value of `key`; the error names the section and its line.
absl::StatusOr<std::string> RequireKey(const File& file, const Section& section,
                                       std::string_view key);

// An error for the second of two keys that differ only in case.
absl::Status RejectDuplicateKeys(const File& file, const Section& section);

}  // namespace hwt::capture::ini

#endif  // HWT_CAPTURE_INI_FILE_H_
