// What a profile's weights are called and how they are shown: its counts
// (executed instructions, or a sampled profile's samples), or its time (a
// control-flow trace's timestamps, in ns when the frequency they count at is
// known, else in timestamp ticks; a sampled profile's samples' latency, in
// cycles).
#ifndef HWT_REPORT_NAMING_WEIGHT_UNIT_H_
#define HWT_REPORT_NAMING_WEIGHT_UNIT_H_

#include <cstdint>
#include <string>

#include "analysis/profile.h"
#include "report/naming/symbolized_profile.h"

namespace hwt::report {

struct WeightUnit {
  Weight weight = Weight::kInstructions;
  std::string name = "instructions";  // "samples", "ns", "ticks", "cycles"
  double scale = 1.0;                 // weights -> displayed values
  std::string speedscope_unit = "none";
};

// The profile's counts, or with `use_time`, when the profile has time, its
// time. `timestamp_hz`: the frequency the trace's timestamps count at (the
// capture's nominal CPU frequency: PT's TSC), 0 when unknown.
WeightUnit ChooseWeightUnit(bool use_time, const analysis::Profile& profile,
                            uint64_t timestamp_hz);

// The unit of the profile's time, whichever weight the outputs show (the
// exports and the HTML overview give both).
WeightUnit TimeUnitOf(const analysis::Profile& profile, uint64_t timestamp_hz);

}  // namespace hwt::report

#endif  // HWT_REPORT_NAMING_WEIGHT_UNIT_H_
