// The ground truth of the export round-trip tests: the profile's own counts
// of a capture (total instructions; per instruction and per taken branch of
// the export image; per function of every image), computed in-process by
// the same profile pipeline hwt-report runs, for comparing with what each
// consumer read from hwt-report's export files.
#ifndef HWT_TESTS_EXPORT_TESTING_EXPORT_SUMMARY_H_
#define HWT_TESTS_EXPORT_TESTING_EXPORT_SUMMARY_H_

#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace hwt::export_test {

// {"instructions": N, "image": PATH,
//  "insns": [[vaddr, count, length, conditional, taken, not_taken], ...],
//  "branches": [[from, to, count], ...]  (both ends in the image),
//  "functions": [{"name", "image" (in the export image), "start", "self",
//                 "total", "calls"}, ...]}
// `only_image`: as hwt-report's --only-image ("" = the main executable).
absl::StatusOr<nlohmann::json> ProfileSummary(const std::string& capture,
                                              const std::string& only_image);

}  // namespace hwt::export_test

#endif  // HWT_TESTS_EXPORT_TESTING_EXPORT_SUMMARY_H_
