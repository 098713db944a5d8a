// Formatting helpers; see text_util.h.
#include "report/common/text_util.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hwt::report {

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') {
          break;
        }
        out += c;
    }
  }
  return out;
}

std::string Thousands(uint64_t value) {
  const std::string digits = absl::StrCat(value);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string ScaledCount(uint64_t value, double scale) {
  if (scale == 1.0) return Thousands(value);
  return Thousands(static_cast<uint64_t>(std::llround(value * scale)));
}

std::string Percent(uint64_t part, uint64_t total, int decimals) {
  if (total == 0) return "-";
  return absl::StrFormat("%.*f%%", decimals, 100.0 * part / total);
}

std::string Hex(uint64_t value) { return absl::StrFormat("0x%x", value); }

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(align_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::Render(std::string_view indent) const {
  std::vector<size_t> widths(align_.size(), 0);
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size(); ++c) {
      widths[c] = std::max(widths[c], row[c].size());
    }
  }
  std::string out;
  for (const auto& row : rows_) {
    std::string line(indent);
    for (size_t c = 0; c < row.size(); ++c) {
      if (c != 0) line += "  ";
      const size_t pad = widths[c] - row[c].size();
      if (align_[c] == Align::kRight) line.append(pad, ' ');
      line += row[c];
      if (align_[c] == Align::kLeft) line.append(pad, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace hwt::report
