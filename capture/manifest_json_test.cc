// Tests manifest.json reading and writing: a round trip of every field, the
// golden manifests of testdata/capture/manifests (valid 1.0, 1.3 with unknown
// fields, refused versions, and one file per broken variant with its expected
// error beside it), and the bundle-level file checks.
#include "capture/manifest_json.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "capture/testing/manifest_samples.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::capture {
namespace {

using ::testing::HasSubstr;

std::string ManifestsDir() {
  return hwt::testing::SourceDir() + "/testdata/capture/manifests";
}

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

std::string Chomp(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) {
    text.pop_back();
  }
  return text;
}

absl::StatusOr<Manifest> ParseGolden(const std::string& name) {
  auto text = ReadFileToString(ManifestsDir() + "/" + name);
  if (!text.ok()) return text.status();
  return ParseManifest(*text, name);
}

// The manifest that valid-1.0.json describes, written out by hand.
Manifest ExpectedValid10() {
  Manifest m;
  m.backend = Backend::kPt;
  m.mode = TraceMode::kThread;
  m.record_numbering = RecordNumbering::kUpstream;
  m.pid = 4242;
  m.command = "/usr/bin/true --version";
  m.hostname = "pt-box";
  m.os = "FreeBSD 15.0-RELEASE amd64";
  m.created = "2026-11-30T08:00:00Z";
  m.recorder = "hwt-record 0.1.0";
  m.cpu.arch = "x86_64";
  m.cpu.vendor = "GenuineIntel";
  m.cpu.family = 6;
  m.cpu.model = 142;
  m.cpu.stepping = 10;
  m.cpu.cpuid_15_eax = 2;
  m.cpu.cpuid_15_ebx = 176;
  m.cpu.cpuid_15_ecx = 24000000;
  m.cpu.nominal_frequency_hz = 2100000000;
  PtConfig& pt = m.pt.emplace();
  pt.rtit_ctl = 0x200002108;
  pt.address_filters.push_back({0x401000, 0x402fff, 1});
  pt.mtc_freq = 3;
  pt.psb_freq = 2;
  BufferInfo b0;
  b0.id = 0;
  b0.thread = 0;
  b0.file = "buffers/0.bin";
  b0.size = 0x10000;
  b0.wrapped = true;
  b0.chunks.push_back({0, 0x8000, false, false, false});
  b0.chunks.push_back({0x8000, 0x8000, true, false, false});
  BufferInfo b1;
  b1.id = 1;
  b1.thread = 1;
  b1.file = "buffers/1.bin";
  b1.size = 0x1000;
  m.buffers = {b0, b1};
  m.images.push_back({"4f2a9c0e1b7d3e8f5a6b7c8d9e0f1a2b3c4d5e6f",
                      "/usr/bin/true",
                      "images/4f2a9c0e1b7d3e8f5a6b7c8d9e0f1a2b3c4d5e6f"});
  MemoryDump dump;
  dump.file = "truth/vdso.bin";
  dump.address = 0x7ffff7fc1000;
  dump.size = 0x2000;
  m.memory.push_back(dump);
  return m;
}

TEST(ManifestJsonTest, RoundTripsEveryField) {
  for (Manifest original :
       {FullPtManifest(), FullCoreSightManifest(), FullSpeManifest()}) {
    std::string json = ManifestToJson(original);
    auto parsed = ParseManifest(json, "round-trip");
    ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << json;
    ExpectSameManifest(*parsed, original);
    // Writing what was read gives the same bytes.
    EXPECT_EQ(ManifestToJson(*parsed), json);
  }
}

// Labels (format 1.1): written as a string map, and only then as 1.1; a
// label that is not a string, or has no name, is refused.
TEST(ManifestJsonTest, LabelsAreMinorVersionOne) {
  Manifest m = FullPtManifest();
  std::string json = ManifestToJson(m);
  EXPECT_THAT(json, HasSubstr("\"version\": \"1.1\""));
  EXPECT_THAT(json, HasSubstr("\"branch\": \"main\""));
  m.labels.clear();
  EXPECT_THAT(ManifestToJson(m), HasSubstr("\"version\": \"1.0\""));

  auto with = [&](const std::string& labels) {
    std::string text = json;
    const size_t at = text.find("\"labels\": {");
    const size_t end = text.find('}', at);
    return text.replace(at, end + 1 - at, "\"labels\": " + labels);
  };
  auto number = ParseManifest(with("{\"run\": 7}"), "m.json");
  EXPECT_THAT(number.status().message(),
              HasSubstr("m.json: labels.run: expected a string"));
  auto empty = ParseManifest(with("{\"\": \"x\"}"), "m.json");
  EXPECT_THAT(empty.status().message(), HasSubstr("empty name"));
  auto list = ParseManifest(with("[\"x\"]"), "m.json");
  EXPECT_FALSE(list.ok());
}

TEST(ManifestJsonTest, SixtyFourBitValuesAreHexStrings) {
  Manifest m = FullPtManifest();
  m.pt->rtit_ctl = 0xffffffffffffffff;
  m.buffers[0].chunks.clear();
  std::string json = ManifestToJson(m);
  EXPECT_THAT(json, HasSubstr("\"rtit_ctl\": \"0xffffffffffffffff\""));
  auto parsed = ParseManifest(json, "x");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->pt->rtit_ctl, 0xffffffffffffffffu);
}

TEST(ManifestJsonTest, GoldenValid10MatchesHandWrittenManifest) {
  auto parsed = ParseGolden("valid-1.0.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->major_version, 1);
  EXPECT_EQ(parsed->minor_version, 0);
  ExpectSameManifest(*parsed, ExpectedValid10());
  // The writer produces exactly the golden file.
  auto text = ReadFileToString(ManifestsDir() + "/valid-1.0.json");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(ManifestToJson(ExpectedValid10()), *text);
}

TEST(ManifestJsonTest, NewerMinorVersionWithUnknownFieldsIsRead) {
  auto parsed = ParseGolden("valid-1.3-unknown-fields.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->major_version, 1);
  EXPECT_EQ(parsed->minor_version, 3);
  // Same content as 1.0 (with numbers instead of hex strings, uppercase hex
  // and extra fields everywhere).
  Manifest expected = ExpectedValid10();
  expected.minor_version = 3;
  ExpectSameManifest(*parsed, expected);
}

// Every broken-*.json / refused-*.json has a .error file holding the exact
// message; every other .json must parse.
TEST(ManifestJsonTest, GoldenManifests) {
  int checked_errors = 0;
  int checked_valid = 0;
  for (const std::string& name : ListDir(ManifestsDir())) {
    if (!absl::EndsWith(name, ".json")) continue;
    std::string base = name.substr(0, name.size() - 5);
    auto expected_error =
        ReadFileToString(ManifestsDir() + "/" + base + ".error");
    auto parsed = ParseGolden(name);
    if (expected_error.ok()) {
      ++checked_errors;
      ASSERT_FALSE(parsed.ok())
          << name << " parsed but should fail with " << *expected_error;
      EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument)
          << name;
      EXPECT_EQ(std::string(parsed.status().message()), Chomp(*expected_error))
          << name;
    } else {
      ++checked_valid;
      EXPECT_TRUE(parsed.ok()) << name << ": " << parsed.status();
    }
  }
  EXPECT_GE(checked_errors, 50);
  EXPECT_GE(checked_valid, 2);
}

TEST(ManifestJsonTest, TooManyBuffers) {
  std::string json =
      R"({"format": "hwt-capture", "version": "1.0", "backend": "pt",
          "mode": "cpu", "buffers": [)";
  for (size_t i = 0; i <= kMaxBuffers; ++i) {
    absl::StrAppend(&json, i ? "," : "", R"({"id": )", i,
                    R"(, "file": "buffers/)", i, R"(.bin", "size": 1})");
  }
  json += "]}";
  auto parsed = ParseManifest(json, "many.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "many.json: buffers: more than 4096 buffers (4097)");
}

// A number beyond the range of a double made the JSON parser throw
// (found by fuzz/manifest_fuzzer).
TEST(ManifestJsonTest, NumberTooLargeForADoubleIsAnError) {
  auto parsed = ParseManifest(
      R"({"format": "hwt-capture", "version": "1.0", "pid": 2e1002})",
      "big.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "big.json: not valid JSON: number overflow parsing '2e1002'");
}

// JSON nested 100 000 deep overflowed the stack when the error message
// quoted the value (found by tests/hostile). Brackets in strings do not count.
TEST(ManifestJsonTest, DeeplyNestedJsonIsAnError) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto parsed = ParseManifest(
      R"({"format": "hwt-capture", "version": "1.0", "cpu": )" + deep + "}",
      "deep.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(std::string(parsed.status().message()),
            "deep.json: not valid JSON: nested deeper than 64 levels at offset "
            "114");
  const std::string brackets_in_a_string =
      R"({"format": "hwt-capture", "version": "1.0", "command": ")" +
      std::string(100, '[') + R"(\"["})";
  parsed = ParseManifest(brackets_in_a_string, "string.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message().find("nested deeper"),
            absl::string_view::npos)
      << parsed.status();
}

TEST(ManifestJsonTest, VersionParsing) {
  EXPECT_TRUE(ParseFormatVersion("1.0").has_value());
  EXPECT_EQ(ParseFormatVersion("1.12")->minor, 12);
  for (const char* bad :
       {"1", "1.", ".1", "1.0.0", "a.b", "-1.0", "1.-0", " 1.0", "1.0 ", ""}) {
    EXPECT_FALSE(ParseFormatVersion(bad).has_value()) << bad;
  }
  EXPECT_TRUE(CheckFormatVersion({1, 99}, "x").ok());
  EXPECT_EQ(CheckFormatVersion({3, 1}, "x").message(),
            "x: capture format 3.1 is newer than this hwt (reads 1.x); "
            "upgrade hwt");
}

TEST(ManifestJsonTest, UnsafePaths) {
  EXPECT_FALSE(UnsafeBundlePathReason("buffers/0.bin"));
  EXPECT_FALSE(UnsafeBundlePathReason("truth/a..b"));
  EXPECT_FALSE(UnsafeBundlePathReason("./buffers/0.bin"));
  for (const char* bad :
       {"", "/abs", "..", "../x", "a/../../x", "a/..", "buffers/"}) {
    EXPECT_TRUE(UnsafeBundlePathReason(bad).has_value()) << bad;
  }
  EXPECT_TRUE(UnsafeBundlePathReason(std::string("a\0b", 3)).has_value());
}

class ManifestFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("hwt-manifest-test");
    ASSERT_TRUE(dir.ok());
    dir_.emplace(std::move(*dir));
    ASSERT_EQ(mkdir((root() + "/buffers").c_str(), 0755), 0);
    ASSERT_TRUE(
        WriteFileAtomically(root() + "/buffers/0.bin", std::string(4096, 'x'))
            .ok());
  }
  const std::string& root() { return dir_->path(); }
  Manifest OneBuffer(uint64_t size) {
    Manifest m;
    m.backend = Backend::kPt;
    BufferInfo b;
    b.file = "buffers/0.bin";
    b.size = size;
    m.buffers.push_back(b);
    return m;
  }
  std::optional<TempDir> dir_;
};

TEST_F(ManifestFilesTest, SizeMustMatchTheFile) {
  EXPECT_TRUE(ValidateManifestFiles(OneBuffer(4096), root(), "m.json").ok());
  EXPECT_EQ(ValidateManifestFiles(OneBuffer(8192), root(), "m.json").message(),
            "m.json: buffers[0].size: 0x2000 (8192 bytes) is larger than the "
            "file buffers/0.bin (4096 bytes)");
  EXPECT_THAT(
      std::string(
          ValidateManifestFiles(OneBuffer(100), root(), "m.json").message()),
      HasSubstr("is smaller than the file buffers/0.bin (4096 bytes)"));
}

TEST_F(ManifestFilesTest, MissingFilesAndDirectories) {
  Manifest m = OneBuffer(4096);
  m.buffers[0].file = "buffers/9.bin";
  EXPECT_EQ(ValidateManifestFiles(m, root(), "m.json").message(),
            "m.json: buffers[0].file: buffers/9.bin: no such file in the "
            "bundle");
  m.buffers[0].file = "buffers";
  EXPECT_EQ(ValidateManifestFiles(m, root(), "m.json").message(),
            "m.json: buffers[0].file: buffers: not a regular file");
  m = OneBuffer(4096);
  m.images.push_back({"ab", "/bin/sh", "images/ab"});
  EXPECT_EQ(ValidateManifestFiles(m, root(), "m.json").message(),
            "m.json: images[0].file: images/ab: no such file in the bundle");
}

TEST_F(ManifestFilesTest, MemoryDumpMustFit) {
  Manifest m = OneBuffer(4096);
  MemoryDump dump;
  dump.file = "buffers/0.bin";
  dump.address = 0x1000;
  dump.file_offset = 0x800;
  dump.size = 0x800;
  m.memory.push_back(dump);
  EXPECT_TRUE(ValidateManifestFiles(m, root(), "m.json").ok());
  m.memory[0].size = 0x801;
  EXPECT_EQ(ValidateManifestFiles(m, root(), "m.json").message(),
            "m.json: memory[0]: [0x800, +0x801) extends past the end of "
            "buffers/0.bin (4096 bytes)");
}

}  // namespace
}  // namespace hwt::capture
