// Small formatting helpers the report renderers share: XML escaping,
// thousands separators, hex, percentages, and a text table with aligned
// columns.
#ifndef HWT_REPORT_COMMON_TEXT_UTIL_H_
#define HWT_REPORT_COMMON_TEXT_UTIL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hwt::report {

// &, <, >, " and ' escaped; control characters other than tab/newline
// dropped (not allowed in XML 1.0).
std::string XmlEscape(std::string_view text);

// "1,234,567".
std::string Thousands(uint64_t value);

// Thousands(round(value x scale)).
std::string ScaledCount(uint64_t value, double scale);

// "0x1a2b".
std::string Hex(uint64_t value);

// "12.34%" (of `total`; "-" when total is 0), with `decimals` digits.
std::string Percent(uint64_t part, uint64_t total, int decimals = 2);

// Columns of text, each right- or left-aligned, padded to the widest cell.
class TextTable {
 public:
  enum class Align { kLeft, kRight };
  explicit TextTable(std::vector<Align> columns) : align_(std::move(columns)) {}
  void AddRow(std::vector<std::string> cells);
  // The rows, each after `indent`, two spaces between columns, trailing
  // spaces trimmed.
  std::string Render(std::string_view indent = "") const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace hwt::report

#endif  // HWT_REPORT_COMMON_TEXT_UTIL_H_
