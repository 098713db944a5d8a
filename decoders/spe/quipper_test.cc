// The real SPE records from quipper's test (testdata/spe/quipper_records.hex)
// decode to the values written by hand in quipper_records.expected; the
// listing matches the golden packet listing; quipper's invalid input yields
// no record and every byte is accounted for.
#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/hex_dump.h"
#include "base/testing/test_env.h"
#include "decoders/spe/decoder.h"
#include "decoders/spe/events.h"
#include "decoders/spe/listing.h"
#include "decoders/spe/scanner.h"
#include "decoders/spe/testing/spe_decode.h"
#include "gtest/gtest.h"

namespace hwt::spe {
namespace {

std::string TestData(const std::string& name) {
  return hwt::testing::SourceDir() + "/testdata/spe/" + name;
}

// Hex bytes, '#' comments.
std::string ReadHex(const std::string& path) {
  auto text = ReadFileToString(path);
  EXPECT_TRUE(text.ok()) << text.status();
  absl::StatusOr<std::string> bytes = ParseHexDump(text.value_or(""));
  EXPECT_TRUE(bytes.ok()) << path << ": " << bytes.status();
  return bytes.value_or("");
}

// "key value..." lines grouped under "record N" headers; section -1 holds the
// lines before the first record.
std::map<int, std::map<std::string, std::string>> ReadExpected(
    const std::string& path) {
  auto text = ReadFileToString(path);
  EXPECT_TRUE(text.ok()) << text.status();
  std::map<int, std::map<std::string, std::string>> sections;
  int section = -1;
  for (absl::string_view line : absl::StrSplit(text.value_or(""), '\n')) {
    if (line.empty() || line[0] == '#') continue;
    std::pair<std::string, std::string> kv =
        absl::StrSplit(line, absl::MaxSplits(' ', 1));
    if (kv.first == "record") {
      EXPECT_TRUE(absl::SimpleAtoi(kv.second, &section));
      continue;
    }
    sections[section][kv.first] = kv.second;
  }
  return sections;
}

std::string Hex(uint64_t v) {
  std::ostringstream out;
  out << "0x" << std::hex << v;
  return out.str();
}
std::string Hex2(uint64_t v) {
  char buf[8];
  snprintf(buf, sizeof(buf), "0x%02x", static_cast<unsigned>(v));
  return buf;
}

// The record as the same "key value" lines (only keys the expectation has).
std::map<std::string, std::string> Describe(const Record& r,
                                            const CpuModel& cpu) {
  std::map<std::string, std::string> out;
  out["offset"] = std::to_string(r.offset);
  out["end_offset"] = std::to_string(r.end_offset);
  const std::pair<uint32_t, const char*> names[] = {
      {kFieldPc, "pc"},
      {kFieldContextEl1, "context_el1"},
      {kFieldContextEl2, "context_el2"},
      {kFieldOpType, "op"},
      {kFieldEvents, "events"},
      {kFieldIssueLatency, "issue_latency"},
      {kFieldTotalLatency, "total_latency"},
      {kFieldBranchTarget, "branch_target"},
      {kFieldPrevBranchTarget, "prev_branch_target"},
      {kFieldDataVirtual, "data_va"},
      {kFieldDataPhysical, "data_pa"},
      {kFieldTranslationLatency, "translation_latency"},
      {kFieldDataSource, "data_source"},
      {kFieldTimestamp, "timestamp"},
  };
  std::vector<std::string> fields;
  // In packet order of the expectation: sort by the order the record's
  // packets appear is not kept, so list in the fixed order used above and
  // compare as sets below.
  for (auto [bit, name] : names) {
    if (r.has(bit)) fields.push_back(name);
  }
  out["fields"] = absl::StrJoin(fields, " ");
  out["pc"] = Hex(r.pc);
  out["pc_el"] = std::to_string(r.pc_el);
  out["pc_ns"] = std::to_string(r.pc_ns);
  out["context_el1"] = Hex(r.context_el1);
  out["context_el2"] = Hex(r.context_el2);
  out["op_class"] = std::to_string(r.op_class);
  out["op_payload"] = Hex2(r.op_payload);
  out["op_category"] = std::string(OpCategoryName(r.op_category()));
  std::vector<std::string> events;
  for (int bit = 0; bit < 64; ++bit) {
    if (r.has_event(bit)) events.push_back(EventName(bit, cpu));
  }
  out["events"] = absl::StrJoin(events, " ");
  out["issue_latency"] = std::to_string(r.issue_latency);
  out["total_latency"] = std::to_string(r.total_latency);
  out["translation_latency"] = std::to_string(r.translation_latency);
  out["branch_target"] = Hex(r.branch_target);
  out["target_el"] = std::to_string(r.target_el);
  out["target_ns"] = std::to_string(r.target_ns);
  out["data_va"] = Hex(r.data_va);
  out["va_tag"] = Hex2(r.va_tag);
  out["data_source"] = Hex(r.data_source);
  out["timestamp"] = std::to_string(r.timestamp);
  return out;
}

std::vector<std::string> SortedWords(const std::string& s) {
  std::vector<std::string> words = absl::StrSplit(s, ' ');
  std::sort(words.begin(), words.end());
  return words;
}

TEST(SpeQuipperTest, RealRecordsDecodeToTheStatedValues) {
  std::string bytes = ReadHex(TestData("quipper_records.hex"));
  ASSERT_EQ(bytes.size(), 128u);
  auto expected = ReadExpected(TestData("quipper_records.expected"));
  auto out = testing::DecodeString(bytes);
  const auto& summary = expected[-1];
  EXPECT_EQ(std::to_string(out.stats.records), summary.at("records"));
  EXPECT_EQ(std::to_string(out.stats.partial_records), summary.at("partial"));
  ASSERT_EQ(out.records.size(), 2u);
  CpuModel cpu = IdentifyCpu(0);
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(::testing::Message() << "record " << i);
    EXPECT_TRUE(out.records[i].complete());
    auto actual = Describe(out.records[i], cpu);
    ASSERT_FALSE(expected[i].empty());
    for (const auto& [key, value] : expected[i]) {
      ASSERT_TRUE(actual.count(key)) << key;
      if (key == "fields") {
        EXPECT_EQ(SortedWords(actual[key]), SortedWords(value));
      } else {
        EXPECT_EQ(actual[key], value) << key;
      }
    }
  }
  EXPECT_EQ(out.stats.bytes_decoded, 128u);
  EXPECT_EQ(out.stats.bytes_skipped, 0u);
}

TEST(SpeQuipperTest, InvalidInputGivesNoRecordAndAccountsForEveryByte) {
  std::string bytes = ReadHex(TestData("quipper_invalid.hex"));
  ASSERT_EQ(bytes.size(), 10u);
  auto out = testing::DecodeString(bytes);
  EXPECT_EQ(out.stats.records, 0u);
  EXPECT_EQ(out.stats.partial_records, 1u);
  ASSERT_EQ(out.records.size(), 1u);
  EXPECT_EQ(out.records[0].partial, PartialReason::kCutAtEnd);
  EXPECT_EQ(out.records[0].issue_latency, 0x7788);
  EXPECT_EQ(out.stats.bytes_decoded, 3u);
  EXPECT_EQ(out.stats.bytes_skipped, 7u);
  ASSERT_EQ(out.stats.skipped.size(), 2u);
  EXPECT_EQ(out.stats.skipped[0].offset, 0u);
  EXPECT_EQ(out.stats.skipped[0].length, 4u);
  EXPECT_EQ(out.stats.skipped[0].reason, SkipReason::kInvalidHeader);
  EXPECT_EQ(out.stats.skipped[1].offset, 7u);
  EXPECT_EQ(out.stats.skipped[1].length, 3u);
  EXPECT_EQ(out.stats.skipped[1].reason, SkipReason::kTruncatedPacket);
}

// Golden listing: the packets of quipper's records in perf's dump format.
// The expected file was checked by hand against quipper's annotations.
class Lister {
 public:
  explicit Lister(const std::string& bytes) : bytes_(bytes) {}
  void OnPacket(const Packet& packet) {
    lines_ += FormatListingLine(
        packet.offset,
        FormatPacket(
            reinterpret_cast<const uint8_t*>(bytes_.data()) + packet.offset,
            packet, cpu_));
    lines_ += "\n";
  }
  void OnSkipped(uint64_t offset, uint64_t length, SkipReason reason) {
    lines_ += FormatListingLine(
        offset,
        FormatSkipped(reinterpret_cast<const uint8_t*>(bytes_.data()) + offset,
                      length, reason));
    lines_ += "\n";
  }
  const std::string& lines() const { return lines_; }

 private:
  const std::string& bytes_;
  CpuModel cpu_ = IdentifyCpu(0x413fd0c1);  // Neoverse N1
  std::string lines_;
};

TEST(SpeQuipperTest, PacketListingMatchesGolden) {
  for (const char* name : {"quipper_records", "quipper_invalid"}) {
    SCOPED_TRACE(name);
    std::string bytes = ReadHex(TestData(std::string(name) + ".hex"));
    Lister lister(bytes);
    ScanPackets(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), 0,
                lister);
    auto golden = ReadFileToString(TestData(std::string(name) + ".packets"));
    ASSERT_TRUE(golden.ok()) << golden.status();
    EXPECT_EQ(lister.lines(), *golden);
  }
}

}  // namespace
}  // namespace hwt::spe
