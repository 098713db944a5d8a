// The weight units of profiles; see weight_unit.h.
#include "report/naming/weight_unit.h"

namespace hwt::report {

WeightUnit TimeUnitOf(const analysis::Profile& profile, uint64_t timestamp_hz) {
  WeightUnit unit;
  unit.weight = Weight::kTime;
  if (profile.counts == analysis::ProfileCounts::kSamples) {
    unit.name = "cycles";  // the samples' latency
  } else if (timestamp_hz != 0) {
    unit.name = "ns";
    unit.scale = 1e9 / static_cast<double>(timestamp_hz);
    unit.speedscope_unit = "nanoseconds";
  } else {
    unit.name = "ticks";
  }
  return unit;
}

WeightUnit ChooseWeightUnit(bool use_time, const analysis::Profile& profile,
                            uint64_t timestamp_hz) {
  if (use_time && profile.has_time) return TimeUnitOf(profile, timestamp_hz);
  WeightUnit unit;
  if (profile.counts == analysis::ProfileCounts::kSamples)
    unit.name = "samples";
  return unit;
}

}  // namespace hwt::report
