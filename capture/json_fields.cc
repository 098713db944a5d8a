// Implementation of the validating JSON field reader; see json_fields.h.
#include "capture/json_fields.h"

#include <limits>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/json_text.h"

namespace hwt::capture {
namespace {

constexpr size_t kSnippetLimit = 48;

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// nlohmann's messages start with "[json.exception.parse_error.101] parse
// error at line 3, column 5: ..."; keep the part a user can act on.
std::string CleanParseMessage(const std::string& what) {
  std::string message = what;
  size_t close = message.find("] ");
  if (message.rfind("[json.exception.", 0) == 0 && close != std::string::npos) {
    message = message.substr(close + 2);
  }
  if (message.rfind("parse error at ", 0) == 0) {
    message = message.substr(strlen("parse error at "));
  }
  return message;
}

}  // namespace

std::string HexString(uint64_t value) { return absl::StrFormat("0x%x", value); }

std::optional<uint64_t> ParseHexString(std::string_view text) {
  if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X'))
    return std::nullopt;
  std::string_view digits = text.substr(2);
  if (digits.size() > 16) return std::nullopt;
  uint64_t value = 0;
  for (char c : digits) {
    int digit = HexDigit(c);
    if (digit < 0) return std::nullopt;
    value = (value << 4) | static_cast<uint64_t>(digit);
  }
  return value;
}

std::string JsonSnippet(const Json& value) {
  std::string text = JsonText(value, JsonLayout::kOneLine);
  if (text.size() > kSnippetLimit) {
    text = absl::StrCat(text.substr(0, kSnippetLimit), "...");
  }
  return text;
}

namespace {

// Manifests and records nest a few levels; nlohmann's printer (used for the
// snippets in error messages) recurses once per level, so JSON nested
// 100 000 deep would overflow the stack. Found by tests/hostile.
constexpr int kMaxJsonDepth = 64;

// The offset of the first bracket nested deeper than kMaxJsonDepth, if any.
std::optional<size_t> TooDeep(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<Json> ParseJsonText(std::string_view text,
                                   std::string_view where) {
  if (const std::optional<size_t> at = TooDeep(text)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: not valid JSON: nested deeper than %d levels at offset %u", where,
        kMaxJsonDepth, *at));
  }
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::exception& error) {
    // parse_error, and out_of_range for numbers no double can hold.
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(where),
                     ": not valid JSON: ", CleanParseMessage(error.what())));
  }
}

absl::StatusOr<uint64_t> JsonToU64(const Json& value) {
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (value.is_number_integer()) {
    int64_t v = value.get<int64_t>();
    if (v >= 0) return static_cast<uint64_t>(v);
  }
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    std::optional<uint64_t> parsed = ParseHexString(text);
    if (parsed) return *parsed;
    return absl::InvalidArgumentError(absl::StrCat(
        "expected an unsigned integer or a \"0x...\" hex string of 1 to 16 "
        "digits, got ",
        JsonSnippet(value)));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("expected an unsigned integer, got ", JsonSnippet(value)));
}

absl::StatusOr<JsonObjectReader> JsonObjectReader::Create(const Json& value,
                                                          std::string where,
                                                          std::string path) {
  if (!value.is_object()) {
    std::string prefix = path.empty() ? where : absl::StrCat(where, ": ", path);
    return absl::InvalidArgumentError(absl::StrCat(
        prefix, ": expected a JSON object, got ", JsonSnippet(value)));
  }
  return JsonObjectReader(&value, std::move(where), std::move(path));
}

bool JsonObjectReader::Has(std::string_view key) const {
  auto it = object_->find(std::string(key));
  return it != object_->end() && !it->is_null();
}

std::string JsonObjectReader::PathOf(std::string_view key) const {
  if (path_.empty()) return std::string(key);
  if (key.empty()) return path_;
  return absl::StrCat(path_, ".", std::string(key));
}

absl::Status JsonObjectReader::Error(std::string_view key,
                                     std::string_view message) const {
  std::string path = PathOf(key);
  if (path.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where_, ": ", std::string(message)));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(where_, ": ", path, ": ", std::string(message)));
}

absl::StatusOr<const Json*> JsonObjectReader::Find(std::string_view key,
                                                   bool required) const {
  auto it = object_->find(std::string(key));
  if (it == object_->end() || it->is_null()) {
    if (required) return Error(key, "missing required field");
    return nullptr;
  }
  return &*it;
}

absl::Status JsonObjectReader::U64(std::string_view key, uint64_t* out,
                                   bool required) const {
  auto found = Find(key, required);
  if (!found.ok()) return found.status();
  if (*found == nullptr) return absl::OkStatus();
  absl::StatusOr<uint64_t> value = JsonToU64(**found);
  if (!value.ok()) return Error(key, std::string(value.status().message()));
  *out = *value;
  return absl::OkStatus();
}

absl::Status JsonObjectReader::U32(std::string_view key, uint32_t* out,
                                   bool required) const {
  uint64_t value = 0;
  auto found = Find(key, required);
  if (!found.ok()) return found.status();
  if (*found == nullptr) return absl::OkStatus();
  absl::StatusOr<uint64_t> parsed = JsonToU64(**found);
  if (!parsed.ok()) return Error(key, std::string(parsed.status().message()));
  value = *parsed;
  if (value > std::numeric_limits<uint32_t>::max()) {
    return Error(key, absl::StrCat("expected an unsigned 32-bit integer, got ",
                                   JsonSnippet(**found)));
  }
  *out = static_cast<uint32_t>(value);
  return absl::OkStatus();
}

absl::Status JsonObjectReader::NonNegativeI32(std::string_view key,
                                              std::optional<int32_t>* out,
                                              bool required) const {
  auto found = Find(key, required);
  if (!found.ok()) return found.status();
  if (*found == nullptr) return absl::OkStatus();
  absl::StatusOr<uint64_t> parsed = JsonToU64(**found);
  if (!parsed.ok()) {
    return Error(key, absl::StrCat("expected a non-negative integer, got ",
                                   JsonSnippet(**found)));
  }
  if (*parsed > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    return Error(key,
                 absl::StrCat("expected a non-negative 32-bit integer, got ",
                              JsonSnippet(**found)));
  }
  *out = static_cast<int32_t>(*parsed);
  return absl::OkStatus();
}

absl::Status JsonObjectReader::I32(std::string_view key,
                                   std::optional<int32_t>* out,
                                   bool required) const {
  auto found = Find(key, required);
  if (!found.ok()) return found.status();
  if (*found == nullptr) return absl::OkStatus();
  const Json& value = **found;
  if (!value.is_number_integer()) {
    return Error(key,
                 absl::StrCat("expected an integer, got ", JsonSnippet(value)));
  }
  const bool fits =
      value.is_number_unsigned()
          ? value.get<uint64_t>() <=
                static_cast<uint64_t>(std::numeric_limits<int32_t>::max())
          : value.get<int64_t>() >= std::numeric_limits<int32_t>::min() &&
                value.get<int64_t>() <= std::numeric_limits<int32_t>::max();
  if (!fits) {
    return Error(key, absl::StrCat("expected a 32-bit integer, got ",
                                   JsonSnippet(value)));
  }
  *out = static_cast<int32_t>(value.get<int64_t>());
  return absl::OkStatus();
}

absl::Status JsonObjectReader::NonNegativeI64(std::string_view key,
                                              std::optional<int64_t>* out,
                                              bool required) const {
  auto found = Find(key, required);
  if (!found.ok()) return found.status();
  if (*found == nullptr) return absl::OkStatus();
  absl::StatusOr<uint64_t> parsed = JsonToU64(**found);
  if (!parsed.ok() ||
      *parsed > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Error(key, absl::StrCat("expected a non-negative integer, got ",
                                   JsonSnippet(**found)));
  }
  *out = static_cast<int64_t>(*parsed);
  return absl::OkStatus();
}

absl::Status JsonObjectReader::String(std::string_view key, std::string* out,
                                      bool required) const {
  auto found = Find(key, required);
  if (!found.ok()) return found.status();
  if (*found == nullptr) return absl::OkStatus();
  if (!(*found)->is_string()) {
    return Error(key,
                 absl::StrCat("expected a string, got ", JsonSnippet(**found)));
  }
  *out = (*found)->get<std::string>();
  return absl::OkStatus();
}

absl::Status JsonObjectReader::Bool(std::string_view key, bool* out,
                                    bool required) const {
  auto found = Find(key, required);
  if (!found.ok()) return found.status();
  if (*found == nullptr) return absl::OkStatus();
  if (!(*found)->is_boolean()) {
    return Error(key, absl::StrCat("expected true or false, got ",
                                   JsonSnippet(**found)));
  }
  *out = (*found)->get<bool>();
  return absl::OkStatus();
}

absl::StatusOr<const Json*> JsonObjectReader::Array(std::string_view key,
                                                    bool required) const {
  auto found = Find(key, required);
  if (!found.ok()) return found.status();
  if (*found == nullptr) return nullptr;
  if (!(*found)->is_array()) {
    return Error(key,
                 absl::StrCat("expected an array, got ", JsonSnippet(**found)));
  }
  return *found;
}

absl::StatusOr<std::optional<JsonObjectReader>> JsonObjectReader::Object(
    std::string_view key, bool required) const {
  auto found = Find(key, required);
  if (!found.ok()) return found.status();
  if (*found == nullptr) return std::optional<JsonObjectReader>();
  if (!(*found)->is_object()) {
    return Error(
        key, absl::StrCat("expected an object, got ", JsonSnippet(**found)));
  }
  return std::optional<JsonObjectReader>(
      JsonObjectReader(*found, where_, PathOf(key)));
}

absl::StatusOr<JsonObjectReader> JsonObjectReader::Element(std::string_view key,
                                                           const Json& array,
                                                           size_t index) const {
  std::string path = absl::StrCat(PathOf(key), "[", index, "]");
  const Json& element = array[index];
  if (!element.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(where_, ": ", path,
                                                   ": expected an object, got ",
                                                   JsonSnippet(element)));
  }
  return JsonObjectReader(&element, where_, std::move(path));
}

}  // namespace hwt::capture
