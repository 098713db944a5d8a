// The option table helpers; see option_table.h.
#include "report/driver/option_table.h"

#include <type_traits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace hwt::report {

std::vector<std::string> OptionNames(const OptionInfo& info) {
  std::string_view names = info.names;
  const size_t brace = names.find('{');
  if (brace != std::string_view::npos) names = names.substr(0, brace);
  std::vector<std::string> out;
  for (absl::string_view name :
       absl::StrSplit(absl::string_view(names.data(), names.size()), ',')) {
    out.emplace_back(name);
  }
  return out;
}

std::string CanonicalName(const OptionInfo& info) {
  std::vector<std::string> names = OptionNames(info);
  for (const std::string& name : names) {
    if (name.size() > 2 && name[0] == '-' && name[1] == '-') return name;
  }
  return names.empty() ? std::string() : names.front();
}

absl::Status SetOptionValue(const OptionTarget& target,
                            std::string_view value) {
  const absl::string_view text(value.data(), value.size());
  auto bad = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("not a value of the option's type: '", text, "'"));
  };
  if (auto* s = std::get_if<std::string*>(&target)) {
    **s = std::string(value);
  } else if (auto* n = std::get_if<size_t*>(&target)) {
    uint64_t v = 0;
    if (!absl::SimpleAtoi(text, &v)) return bad();
    **n = v;
  } else if (auto* i = std::get_if<int*>(&target)) {
    if (!absl::SimpleAtoi(text, *i)) return bad();
  } else if (auto* d = std::get_if<double*>(&target)) {
    if (!absl::SimpleAtod(text, *d)) return bad();
  } else if (auto* b = std::get_if<bool*>(&target)) {
    if (!absl::SimpleAtob(text, *b)) return bad();
  } else {
    return bad();  // optionals and lists have no default
  }
  return absl::OkStatus();
}

bool OptionSet(const OptionTarget& target, std::string_view default_value) {
  const absl::string_view text(default_value.data(), default_value.size());
  return std::visit(
      [&](auto* field) -> bool {
        using T = std::remove_pointer_t<decltype(field)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return *field != default_value;
        } else if constexpr (std::is_same_v<T, bool>) {
          return *field;
        } else if constexpr (std::is_same_v<T, std::optional<uint32_t>>) {
          return field->has_value();
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          return !field->empty();
        } else if constexpr (std::is_same_v<T, double>) {
          double d = 0;
          if (!text.empty() && !absl::SimpleAtod(text, &d)) d = 0;
          return *field != d;
        } else {
          int64_t n = 0;
          if (!text.empty() && !absl::SimpleAtoi(text, &n)) n = 0;
          return static_cast<int64_t>(*field) != n;
        }
      },
      target);
}

}  // namespace hwt::report
