// Answers for CPUID (by leaf and subleaf) and XGETBV that a recorder gives
// the traced program instead of the host's, so that a ptrace recording takes
// the same paths (glibc's ifunc choices, cache sizes) as a run under valgrind,
// which answers CPUID as an Intel CPU of its own choosing.
#ifndef HWT_RECORDER_CPUID_TABLE_H_
#define HWT_RECORDER_CPUID_TABLE_H_

#include <cstdint>
#include <iterator>
#include <map>
#include <optional>

#include "capture/manifest.h"

namespace hwt::recorder {

struct CpuidAnswer {
  uint32_t eax = 0;
  uint32_t ebx = 0;
  uint32_t ecx = 0;
  uint32_t edx = 0;
};

class CpuidTable {
 public:
  void Set(uint32_t leaf, uint32_t subleaf, const CpuidAnswer& answer) {
    leaves_[leaf][subleaf] = answer;
  }

  // The answer for (leaf, subleaf): the one recorded for the closest subleaf
  // at or below it (a table lists a subleaf only where the answer changes:
  // most leaves ignore ECX, which programs often leave uninitialised, and
  // past the enumerated subleaves answers stay the same). nullopt for a leaf
  // that was never recorded.
  std::optional<CpuidAnswer> Lookup(uint32_t leaf, uint32_t subleaf) const {
    auto it = leaves_.find(leaf);
    if (it == leaves_.end()) return std::nullopt;
    auto sub = it->second.upper_bound(subleaf);
    if (sub == it->second.begin()) return std::nullopt;
    return std::prev(sub)->second;
  }

  size_t size() const {
    size_t n = 0;
    for (const auto& [leaf, subleaves] : leaves_) n += subleaves.size();
    return n;
  }
  bool empty() const { return leaves_.empty(); }

  // XCR0 as XGETBV(0) returns it; nullopt: XGETBV is not emulated.
  std::optional<uint64_t> xcr0;

 private:
  std::map<uint32_t, std::map<uint32_t, CpuidAnswer>> leaves_;
};

// CPUID on this machine.
CpuidAnswer HostCpuid(uint32_t leaf, uint32_t subleaf);

// The identity (vendor, display family/model/stepping, leaf 0x15) of the CPU
// a table describes, or of this machine.
capture::CpuIdentity CpuIdentityFromTable(const CpuidTable& table);
capture::CpuIdentity HostCpuIdentity();

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_CPUID_TABLE_H_
