// Hostile perf.data files through OpenCapture (the importer and the
// address-space timeline it feeds) and through the tools: the corpus's real
// perf.data files (Intel PT in the file and the pipe form, simpleperf ETM)
// cut inside the header and at every record boundary, with header offsets
// and sizes pointing past the end or absurd, record sizes patched and bytes
// flipped. Each is read in part with a warning saying what was lost, or
// refused with a message naming the file and the offset; never a crash or a
// hang, and nothing is left in $TMPDIR. The tools exit 2 on a refused file.
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "capture/perf/perf_tokenizer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hostile/testing/hostile_inputs.h"

namespace hwt::hostile {
namespace {

using ::hwt::testing::CommandResult;
using ::hwt::testing::RunCommand;
using ::hwt::testing::RunsInChild;
using ::hwt::testing::ToolPath;
using ::testing::HasSubstr;

// The file offsets of the records of a perf.data file, as the tokenizer
// reads them (records out of COMPRESSED data have none of their own).
class RecordOffsets : public capture::perf::PerfVisitor {
 public:
  absl::Status OnAttr(const capture::perf::PerfAttr&) override {
    return absl::OkStatus();
  }
  absl::Status OnFeature(int, absl::Span<const uint8_t>, uint64_t) override {
    return absl::OkStatus();
  }
  absl::Status OnRecord(const capture::perf::RawRecord& r) override {
    if (!r.offset.decompressed) offsets.push_back(r.offset.file);
    return absl::OkStatus();
  }
  std::vector<uint64_t> offsets;
};

absl::Span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

class PerfHostileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("hwt-hostile-perf");
    ASSERT_TRUE(dir.ok());
    dir_ = std::make_unique<TempDir>(std::move(*dir));
    // The importer writes its buffers below $TMPDIR: a private one shows
    // leftovers.
    tmp_ = std::make_unique<PrivateTmpDir>(dir_->path());
    input_ = dir_->path() + "/hostile.data";
  }

  // Opens `bytes` as a tool does (images looked up below an empty sysroot,
  // never the host's files). Returns "" when it was refused clearly or read,
  // else what was wrong. `partial`: the file is known to be incomplete, so a
  // successful read must say so.
  std::string Check(const std::string& bytes, bool partial) {
    if (!WriteFileAtomically(input_, bytes).ok()) return "cannot write input";
    std::string problem;
    {
      capture::InputOptions options;
      options.sysroot = dir_->path() + "/no-sysroot";
      auto capture = capture::OpenCapture(input_, options);
      if (capture.ok()) {
        if (partial && (*capture)->import_warnings().empty()) {
          problem = "read a cut file without a warning";
        }
        const capture::Manifest& m = (*capture)->manifest();
        for (size_t b = 0; b < m.buffers.size() && problem.empty(); ++b) {
          auto file = (*capture)->MapBuffer(b);
          if (!file.ok()) {
            problem = "buffer unreadable: " + file.status().ToString();
          } else if (file->size() != m.buffers[b].size) {
            problem = absl::StrFormat("buffer %d: %u bytes, manifest %u", b,
                                      file->size(), m.buffers[b].size);
          }
        }
        auto timeline = capture::BuildAddressSpaceTimeline(**capture);
        (void)timeline;
      } else {
        const std::string message(capture.status().message());
        if (message.find(input_) == std::string::npos) {
          problem = "error without the file: " + message;
        } else if (capture.status().code() !=
                       absl::StatusCode::kFailedPrecondition &&
                   message.find("offset") == std::string::npos) {
          // FailedPrecondition: read, but no trace left (e.g. cut before
          // the first AUXTRACE record); every other refusal names a place.
          problem = "error without an offset: " + message;
        }
      }
    }
    if (!std::filesystem::is_empty(tmp_->path()))
      problem += " (temporary files left)";
    return problem;
  }

  // Checks every case in one child with a time limit (a crash or a hang
  // fails the test instead of taking it down); the child writes the case it
  // is at and the problems it found to files the parent reads.
  void CheckAll(const std::string& what,
                const std::vector<std::pair<std::string, bool>>& cases) {
    const std::string at_file = dir_->path() + "/at";
    const std::string problems_file = dir_->path() + "/problems";
    const bool ok = RunsInChild(
        [&] {
          std::string problems;
          for (size_t i = 0; i < cases.size(); ++i) {
            if (!WriteFileAtomically(at_file, absl::StrCat(i)).ok()) return 3;
            const std::string problem = Check(cases[i].first, cases[i].second);
            if (!problem.empty()) {
              absl::StrAppendFormat(&problems, "case %d: %s\n", i, problem);
            }
          }
          if (!WriteFileAtomically(problems_file, problems).ok()) return 3;
          return problems.empty() ? 0 : 1;
        },
        240);
    if (!ok) {
      auto problems = ReadFileToString(problems_file);
      auto at = ReadFileToString(at_file);
      ADD_FAILURE() << what << ": "
                    << (problems.ok() ? *problems
                                      : "crashed or hung at case " +
                                            (at.ok() ? *at : "?"));
    }
    std::filesystem::remove(problems_file);
  }

  std::unique_ptr<TempDir> dir_;
  std::unique_ptr<PrivateTmpDir> tmp_;
  std::string input_;
};

std::vector<std::string> CorpusFiles(const std::string& corpus) {
  return {corpus + "/quipper-intel-pt/perf.data.intel_pt-4.14",
          corpus + "/quipper-intel-pt/perf.data.piped.intel_pt-4.14",
          corpus + "/simpleperf-etm/perf_etm.data"};
}

TEST_F(PerfHostileTest, CutInTheHeaderAndAtEveryRecordBoundary) {
  HWT_REQUIRE_CORPUS(corpus);
  for (const std::string& path : CorpusFiles(corpus)) {
    auto bytes = ReadFileToString(path);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    RecordOffsets visitor;
    ASSERT_TRUE(
        capture::perf::TokenizePerfData(Bytes(*bytes), path, &visitor).ok());
    ASSERT_GT(visitor.offsets.size(), 10u) << path;
    std::vector<std::pair<std::string, bool>> cases;
    for (size_t cut = 1; cut <= 120; cut += 7) {
      cases.push_back({bytes->substr(0, cut), true});
    }
    // The pipe form has no sizes in its header: cut at a record boundary,
    // it is a shorter recording, not a damaged one.
    const bool pipe = path.find("piped") != std::string::npos;
    for (uint64_t at : visitor.offsets) {
      if (at == 0) continue;
      cases.push_back({bytes->substr(0, at), !pipe});
      cases.push_back({bytes->substr(0, at + 5), true});
    }
    CheckAll(path, cases);
  }
}

TEST_F(PerfHostileTest, OffsetsAndSizesPastTheEndOrAbsurd) {
  HWT_REQUIRE_CORPUS(corpus);
  for (const std::string& path : CorpusFiles(corpus)) {
    auto bytes = ReadFileToString(path);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    const bool pipe = path.find("piped") != std::string::npos;
    auto patch = [&](size_t at, uint64_t value, size_t width) {
      std::string b = *bytes;
      std::memcpy(&b[at], &value, width);
      return b;
    };
    std::vector<std::pair<std::string, bool>> cases;
    // The header: size, attr_size, then the attrs, data and event_types
    // sections (offset, size), every field huge or just past the end.
    const size_t header_fields = pipe ? 2 : 13;
    for (size_t field = 1; field < header_fields; ++field) {
      for (uint64_t value : {uint64_t{bytes->size()}, uint64_t{1} << 40,
                             ~uint64_t{0}, uint64_t{0}}) {
        cases.push_back({patch(8 * field, value, 8), false});
      }
    }
    // The feature table after the data section: each (offset, size) pair
    // past the end or huge.
    if (!pipe) {
      uint64_t data_offset = 0, data_size = 0;
      std::memcpy(&data_offset, &(*bytes)[40], 8);
      std::memcpy(&data_size, &(*bytes)[48], 8);
      const uint64_t table = data_offset + data_size;
      for (uint64_t at = table; at + 16 <= bytes->size() && at < table + 160;
           at += 8) {
        cases.push_back({patch(at, uint64_t{1} << 40, 8), false});
        cases.push_back({patch(at, bytes->size() - 1, 8), false});
      }
    }
    // Record sizes: zero, below the header, huge; AUXTRACE sizes huge.
    RecordOffsets visitor;
    ASSERT_TRUE(
        capture::perf::TokenizePerfData(Bytes(*bytes), path, &visitor).ok());
    for (size_t i = 0; i < visitor.offsets.size(); i += 3) {
      const uint64_t at = visitor.offsets[i];
      for (uint64_t size : {0, 4, 0xffff}) {
        cases.push_back({patch(at + 6, size, 2), false});
      }
      if (at + 16 <= bytes->size()) {
        cases.push_back({patch(at + 8, ~uint64_t{0} >> 1, 8), false});
      }
    }
    CheckAll(path, cases);
  }
}

TEST_F(PerfHostileTest, RandomByteFlips) {
  HWT_REQUIRE_CORPUS(corpus);
  std::mt19937_64 random(16);
  for (const std::string& path : CorpusFiles(corpus)) {
    auto bytes = ReadFileToString(path);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    std::vector<std::pair<std::string, bool>> cases;
    for (int i = 0; i < 150; ++i) {
      std::string b = *bytes;
      // Mostly in the header and the first records, where the structure is.
      const size_t span =
          i % 2 == 0 ? std::min<size_t>(b.size(), 4096) : b.size();
      for (int k = 0; k < 4; ++k) b[random() % span] ^= 1 << (random() % 8);
      cases.push_back({b, false});
    }
    CheckAll(path, cases);
  }
}

TEST_F(PerfHostileTest, ToolsExitTwoNamingTheFileAndOffset) {
  HWT_REQUIRE_CORPUS(corpus);
  auto bytes = ReadFileToString(CorpusFiles(corpus)[0]);
  ASSERT_TRUE(bytes.ok());
  // Cut inside the header; then the attribute section past the end.
  std::string far = *bytes;
  const uint64_t past = uint64_t{1} << 40;
  std::memcpy(&far[24], &past, 8);
  for (const std::string& content : {bytes->substr(0, 50), far}) {
    ASSERT_TRUE(WriteFileAtomically(input_, content).ok());
    for (const char* tool : {"hwt-decode", "hwt-report", "hwt-import"}) {
      std::vector<std::string> args = {ToolPath(tool), input_};
      if (std::string(tool) == "hwt-import") {
        args.insert(args.end(), {"-o", dir_->path() + "/out.hwt"});
      }
      CommandResult r = RunCommand(args);
      EXPECT_EQ(r.exit_code, 2) << tool << ": " << r.err;
      EXPECT_THAT(r.err, HasSubstr(input_)) << tool;
      EXPECT_THAT(r.err, HasSubstr("offset 0x")) << tool;
      EXPECT_FALSE(std::filesystem::exists(dir_->path() + "/out.hwt"));
    }
  }
  EXPECT_TRUE(std::filesystem::is_empty(tmp_->path()));
}

}  // namespace
}  // namespace hwt::hostile
