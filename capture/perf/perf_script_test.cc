// The sideband the importer reads, against what Linux perf itself reads:
// every MMAP, MMAP2, COMM, FORK and EXIT record, in order, with its time,
// CPU, pid/tid, addresses, protection, file and build-id, equal to the lines
// of `perf script --no-itrace --show-mmap-events --show-task-events`.
// For the corpus' perf 4.14 files (file form, and the pipe form with its
// AUXTRACE records left out: Debian's perf 6.1 loses its place in a pipe
// after an AUXTRACE payload, which the AUX data does not affect), and for
// perf.data files `perf record` makes here with software events: the file
// form, --buildid-mmap, -z (COMPRESSED records) and the pipe form.
#include <unistd.h>

#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "capture/perf/perf_format.h"
#include "capture/perf/perf_import.h"
#include "capture/perf/perf_tokenizer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::capture::perf {
namespace {

using ::hwt::testing::CommandResult;
using ::hwt::testing::RunCommand;

bool HavePerf() { return RunCommand({"perf", "--version"}, 30).exit_code == 0; }

// "[003] 641.256876 MMAP2 3174/3174 0x5cba63156000 0x125000 0x0 r-xp
// /usr/bin/coreutils" from a perf script line; empty for other lines.
std::string FromPerfScript(const std::string& line, bool* has_build_id) {
  static const std::regex head(
      R"((-?\d+)\s+(?:\[(\d+)\]\s+)?(\d+\.\d{6}):\s+PERF_RECORD_(.*)$)");
  static const std::regex mmap(
      R"(^(MMAP2?) (-?\d+)/(-?\d+): \[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0)(?: <([0-9a-f]+)>| [^\]]*)?\]: (\S+) (.*)$)");
  static const std::regex comm(R"(^COMM( exec)?: (.*):(-?\d+)/(-?\d+)$)");
  static const std::regex task(
      R"(^(FORK|EXIT)\((-?\d+):(-?\d+)\):\((-?\d+):(-?\d+)\)$)");
  std::smatch h, m;
  if (!std::regex_search(line, h, head)) return "";
  std::string prefix = h[2].matched ? "[" + h[2].str() + "] " : "";
  prefix += h[3].str() + " ";
  const std::string event = h[4].str();
  if (std::regex_match(event, m, mmap)) {
    *has_build_id = m[7].matched;
    std::string out = absl::StrFormat(
        "%s %s/%s 0x%x 0x%x 0x%x %s %s", m[1].str(), m[2].str(), m[3].str(),
        std::stoull(m[4].str(), nullptr, 16),
        std::stoull(m[5].str(), nullptr, 16),
        std::stoull(m[6].str(), nullptr, 16), m[8].str(), m[9].str());
    if (m[7].matched) out += " <" + m[7].str() + ">";
    return prefix + out;
  }
  if (std::regex_match(event, m, comm)) {
    return prefix + absl::StrFormat("COMM%s %s %s/%s",
                                    m[1].matched ? " exec" : "", m[2].str(),
                                    m[3].str(), m[4].str());
  }
  if (std::regex_match(event, m, task)) {
    return prefix + absl::StrFormat("%s %s:%s %s:%s", m[1].str(), m[2].str(),
                                    m[3].str(), m[4].str(), m[5].str());
  }
  return "";
}

std::string Prot(const Record& r) {
  if (!(r.flags & kRecordFlagMmap2)) {
    return (r.flags & kRecordFlagData) ? "r" : "x";
  }
  const uint32_t prot = static_cast<uint32_t>(r.value >> 32);
  const uint32_t flags = static_cast<uint32_t>(r.value);
  std::string out;
  out += (prot & 1) ? 'r' : '-';
  out += (prot & 2) ? 'w' : '-';
  out += (prot & 4) ? 'x' : '-';
  out += (flags & 1) ? 's' : 'p';
  return out;
}

// The same line for one of our records (build-id printed when perf printed
// one: perf script shows the MMAP2 record's own, not the feature's).
std::string FromRecord(const Record& r, bool with_cpu, bool with_build_id) {
  std::string prefix;
  if (with_cpu) prefix = absl::StrFormat("[%03d] ", r.cpu.value_or(-1));
  const uint64_t t = r.time.value_or(0);
  prefix += absl::StrFormat("%u.%06u ", t / 1000000000, t % 1000000000 / 1000);
  switch (r.type) {
    case RecordType::kMmap:
    case RecordType::kKernel: {
      std::string out =
          absl::StrFormat("%s %d/%d 0x%x 0x%x 0x%x %s %s",
                          (r.flags & kRecordFlagMmap2) ? "MMAP2" : "MMAP",
                          r.pid.value_or(0), r.tid.value_or(0), r.addr,
                          r.length, r.pgoff.value_or(0), Prot(r), r.path);
      if (with_build_id) out += " <" + r.build_id + ">";
      return prefix + out;
    }
    case RecordType::kComm:
      return prefix +
             absl::StrFormat("COMM%s %s %d/%d",
                             (r.flags & kRecordFlagExec) ? " exec" : "", r.path,
                             r.pid.value_or(0), r.tid.value_or(0));
    case RecordType::kFork:
    case RecordType::kExit:
      return prefix +
             absl::StrFormat("%s %d:%d %d:%d",
                             r.type == RecordType::kFork ? "FORK" : "EXIT",
                             r.pid.value_or(0), r.tid.value_or(0),
                             r.other_pid.value_or(0), r.other_tid.value_or(0));
    default:
      return "";
  }
}

// Runs perf script on `perf_input` (a file, or "-" with `stdin_file` piped
// in through a real pipe) and compares its sideband with our import of
// `ours`.
void ExpectSidebandEqualsPerfScript(const std::string& ours,
                                    const std::string& perf_input) {
  CommandResult script = RunCommand(
      // perf reads the pipe form only from a pipe and the file form only
      // from a file: the header size (offset 8) is 16 in the pipe form.
      {"sh", "-c",
       "set -- \"$1\" --no-itrace --show-mmap-events --show-task-events; "
       "if [ \"$(od -An -t u8 -j 8 -N 8 \"$1\" | tr -d ' ')\" = 16 ]; "
       "then f=$1; shift; cat \"$f\" | perf script -i - \"$@\"; "
       "else perf script -i \"$@\"; fi",
       "sh", perf_input},
      120);
  ASSERT_EQ(script.exit_code, 0) << script.err;
  std::vector<std::string> theirs;
  std::vector<bool> build_ids;
  bool with_cpu = false;
  for (absl::string_view line : absl::StrSplit(script.out, '\n')) {
    bool has_build_id = false;
    std::string normal = FromPerfScript(std::string(line), &has_build_id);
    if (normal.empty()) continue;
    with_cpu = with_cpu || normal[0] == '[';
    theirs.push_back(normal);
    build_ids.push_back(has_build_id);
  }
  ASSERT_FALSE(theirs.empty()) << script.out.substr(0, 2000);
  auto file = MappedFile::Open(ours);
  ASSERT_TRUE(file.ok()) << file.status();
  auto imported = ImportPerfData(file->bytes(), ours, "");
  ASSERT_TRUE(imported.ok()) << imported.status();
  std::vector<std::string> mine;
  for (const Record& r : imported->records) {
    const size_t i = mine.size();
    std::string line =
        FromRecord(r, with_cpu, i < build_ids.size() && build_ids[i]);
    if (!line.empty()) mine.push_back(line);
  }
  EXPECT_EQ(absl::StrJoin(mine, "\n"), absl::StrJoin(theirs, "\n"));
  EXPECT_GT(mine.size(), 3u);
}

// A copy of a pipe-form perf.data without its AUXTRACE records.
std::string WithoutAuxtrace(const std::string& bytes) {
  struct Spans : PerfVisitor {
    absl::Status OnAttr(const PerfAttr&) override { return absl::OkStatus(); }
    absl::Status OnFeature(int, absl::Span<const uint8_t>, uint64_t) override {
      return absl::OkStatus();
    }
    absl::Status OnRecord(const RawRecord& r) override {
      if (r.type == kRecordAuxtrace) {
        cuts.push_back({r.offset.file, r.size + r.payload.size()});
      }
      return absl::OkStatus();
    }
    std::vector<std::pair<uint64_t, uint64_t>> cuts;
  } spans;
  auto summary = TokenizePerfData(
      absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()),
                                bytes.size()),
      "pipe", &spans);
  EXPECT_TRUE(summary.ok());
  std::string out;
  uint64_t at = 0;
  for (const auto& [offset, size] : spans.cuts) {
    out += bytes.substr(at, offset - at);
    at = offset + size;
  }
  return out + bytes.substr(at);
}

TEST(PerfScriptTest, QuipperFileFormSidebandEqualsPerfScript) {
  HWT_REQUIRE_CORPUS(corpus);
  if (!HavePerf()) GTEST_SKIP() << "perf (linux-perf) not installed";
  const std::string path = corpus + "/quipper-intel-pt/perf.data.intel_pt-4.14";
  ExpectSidebandEqualsPerfScript(path, path);
}

TEST(PerfScriptTest, QuipperPipeFormSidebandEqualsPerfScript) {
  HWT_REQUIRE_CORPUS(corpus);
  if (!HavePerf()) GTEST_SKIP() << "perf (linux-perf) not installed";
  const std::string path =
      corpus + "/quipper-intel-pt/perf.data.piped.intel_pt-4.14";
  auto bytes = ReadFileToString(path);
  ASSERT_TRUE(bytes.ok());
  auto dir = TempDir::Create("perf-script-test");
  ASSERT_TRUE(dir.ok());
  const std::string stripped = dir->path() + "/stripped.data";
  ASSERT_TRUE(WriteFileAtomically(stripped, WithoutAuxtrace(*bytes)).ok());
  ExpectSidebandEqualsPerfScript(path, stripped);
}

// perf.data files made here by perf record, with software events.
class PerfRecordTest : public ::testing::TestWithParam<const char*> {
 protected:
  static void SetUpTestSuite() {
    if (!HavePerf()) return;
    auto dir = TempDir::Create("perf-record-probe");
    if (!dir.ok()) return;
    const std::string probe = dir->path() + "/probe.data";
    auto works = [&] {
      return RunCommand({"perf", "record", "-q", "-e", "cpu-clock", "-o", probe,
                         "--", "true"},
                        60)
                 .exit_code == 0;
    };
    recordable_ = works();
    if (!recordable_ && geteuid() == 0) {
      // perf_event_paranoid blocks perf_event_open: as root, lower it for
      // this test and put it back afterwards.
      std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
      std::getline(in, saved_paranoid_);
      std::ofstream("/proc/sys/kernel/perf_event_paranoid") << "-1\n";
      recordable_ = works();
    }
  }
  static void TearDownTestSuite() {
    if (!saved_paranoid_.empty()) {
      std::ofstream("/proc/sys/kernel/perf_event_paranoid")
          << saved_paranoid_ << "\n";
    }
  }
  static inline bool recordable_ = false;
  static inline std::string saved_paranoid_;
};

TEST_P(PerfRecordTest, SidebandEqualsPerfScript) {
  if (!HavePerf()) GTEST_SKIP() << "perf (linux-perf) not installed";
  if (!recordable_) {
    GTEST_SKIP() << "perf record cannot open events here (not root, and "
                    "perf_event_paranoid forbids it)";
  }
  auto dir = TempDir::Create("perf-record-test");
  ASSERT_TRUE(dir.ok());
  const std::string out = dir->path() + "/sw.data";
  const std::string options = GetParam();
  const bool pipe = options == "pipe";
  const std::string command = absl::StrFormat(
      "perf record -q -e cpu-clock %s -o %s -- sh -c 'ls / >/dev/null; "
      "true' %s",
      pipe ? "" : options, pipe ? "-" : out, pipe ? "> " + out : "");
  CommandResult record = RunCommand({"sh", "-c", command}, 120);
  ASSERT_EQ(record.exit_code, 0) << command << "\n" << record.err;
  auto file = MappedFile::Open(out);
  ASSERT_TRUE(file.ok());
  auto imported = ImportPerfData(file->bytes(), out, "");
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->tokenize.pipe, pipe);
  if (options == "-z") {
    EXPECT_GT(imported->tokenize.compressed_records, 0u);
  }
  EXPECT_FALSE(imported->has_aux);
  ExpectSidebandEqualsPerfScript(out, out);
  if (options == "--buildid-mmap") {
    size_t with_id = 0;
    for (const Record& r : imported->records) with_id += !r.build_id.empty();
    EXPECT_GT(with_id, 2u);
  }
}

INSTANTIATE_TEST_SUITE_P(Forms, PerfRecordTest,
                         ::testing::Values("", "--buildid-mmap", "-z", "pipe"),
                         [](const auto& info) {
                           std::string name = info.param;
                           if (name.empty()) return std::string("file");
                           if (name == "-z") return std::string("compressed");
                           if (name == "pipe") return name;
                           return std::string("buildid_mmap");
                         });

}  // namespace
}  // namespace hwt::capture::perf
