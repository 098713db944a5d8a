// The one way the toolkit writes JSON text: every report, listing, manifest,
// summary and export that prints JSON goes through JsonText (a document) or
// JsonQuoted (one string, for outputs written as a stream because a DOM of
// millions of events would not fit comfortably).
//
// Why one writer: nlohmann's dump() throws on a string that is not valid
// UTF-8 unless told otherwise, and symbol names, command lines and paths
// come from ELF files and captures that nobody vouches for. Here invalid
// bytes become U+FFFD, so a hostile symbol name costs a character, never the
// run. Non-ASCII text is written as UTF-8 (not \u escapes), keys keep the
// document's order, and an indented document ends with a newline so files
// and stdout end cleanly.
#ifndef HWT_BASE_JSON_TEXT_H_
#define HWT_BASE_JSON_TEXT_H_

#include <string>
#include <string_view>

#include "nlohmann/json.hpp"

namespace hwt {

enum class JsonLayout {
  kIndented,  // two-space indent, one value per line, a final newline
  kOneLine,   // compact, no newline (a JSON-lines row, an embedded model)
};

// Works for nlohmann::json and nlohmann::ordered_json alike.
template <typename BasicJson>
std::string JsonText(const BasicJson& value, JsonLayout layout) {
  const bool indented = layout == JsonLayout::kIndented;
  std::string text = value.dump(indented ? 2 : -1, ' ', /*ensure_ascii=*/false,
                                BasicJson::error_handler_t::replace);
  if (indented) text += '\n';
  return text;
}

// `text` as a JSON string literal, quotes included.
std::string JsonQuoted(std::string_view text);

}  // namespace hwt

#endif  // HWT_BASE_JSON_TEXT_H_
