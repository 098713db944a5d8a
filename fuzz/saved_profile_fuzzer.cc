// Fuzzes the saved profile reader (analysis/saved/profile_file.h): the
// magic, the zstd stream, the chunk lengths, the protobuf chunks and the
// validation of every index and order. Seeds: a profile with every field set
// (analysis/saved/testing), written at start-up, and its truncations.
//
// Checks: no crash, no hang; a refusal names the file; an accepted profile
// passes ValidateProfile and survives a round trip (serialize, parse,
// serialize: the same bytes).
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/saved/profile_file.h"
#include "analysis/saved/testing/saved_profiles.h"
#include "fuzz/fuzz_support.h"

namespace {

constexpr char kWhere[] = "fuzz.hwtprof";

absl::Span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const std::string whole =
      hwt::analysis::SerializeProfile(hwt::analysis::testing::EveryFieldSet());
  std::vector<std::string> seeds = {whole, whole.substr(0, whole.size() / 2),
                                    whole.substr(0, 12)};
  hwt::fuzz::WriteGeneratedSeeds("hwtprof", seeds);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto profile =
      hwt::analysis::ParseProfile(absl::MakeConstSpan(data, size), kWhere);
  if (!profile.ok()) {
    HWT_FUZZ_CHECK(
        hwt::fuzz::Contains(profile.status().message(), kWhere),
        "error does not name the file: " + profile.status().ToString());
    return 0;
  }
  hwt::fuzz::CheckOk(hwt::analysis::ValidateProfile(*profile), kWhere);
  const std::string once = hwt::analysis::SerializeProfile(*profile);
  auto again = hwt::analysis::ParseProfile(Bytes(once), kWhere);
  HWT_FUZZ_CHECK(again.ok(), "a written profile does not read back: " +
                                 again.status().ToString());
  HWT_FUZZ_CHECK(hwt::analysis::SerializeProfile(*again) == once,
                 "the round trip changed the profile");
  return 0;
}
