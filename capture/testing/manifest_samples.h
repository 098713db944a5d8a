// Test helpers for the capture format: manifests and records with every field
// set to a distinct non-default value, and field-by-field comparisons that
// name the field that differs.
#ifndef HWT_CAPTURE_TESTING_MANIFEST_SAMPLES_H_
#define HWT_CAPTURE_TESTING_MANIFEST_SAMPLES_H_

#include <vector>

#include "capture/manifest.h"
#include "capture/record.h"

namespace hwt::capture {

Manifest FullPtManifest();
Manifest FullCoreSightManifest();
Manifest FullSpeManifest();
// One record of every type valid in `numbering`, every field set.
std::vector<Record> AllRecordTypes(RecordNumbering numbering);

void ExpectSameManifest(const Manifest& actual, const Manifest& expected);
void ExpectSameRecords(const std::vector<Record>& actual,
                       const std::vector<Record>& expected);

}  // namespace hwt::capture

#endif  // HWT_CAPTURE_TESTING_MANIFEST_SAMPLES_H_
