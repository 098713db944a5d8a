// Fuzz-style robustness: random bytes and random mutations of valid streams
// never crash the decoder or the listing, and every byte is either decoded or
// skipped (bytes_decoded + bytes_skipped == bytes), with the skipped runs
// adding up to bytes_skipped. Deterministic seeds keep failures reproducible.
#include <random>
#include <string>

#include "decoders/spe/decoder.h"
#include "decoders/spe/encoder.h"
#include "decoders/spe/listing.h"
#include "decoders/spe/scanner.h"
#include "decoders/spe/testing/spe_decode.h"
#include "gtest/gtest.h"

namespace hwt::spe {
namespace {

// Checks the accounting invariants of one decode, and that the listing walks
// exactly the same bytes.
class Checker {
 public:
  explicit Checker(const std::string& bytes) : bytes_(bytes) {}
  void OnPacket(const Packet& packet) {
    EXPECT_EQ(packet.offset, next_);
    EXPECT_GT(packet.size, 0);
    next_ = packet.offset + packet.size;
    listed_ += packet.size;
    // Formatting must not read out of bounds either.
    FormatPacket(
        reinterpret_cast<const uint8_t*>(bytes_.data()) + packet.offset, packet,
        cpu_);
  }
  void OnSkipped(uint64_t offset, uint64_t length, SkipReason reason) {
    EXPECT_EQ(offset, next_);
    EXPECT_GT(length, 0u);
    next_ = offset + length;
    listed_ += length;
    FormatSkipped(reinterpret_cast<const uint8_t*>(bytes_.data()) + offset,
                  length, reason);
  }
  uint64_t next() const { return next_; }
  uint64_t listed() const { return listed_; }

 private:
  const std::string& bytes_;
  CpuModel cpu_ = IdentifyCpu(0x413fd0c1);
  uint64_t next_ = 0;
  uint64_t listed_ = 0;
};

void CheckStream(const std::string& bytes) {
  testing::CollectingSink sink;
  SpeStats stats = DecodeBytes(testing::Bytes(bytes), &sink);
  ASSERT_EQ(stats.bytes, bytes.size());
  ASSERT_EQ(stats.bytes_decoded + stats.bytes_skipped, stats.bytes);
  uint64_t skipped = 0;
  for (const SkippedRange& range : stats.skipped) skipped += range.length;
  if (stats.skipped_ranges <= SpeStats::kMaxListedSkips) {
    ASSERT_EQ(skipped, stats.bytes_skipped);
    ASSERT_EQ(stats.skipped.size(), stats.skipped_ranges);
  }
  uint64_t by_type = 0;
  for (uint64_t n : stats.packets_by_type) by_type += n;
  ASSERT_EQ(by_type, stats.packets);
  ASSERT_EQ(sink.records.size(), stats.records + stats.partial_records);
  uint64_t previous_end = 0;
  for (const Record& r : sink.records) {
    ASSERT_LE(previous_end, r.offset);
    ASSERT_LT(r.offset, r.end_offset);
    ASSERT_LE(r.end_offset, bytes.size());
    previous_end = r.end_offset;
    FormatRecordText(r, IdentifyCpu(0));
    FormatRecordJson(r, 0, IdentifyCpu(0));
  }
  Checker checker(bytes);
  ScanPackets(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), 0,
              checker);
  ASSERT_EQ(checker.next(), bytes.size());
  ASSERT_EQ(checker.listed(), bytes.size());
}

std::string ValidStream(std::mt19937_64& rng, int records) {
  SpeEncoder e;
  for (int i = 0; i < records; ++i) {
    RecordSpec spec;
    spec.pc = rng() & 0xffffffffffff;
    spec.el = static_cast<int>(rng() % 3);
    spec.op_class = static_cast<int>(rng() % 3);
    spec.op = static_cast<uint8_t>(rng());
    spec.events = rng() & 0x3ffffff;
    if (rng() % 2) spec.total_latency = static_cast<uint16_t>(rng());
    if (rng() % 2) spec.issue_latency = static_cast<uint16_t>(rng());
    if (rng() % 2) spec.translation_latency = static_cast<uint16_t>(rng());
    if (rng() % 2) spec.data_va = rng();
    if (rng() % 3 == 0) spec.data_pa = rng();
    if (rng() % 2) spec.branch_target = rng();
    if (rng() % 2) spec.data_source = rng() % 16;
    if (rng() % 2) spec.context = static_cast<uint32_t>(rng());
    if (rng() % 2) spec.timestamp = rng();
    EncodeRecord(spec, e);
    if (rng() % 4 == 0) e.Pad(rng() % 20);
    if (rng() % 8 == 0) e.Alignment(static_cast<int>(rng() % 4));
  }
  return e.bytes();
}

TEST(SpeRobustnessTest, RandomBytes) {
  std::mt19937_64 rng(1);
  for (int iteration = 0; iteration < 2000; ++iteration) {
    std::string bytes(rng() % 512, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    ASSERT_NO_FATAL_FAILURE(CheckStream(bytes)) << "iteration " << iteration;
  }
}

TEST(SpeRobustnessTest, RandomMutationsOfValidStreams) {
  std::mt19937_64 rng(2);
  for (int iteration = 0; iteration < 2000; ++iteration) {
    std::string bytes = ValidStream(rng, 1 + rng() % 20);
    int mutations = 1 + rng() % 8;
    for (int m = 0; m < mutations && !bytes.empty(); ++m) {
      size_t at = rng() % bytes.size();
      switch (rng() % 4) {
        case 0:  // flip a byte
          bytes[at] = static_cast<char>(rng());
          break;
        case 1:  // delete a run
          bytes.erase(at, 1 + rng() % 8);
          break;
        case 2:  // insert garbage
          bytes.insert(at,
                       std::string(1 + rng() % 8, static_cast<char>(rng())));
          break;
        case 3:  // truncate
          bytes.resize(at);
          break;
      }
    }
    ASSERT_NO_FATAL_FAILURE(CheckStream(bytes)) << "iteration " << iteration;
  }
}

TEST(SpeRobustnessTest, ValidStreamsDecodeCompletely) {
  std::mt19937_64 rng(3);
  for (int iteration = 0; iteration < 200; ++iteration) {
    int records = 1 + rng() % 50;
    std::string bytes = ValidStream(rng, records);
    auto out = testing::DecodeString(bytes);
    ASSERT_EQ(out.stats.records, static_cast<uint64_t>(records));
    ASSERT_EQ(out.stats.partial_records, 0u);
    ASSERT_EQ(out.stats.bytes_skipped, 0u);
  }
}

TEST(SpeRobustnessTest, EveryPrefixOfAValidStream) {
  std::mt19937_64 rng(4);
  std::string bytes = ValidStream(rng, 10);
  for (size_t n = 0; n <= bytes.size(); ++n) {
    ASSERT_NO_FATAL_FAILURE(CheckStream(bytes.substr(0, n))) << n;
    ASSERT_NO_FATAL_FAILURE(CheckStream(bytes.substr(n))) << n;
  }
}

}  // namespace
}  // namespace hwt::spe
