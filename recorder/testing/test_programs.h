// Test helpers for recorder tests: where the programs of testdata/programs/
// were built, a sink that keeps everything it receives, and whether valgrind
// can be run.
#ifndef HWT_RECORDER_TESTING_TEST_PROGRAMS_H_
#define HWT_RECORDER_TESTING_TEST_PROGRAMS_H_

#include <string>
#include <vector>

#include "base/testing/test_env.h"
#include "recorder/execution.h"
#include "recorder/valgrind_trace.h"

#ifndef HWT_TEST_PROGRAMS_DIR
#error "HWT_TEST_PROGRAMS_DIR must point at the built testdata/programs"
#endif

namespace hwt::recorder::testing {

// A built test program, e.g. Program("fib_static").
inline std::string Program(const std::string& name) {
  return std::string(HWT_TEST_PROGRAMS_DIR) + "/" + name;
}

// A file of the source tree's testdata/programs/ (goldens).
inline std::string ProgramSource(const std::string& name) {
  return hwt::testing::SourceDir() + "/testdata/programs/" + name;
}

// A small fixed environment, so that runs do not depend on the caller's.
inline std::vector<std::string> TestEnv() {
  return {"PATH=/usr/bin:/bin", "LANG=C"};
}

class CollectingSink : public ExecutionSink {
 public:
  void OnStart(const ExecutionInfo& info) override { info_ = info; }
  void OnMapping(const MappingEvent& event) override {
    events_.push_back(event);
    events_at_.push_back(ips_.size());
  }
  void OnInstructions(absl::Span<const uint64_t> ips) override {
    ips_.insert(ips_.end(), ips.begin(), ips.end());
  }
  void OnInstructionsWithLengths(absl::Span<const uint64_t> ips,
                                 absl::Span<const uint8_t> lengths) override {
    lengths_.resize(ips_.size());
    OnInstructions(ips);
    lengths_.insert(lengths_.end(), lengths.begin(), lengths.end());
  }
  void OnExit(int status) override {
    exit_status_ = status;
    exited_ = true;
  }

  const ExecutionInfo& info() const { return info_; }
  const std::vector<MappingEvent>& events() const { return events_; }
  // How many instructions preceded each event.
  const std::vector<size_t>& events_at() const { return events_at_; }
  const std::vector<uint64_t>& ips() const { return ips_; }
  // The recorder's own lengths (empty when it gave none).
  const std::vector<uint8_t>& lengths() const { return lengths_; }
  int exit_status() const { return exit_status_; }
  bool exited() const { return exited_; }

 private:
  ExecutionInfo info_;
  std::vector<MappingEvent> events_;
  std::vector<size_t> events_at_;
  std::vector<uint64_t> ips_;
  std::vector<uint8_t> lengths_;
  int exit_status_ = 0;
  bool exited_ = false;
};

// valgrind and the project's valgrind tool (built with the project when
// valgrind's SDK is installed).
inline bool ValgrindAvailable() {
  auto result = hwt::testing::RunCommand({"valgrind", "--version"}, 30);
  return result.exit_code == 0 && FindValgrindToolDir().ok();
}

// Skips the test when valgrind or the hwttrace tool is missing (fails in
// CI: both come with the build dependencies).
#define HWT_REQUIRE_VALGRIND()                                          \
  HWT_REQUIRE_TOOL("valgrind");                                         \
  if (!::hwt::recorder::FindValgrindToolDir().ok()) {                   \
    HWT_SKIP_OUTSIDE_CI(                                                \
        "the valgrind tool hwttrace is not built (valgrind's tool SDK " \
        "was missing when the build was configured)");                  \
  }

}  // namespace hwt::recorder::testing

#endif  // HWT_RECORDER_TESTING_TEST_PROGRAMS_H_
