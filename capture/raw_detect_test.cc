// Tests raw backend detection on real trace files of the shared corpus (libipt
// conformance traces, OpenCSD snapshots whose trace.ini says whether each
// buffer is formatted, RICSecLab ETR captures), on SPE records written from
// the specification, and on random and non-trace bytes, which must never be
// claimed.
#include "capture/raw_detect.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::capture {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<uint8_t> ReadBytes(const std::string& path) {
  auto text = ReadFileToString(path);
  EXPECT_TRUE(text.ok()) << text.status();
  if (!text.ok()) return {};
  return std::vector<uint8_t>(text->begin(), text->end());
}

// The buffers of an OpenCSD snapshot's trace.ini: file -> format
// ("coresight" = formatted frames, "source_data" = unformatted).
std::map<std::string, std::string> SnapshotBuffers(const std::string& dir) {
  std::map<std::string, std::string> buffers;
  std::ifstream in(dir + "/trace.ini");
  std::string line, file;
  while (std::getline(in, line)) {
    absl::string_view l = absl::StripAsciiWhitespace(line);
    if (absl::StartsWith(l, "[")) file.clear();
    if (absl::ConsumePrefix(&l, "file=")) file = std::string(l);
    if (absl::ConsumePrefix(&l, "format=") && !file.empty()) {
      buffers[file] = std::string(l);
    }
  }
  return buffers;
}

// SPE packets, from reference/spe.md.
void Address(std::vector<uint8_t>* out, uint8_t index, uint64_t value) {
  out->push_back(0xb0 | index);
  for (int i = 0; i < 8; ++i) out->push_back(uint8_t(value >> (8 * i)));
}
void Timestamp(std::vector<uint8_t>* out, uint64_t value) {
  out->push_back(0x71);
  for (int i = 0; i < 8; ++i) out->push_back(uint8_t(value >> (8 * i)));
}

// `count` load records like the real ones in reference/spe.md: PC, context,
// op type, events, issue latency, data address, data source, and a
// timestamp (or END) closing the record.
std::vector<uint8_t> SpeRecords(int count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out;
  uint64_t time = 0x1000000;
  for (int i = 0; i < count; ++i) {
    uint64_t pc = 0xffff800010080000 + (rng() % 0x10000) * 4;
    // VA in [55:0], exception level in [62:61] (EL1), NS in bit 63.
    Address(&out, 0,
            (pc & ((uint64_t{1} << 56) - 1)) | (uint64_t{1} << 61) |
                (uint64_t{1} << 63));
    out.insert(out.end(), {0x65, 0x80, 0x5f, 0x00, 0x00});      // CONTEXT_EL2
    out.insert(out.end(), {0x49, uint8_t(rng() % 2)});          // load/store
    out.insert(out.end(), {0x52, 0x16, 0x00});                  // events
    out.insert(out.end(), {0x99, uint8_t(rng() % 64), 0x00});   // issue lat.
    out.insert(out.end(), {0x98, uint8_t(rng() % 200), 0x00});  // total lat.
    Address(&out, 2, 0xffff000012340000 + (rng() % 0x100000));  // data VA
    out.insert(out.end(), {0x43, 0x00});                        // source
    if (i % 3 == 2) {
      out.push_back(0x01);  // END
    } else {
      time += 100 + rng() % 1000;
      Timestamp(&out, time);
    }
  }
  return out;
}

TEST(RawDetectTest, LibiptConformanceTracesArePt) {
  HWT_REQUIRE_CORPUS(corpus);
  int checked = 0;
  for (const std::string& name : ListDir(corpus + "/libipt-pttc")) {
    if (!absl::EndsWith(name, ".pt")) continue;
    std::vector<uint8_t> bytes = ReadBytes(corpus + "/libipt-pttc/" + name);
    auto detection = DetectRawBackend(bytes, name);
    ASSERT_TRUE(detection.ok()) << name << ": " << detection.status();
    EXPECT_EQ(detection->backend, Backend::kPt) << name;
    EXPECT_THAT(detection->reason, HasSubstr("PSB")) << name;
    EXPECT_FALSE(DetectSpe(bytes).detection.has_value()) << name;
    ++checked;
  }
  EXPECT_GE(checked, 200);
}

TEST(RawDetectTest, OpenCsdSnapshotBuffersAreCoreSight) {
  HWT_REQUIRE_CORPUS(corpus);
  int formatted = 0, unformatted = 0;
  for (const char* group : {"opencsd/snapshots", "opencsd/snapshots-ete"}) {
    for (const std::string& snapshot : ListDir(corpus + "/" + group)) {
      std::string dir = corpus + "/" + group + "/" + snapshot;
      for (const auto& [file, format] : SnapshotBuffers(dir)) {
        // juno_r1_1's STM buffer is 0x1d0 bytes of frames followed by stale
        // memory: too little to be sure of, and not ETM trace anyway.
        if (snapshot == "juno_r1_1" && file == "cstraceitm.bin") continue;
        SCOPED_TRACE(snapshot + "/" + file + " (" + format + ")");
        std::vector<uint8_t> bytes = ReadBytes(dir + "/" + file);
        if (bytes.empty()) continue;  // ete-wfet/session2.bin
        auto detection = DetectRawBackend(bytes, file);
        ASSERT_TRUE(detection.ok()) << detection.status();
        EXPECT_EQ(detection->backend, Backend::kCoreSight);
        EXPECT_EQ(detection->coresight_formatted, format == "coresight")
            << detection->reason;
        EXPECT_FALSE(DetectSpe(bytes).detection.has_value());
        EXPECT_FALSE(DetectPt(bytes).detection.has_value());
        if (format == "coresight") {
          ++formatted;
        } else {
          ++unformatted;
        }
      }
    }
  }
  EXPECT_GE(formatted, 7);
  EXPECT_GE(unformatted, 25);
}

TEST(RawDetectTest, RicsecLabEtrCapturesAreFormattedWithTraceId0x10) {
  HWT_REQUIRE_CORPUS(corpus);
  int checked = 0;
  for (const char* program : {"branches", "fib"}) {
    for (int n = 1; n <= 4; ++n) {
      std::string file = absl::StrCat(corpus, "/ricseclab-coresight/", program,
                                      "/trace", n, "/cstrace.bin");
      std::vector<uint8_t> bytes = ReadBytes(file);
      auto detection = DetectRawBackend(bytes, file);
      ASSERT_TRUE(detection.ok()) << detection.status();
      EXPECT_EQ(detection->backend, Backend::kCoreSight);
      EXPECT_TRUE(detection->coresight_formatted);
      // decoderargs.txt names trace ID 0x10.
      EXPECT_EQ(detection->coresight_trace_ids, std::vector<uint32_t>{0x10});
      ++checked;
    }
  }
  EXPECT_EQ(checked, 8);
}

TEST(RawDetectTest, SpeRecordsFromTheSpecification) {
  for (int count : {2, 5, 100, 3000}) {
    std::vector<uint8_t> bytes = SpeRecords(count, count);
    auto detection = DetectRawBackend(bytes, "spe.bin");
    ASSERT_TRUE(detection.ok()) << count << ": " << detection.status();
    EXPECT_EQ(detection->backend, Backend::kSpe) << count;
    // Not mistaken for anything else either.
    EXPECT_FALSE(DetectCoreSightFormatted(bytes).detection) << count;
    EXPECT_FALSE(DetectCoreSightUnformatted(bytes).detection) << count;
  }
  // Half-buffers appended by hwt(8): records cut off, zero padding between.
  std::vector<uint8_t> halves;
  for (int half = 0; half < 8; ++half) {
    std::vector<uint8_t> records = SpeRecords(60, 100 + half);
    records.resize(records.size() - 13);  // the last record is cut off
    halves.insert(halves.end(), records.begin(), records.end());
    halves.insert(halves.end(), 64, 0x00);
  }
  auto detection = DetectRawBackend(halves, "halves.bin");
  ASSERT_TRUE(detection.ok()) << detection.status();
  EXPECT_EQ(detection->backend, Backend::kSpe);
}

TEST(RawDetectTest, RandomBytesAreNeverClaimed) {
  std::mt19937_64 rng(12345);
  int tried = 0;
  for (size_t size : {16, 100, 128, 1000, 4096, 65536, 300000}) {
    int rounds = size >= 65536 ? 20 : 300;
    for (int round = 0; round < rounds; ++round) {
      std::vector<uint8_t> bytes(size);
      for (uint8_t& b : bytes) b = uint8_t(rng());
      auto detection = DetectRawBackend(bytes, "random.bin");
      ASSERT_FALSE(detection.ok())
          << size << " random bytes claimed: " << detection->reason;
      EXPECT_EQ(detection.status().code(),
                absl::StatusCode::kFailedPrecondition);
      ++tried;
    }
  }
  EXPECT_GT(tried, 1000);
}

TEST(RawDetectTest, NonTraceFilesAreNotClaimed) {
  // Zeros, 0xff, text and an ELF program.
  EXPECT_FALSE(DetectRawBackend(std::vector<uint8_t>(8192, 0), "z").ok());
  EXPECT_FALSE(DetectRawBackend(std::vector<uint8_t>(8192, 0xff), "f").ok());
  std::string text;
  while (text.size() < 20000) {
    text += "The quick brown fox jumps over the lazy dog. 0123456789\n";
  }
  EXPECT_FALSE(
      DetectRawBackend(std::vector<uint8_t>(text.begin(), text.end()), "t")
          .ok());
  std::vector<uint8_t> elf = ReadBytes("/usr/bin/true");
  auto detection = DetectRawBackend(elf, "/usr/bin/true");
  ASSERT_FALSE(detection.ok());
  EXPECT_THAT(std::string(detection.status().message()), HasSubstr("ELF file"));
}

TEST(RawDetectTest, FailureSaysWhatWasTriedAndAsksForBackend) {
  std::vector<uint8_t> bytes(4096);
  std::mt19937 rng(7);
  for (uint8_t& b : bytes) b = uint8_t(rng());
  auto detection = DetectRawBackend(bytes, "x.bin");
  ASSERT_FALSE(detection.ok());
  std::string message(detection.status().message());
  EXPECT_EQ(message.rfind("x.bin: cannot tell which trace", 0), 0u) << message;
  EXPECT_THAT(message, HasSubstr("no Intel PT PSB"));
  EXPECT_THAT(message, HasSubstr("not CoreSight formatted frames"));
  EXPECT_THAT(message, HasSubstr("not ARM SPE records"));
  EXPECT_THAT(message, HasSubstr("--backend pt|coresight|spe"));
  auto tiny = DetectRawBackend(std::vector<uint8_t>(5, 0x00), "tiny.bin");
  ASSERT_FALSE(tiny.ok());
  EXPECT_THAT(std::string(tiny.status().message()), HasSubstr("too short"));
}

TEST(RawDetectTest, TpiuFrameSyncs) {
  // Frames of a single source (ID 0x10) with a frame sync before each frame.
  std::vector<uint8_t> bytes;
  std::mt19937 rng(3);
  for (int frame = 0; frame < 64; ++frame) {
    bytes.insert(bytes.end(), {0xff, 0xff, 0xff, 0x7f});
    bytes.push_back(0x21);  // ID 0x10
    for (int i = 1; i < 15; ++i) {
      uint8_t b = uint8_t(rng());
      if (i % 2 == 0) b &= 0xfe;  // data, not an ID
      bytes.push_back(b);
    }
    bytes.push_back(0x00);
  }
  auto detection = DetectRawBackend(bytes, "tpiu.bin");
  ASSERT_TRUE(detection.ok()) << detection.status();
  EXPECT_EQ(detection->backend, Backend::kCoreSight);
  EXPECT_TRUE(detection->coresight_formatted);
  EXPECT_TRUE(detection->coresight_fsyncs);
}

}  // namespace
}  // namespace hwt::capture
