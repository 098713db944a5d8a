// What every fuzz target shares: a checked abort that libFuzzer reports as a
// crash (so that a broken invariant is a finding, like a sanitizer report),
// a scratch directory for the inputs that must be files, and seeds generated
// at start-up (written to $HWT_FUZZ_SEED_DIR, which scripts/fuzz.sh also
// passes as a corpus directory).
#ifndef HWT_FUZZ_FUZZ_SUPPORT_H_
#define HWT_FUZZ_FUZZ_SUPPORT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace hwt::fuzz {

// Prints "hwt fuzz invariant violated: MESSAGE" and aborts.
[[noreturn]] void Fail(const std::string& message);

// Aborts unless `status` is OK (`what` says which call).
void CheckOk(const absl::Status& status, std::string_view what);

// The repository root (for testdata seeds).
std::string SourceDir();

// This process's scratch directory below $TMPDIR, removed at exit.
const std::string& ScratchDir();

// Writes a file (not atomically: fuzz inputs only) or aborts.
void WriteFileOrDie(const std::string& path, absl::Span<const uint8_t> bytes);
void WriteFileOrDie(const std::string& path, std::string_view bytes);

// Reads a file, or returns nullopt-like empty + false.
bool ReadFile(const std::string& path, std::string* out);

// Whether `haystack` contains `needle`.
bool Contains(absl::string_view haystack, absl::string_view needle);

// Writes each seed into $HWT_FUZZ_SEED_DIR (when set) as "gen-<target>-N".
// Called from LLVMFuzzerInitialize, which runs before libFuzzer reads its
// corpus directories.
void WriteGeneratedSeeds(std::string_view target,
                         const std::vector<std::string>& seeds);

}  // namespace hwt::fuzz

#define HWT_FUZZ_CHECK(condition, message)        \
  do {                                            \
    if (!(condition)) ::hwt::fuzz::Fail(message); \
  } while (0)

#endif  // HWT_FUZZ_FUZZ_SUPPORT_H_
