// Typed, validating access to the fields of a JSON object, shared by the
// manifest and records readers. Every error names the file, the field path
// ("buffers[2].size") and what was found instead, e.g.
//   x.hwt/manifest.json: buffers[2].size: expected an unsigned integer, got -5
// 64-bit values are read from a JSON number or a "0x..." hex string (numbers
// above 2^53 lose precision in many JSON tools, so writers use the string).
#ifndef HWT_CAPTURE_JSON_FIELDS_H_
#define HWT_CAPTURE_JSON_FIELDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace hwt::capture {

using Json = nlohmann::ordered_json;

// "0x" followed by lowercase hex digits.
std::string HexString(uint64_t value);
// Parses "0x..."/"0X..." with 1 to 16 hex digits; nullopt otherwise.
std::optional<uint64_t> ParseHexString(std::string_view text);

// A short rendering of a JSON value for error messages (truncated).
std::string JsonSnippet(const Json& value);

// Parses JSON text; errors say "WHERE: not valid JSON: line L, column C: ..."
// (`where` is the file, or "file:line" for one line of a JSON-lines file).
absl::StatusOr<Json> ParseJsonText(std::string_view text,
                                   std::string_view where);

// A view of one JSON object at a field path, with typed getters. Optional
// getters leave the output untouched when the key is absent or null.
class JsonObjectReader {
 public:
  // `where` prefixes every error ("x.hwt/manifest.json" or
  // "x.hwt/records.jsonl:17"); `path` is the object's own field path ("" for
  // the top level, "buffers[2]").
  static absl::StatusOr<JsonObjectReader> Create(const Json& value,
                                                 std::string where,
                                                 std::string path);

  bool Has(std::string_view key) const;
  // "buffers[2].size" for key "size".
  std::string PathOf(std::string_view key) const;
  // An InvalidArgument error "WHERE: PATH.KEY: message" (or "WHERE: PATH:
  // message" when key is empty).
  absl::Status Error(std::string_view key, std::string_view message) const;

  absl::Status U64(std::string_view key, uint64_t* out,
                   bool required = false) const;
  absl::Status U32(std::string_view key, uint32_t* out,
                   bool required = false) const;
  // A non-negative value that fits in int32_t.
  absl::Status NonNegativeI32(std::string_view key, std::optional<int32_t>* out,
                              bool required = false) const;
  absl::Status NonNegativeI64(std::string_view key, std::optional<int64_t>* out,
                              bool required = false) const;
  // Any integer that fits in int32_t (perf uses pid -1 for the kernel).
  absl::Status I32(std::string_view key, std::optional<int32_t>* out,
                   bool required = false) const;
  absl::Status String(std::string_view key, std::string* out,
                      bool required = false) const;
  absl::Status Bool(std::string_view key, bool* out,
                    bool required = false) const;
  // The array at `key`, or nullptr when absent (and not required).
  absl::StatusOr<const Json*> Array(std::string_view key,
                                    bool required = false) const;
  // The object at `key` as a reader, or nullopt when absent (and not
  // required).
  absl::StatusOr<std::optional<JsonObjectReader>> Object(
      std::string_view key, bool required = false) const;
  // A reader for element `index` of the array found at `key`.
  absl::StatusOr<JsonObjectReader> Element(std::string_view key,
                                           const Json& array,
                                           size_t index) const;

  const Json& json() const { return *object_; }
  const std::string& where() const { return where_; }
  const std::string& path() const { return path_; }

 private:
  JsonObjectReader(const Json* object, std::string where, std::string path)
      : object_(object), where_(std::move(where)), path_(std::move(path)) {}
  // The value at key, nullptr when absent or null; error when required.
  absl::StatusOr<const Json*> Find(std::string_view key, bool required) const;

  const Json* object_;
  std::string where_;
  std::string path_;
};

// Reads an unsigned integer from a JSON value (number or hex string).
absl::StatusOr<uint64_t> JsonToU64(const Json& value);

}  // namespace hwt::capture

#endif  // HWT_CAPTURE_JSON_FIELDS_H_
