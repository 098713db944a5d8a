// The "top" table: functions by their own weight and by total weight
// (recursion counted once), with shares and the calls that entered them.
#ifndef HWT_REPORT_PROFILE_TOP_TABLE_H_
#define HWT_REPORT_PROFILE_TOP_TABLE_H_

#include <string>

#include "analysis/tree_functions.h"
#include "nlohmann/json.hpp"
#include "report/naming/symbolized_profile.h"
#include "report/tree/profile_filter.h"

namespace hwt::report {

struct TopOptions {
  size_t rows = 20;  // per table; 0 = all
  std::string count_name = "instructions";
  Weight weight = Weight::kInstructions;
  double scale = 1.0;
};

std::string RenderTopTable(const analysis::TreeFunctions& functions,
                           ProfileNames& names, const TopOptions& options);
nlohmann::json TopTableJson(const analysis::TreeFunctions& functions,
                            ProfileNames& names, const TopOptions& options);

}  // namespace hwt::report

#endif  // HWT_REPORT_PROFILE_TOP_TABLE_H_
