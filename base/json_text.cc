// JSON string literals for streamed outputs; see json_text.h.
#include "base/json_text.h"

namespace hwt {

std::string JsonQuoted(std::string_view text) {
  return JsonText(nlohmann::json(std::string(text)), JsonLayout::kOneLine);
}

}  // namespace hwt
