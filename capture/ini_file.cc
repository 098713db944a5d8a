// The .ini tokenizer and field reads of the OpenCSD snapshot importer; see
// ini_file.h.
#include "capture/ini_file.h"

#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace hwt::capture::ini {

const Entry* Section::Find(std::string_view key) const {
  for (const Entry& e : entries) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

const Section* File::Find(std::string_view section) const {
  for (const Section& s : sections) {
    if (s.name == section) return &s;
  }
  return nullptr;
}

std::string Trim(std::string_view text, std::string_view chars) {
  size_t begin = text.find_first_not_of(chars);
  if (begin == std::string_view::npos) return "";
  size_t end = text.find_last_not_of(chars);
  return std::string(text.substr(begin, end - begin + 1));
}

absl::StatusOr<File> Parse(const std::string& name, std::string_view text) {
  File ini;
  ini.name = name;
  int line_number = 0;
  for (absl::string_view raw :
       absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    ++line_number;
    std::string_view line(raw.data(), raw.size());
    size_t cut = line.find_first_of("\r;#");
    if (cut != std::string_view::npos) line = line.substr(0, cut);
    std::string trimmed = Trim(line);
    if (trimmed.empty()) continue;
    if (trimmed.front() == '[') {
      size_t close = trimmed.find(']');
      if (close == std::string::npos) {
        return absl::InvalidArgumentError(
            absl::StrFormat("%s:%d: section header '%s' has no closing ']'",
                            name, line_number, trimmed));
      }
      Section section;
      section.name = Trim(std::string_view(trimmed).substr(1, close - 1));
      section.line = line_number;
      ini.sections.push_back(std::move(section));
      continue;
    }
    size_t eq = trimmed.find('=');
    if (eq == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s:%d: expected 'key=value' or '[section]', got '%s'", name,
          line_number, trimmed));
    }
    if (ini.sections.empty()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s:%d: '%s' comes before any [section] header", name,
                          line_number, trimmed));
    }
    Entry entry;
    entry.key = Trim(std::string_view(trimmed).substr(0, eq));
    entry.value = Trim(std::string_view(trimmed).substr(eq + 1));
    entry.line = line_number;
    ini.sections.back().entries.push_back(std::move(entry));
  }
  return ini;
}

std::string Where(const File& file, const Section& section) {
  return absl::StrFormat("%s: [%s]", file.name, section.name);
}

std::string Where(const File& file, const Section& section,
                  const Entry& entry) {
  return absl::StrFormat("%s:%d: [%s] %s", file.name, entry.line, section.name,
                         entry.key);
}

std::optional<uint64_t> ParseNumber(std::string_view text) {
  std::string s = Trim(text, " \t\"'");
  if (s.empty()) return std::nullopt;
  uint64_t value = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    if (absl::SimpleHexAtoi(s.substr(2), &value)) return value;
    return std::nullopt;
  }
  if (s.size() > 1 && s[0] == '0') {
    for (char c : s.substr(1)) {
      if (c < '0' || c > '7') return std::nullopt;
      if (value > (~uint64_t{0} >> 3)) return std::nullopt;
      value = value * 8 + static_cast<uint64_t>(c - '0');
    }
    return value;
  }
  if (absl::SimpleAtoi(s, &value)) return value;
  return std::nullopt;
}

absl::StatusOr<uint64_t> RequireNumber(const File& file, const Section& section,
                                       const Entry& entry) {
  auto value = ParseNumber(entry.value);
  if (!value) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: '%s' is not a number (expected decimal or 0x-hex)",
                        Where(file, section, entry), entry.value));
  }
  return *value;
}

absl::StatusOr<std::string> RequireKey(const File& file, const Section& section,
                                       std::string_view key) {
  const Entry* entry = section.Find(key);
  if (entry == nullptr || entry->value.empty()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: missing '%s' (section starts at line %d)",
                        Where(file, section), key, section.line));
  }
  return entry->value;
}

absl::Status RejectDuplicateKeys(const File& file, const Section& section) {
  std::set<std::string> seen;
  for (const Entry& e : section.entries) {
    if (!seen.insert(absl::AsciiStrToUpper(e.key)).second) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: key given twice (line %d)", Where(file, section, e), e.line));
    }
  }
  return absl::OkStatus();
}

}  // namespace hwt::capture::ini
