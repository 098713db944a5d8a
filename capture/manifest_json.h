// Manifest <-> manifest.json (docs/capture-format.md is the specification).
// Reading takes the fields out of the JSON (types, required fields, enum
// names) and then validates the values (manifest_validate.h, included here:
// writers and readers share ValidateManifest so that no writer can produce a
// bundle a reader rejects); every error names the file and the field path.
// Writing produces what reading accepts.
#ifndef HWT_CAPTURE_MANIFEST_JSON_H_
#define HWT_CAPTURE_MANIFEST_JSON_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "capture/manifest.h"
#include "capture/manifest_validate.h"

namespace hwt::capture {

// The value of the manifest's "format" field.
inline constexpr std::string_view kManifestFormatName = "hwt-capture";

// "upstream" / "cheribsd".
std::string_view RecordNumberingName(RecordNumbering numbering);
std::optional<RecordNumbering> ParseRecordNumbering(std::string_view name);
std::optional<TraceMode> ParseTraceMode(std::string_view name);

struct FormatVersion {
  int major = 0;
  int minor = 0;
};
// Parses "MAJOR.MINOR" (decimal, no sign, no spaces).
std::optional<FormatVersion> ParseFormatVersion(std::string_view text);
// OK for 1.x; an InvalidArgument error otherwise ("capture format 2.0 is newer
// than this hwt (reads 1.x); upgrade hwt").
absl::Status CheckFormatVersion(const FormatVersion& version,
                                std::string_view where);

// The manifest as JSON text: pretty printed, keys in specification order,
// 64-bit values as "0x..." strings, ends with a newline. Always written as
// the current format version (kFormatMajorVersion.kFormatMinorVersion).
std::string ManifestToJson(const Manifest& manifest);

// Parses and validates manifest.json text. `where` names the file in errors
// ("x.hwt/manifest.json"). Unknown fields are ignored; a newer minor version
// is read, a newer major version refused. Does not look at the file system
// (see ValidateManifestFiles).
absl::StatusOr<Manifest> ParseManifest(std::string_view text,
                                       std::string_view where);

}  // namespace hwt::capture

#endif  // HWT_CAPTURE_MANIFEST_JSON_H_
