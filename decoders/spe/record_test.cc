// Record assembly and resynchronisation on streams written with the spec
// encoder: every field decoded, every event bit, extended headers, pads
// between packets, records cut off by the end of a chunk, garbage between and
// inside records, lost END packets; every byte accounted for.
#include <string>
#include <vector>

#include "decoders/spe/decoder.h"
#include "decoders/spe/encoder.h"
#include "decoders/spe/testing/spe_decode.h"
#include "gtest/gtest.h"

namespace hwt::spe {
namespace {

using testing::Bytes;
using testing::CollectingSink;
using testing::DecodeString;

void ExpectAccounted(const SpeStats& stats) {
  EXPECT_EQ(stats.bytes_decoded + stats.bytes_skipped, stats.bytes);
}

TEST(SpeRecordTest, EveryFieldOfAUserLoad) {
  SpeEncoder e;
  e.Address(0, SpeEncoder::InstructionAddress(0x401234, 0, true))
      .Context(0x1234, 0)
      .Context(0x99, 1)
      .OpType(1, 0x00)
      .Events(0x0000000c | (1u << 19) | (1u << 20), 4)
      .Counter(1, 7)
      .Counter(0, 300)
      .Address(2, SpeEncoder::DataVirtualAddress(0x7fffdead0010, 0x3c))
      .Counter(2, 25)
      .Address(3, SpeEncoder::DataPhysicalAddress(0x80001230, true, true, 5))
      .DataSource(0xe, 2)
      .Timestamp(123456789);
  auto out = DecodeString(e.bytes());
  ASSERT_EQ(out.records.size(), 1u);
  const Record& r = out.records[0];
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.offset, 0u);
  EXPECT_EQ(r.end_offset, e.size());
  EXPECT_EQ(r.pc, 0x401234u);
  EXPECT_EQ(r.pc_el, 0);
  EXPECT_TRUE(r.pc_ns);
  EXPECT_TRUE(r.has(kFieldContextEl1));
  EXPECT_EQ(r.context_el1, 0x1234u);
  EXPECT_TRUE(r.has(kFieldContextEl2));
  EXPECT_EQ(r.context_el2, 0x99u);
  EXPECT_EQ(r.op_class, 1);
  EXPECT_EQ(r.op_payload, 0);
  EXPECT_EQ(r.op_category(), OpCategory::kLoadGpr);
  EXPECT_EQ(r.events, 0x0000000cu | (1u << 19) | (1u << 20));
  EXPECT_TRUE(r.has_event(2));
  EXPECT_TRUE(r.has_event(3));
  EXPECT_EQ(r.issue_latency, 7);
  EXPECT_EQ(r.total_latency, 300);
  EXPECT_EQ(r.translation_latency, 25);
  EXPECT_EQ(r.data_va, 0x7fffdead0010u);
  EXPECT_EQ(r.va_tag, 0x3c);
  EXPECT_EQ(r.data_pa, 0x80001230u);
  EXPECT_TRUE(r.pa_ns);
  EXPECT_TRUE(r.pa_ch);
  EXPECT_EQ(r.pa_pat, 5);
  EXPECT_EQ(r.data_source, 0xeu);
  EXPECT_EQ(r.data_source_size, 2);
  EXPECT_EQ(r.timestamp, 123456789u);
  EXPECT_FALSE(r.has(kFieldBranchTarget));
  EXPECT_FALSE(r.has(kFieldPrevBranchTarget));
  EXPECT_EQ(out.stats.records, 1u);
  EXPECT_EQ(out.stats.partial_records, 0u);
  EXPECT_EQ(out.stats.packets, 12u);
  EXPECT_EQ(out.stats.bytes, e.size());
  EXPECT_EQ(out.stats.bytes_skipped, 0u);
  ExpectAccounted(out.stats);
  EXPECT_EQ(out.stats.op_categories[static_cast<int>(OpCategory::kLoadGpr)],
            1u);
  EXPECT_EQ(out.stats.events[2], 1u);
  EXPECT_EQ(out.stats.events[20], 1u);
  EXPECT_EQ(out.stats.events[1], 0u);
  EXPECT_EQ(out.stats.data_sources.at(0xe), 1u);
}

TEST(SpeRecordTest, KernelAddressesAndBranches) {
  SpeEncoder e;
  // EL1 kernel PC (bit 55 set) branching to a kernel target; previous
  // branch target through an extended header (index 4 = 0b00'100).
  e.Address(0, SpeEncoder::InstructionAddress(0xffff000012345678, 1, true))
      .OpType(2, 0x0a)  // indirect call
      .Events(0x82)     // retired, mispredicted
      .Counter(0, 12, /*extended=*/true)
      .Address(1, SpeEncoder::InstructionAddress(0xffff0000abcdef00, 1, true))
      .Address(4, SpeEncoder::InstructionAddress(0x400100, 0, false),
               /*extended=*/true)
      .End();
  auto out = DecodeString(e.bytes());
  ASSERT_EQ(out.records.size(), 1u);
  const Record& r = out.records[0];
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.pc, 0xffff000012345678u);
  EXPECT_EQ(r.pc_el, 1);
  EXPECT_EQ(r.branch_target, 0xffff0000abcdef00u);
  EXPECT_EQ(r.target_el, 1);
  EXPECT_TRUE(r.target_ns);
  EXPECT_EQ(r.prev_branch_target, 0x400100u);
  EXPECT_EQ(r.prev_target_el, 0);
  EXPECT_FALSE(r.prev_target_ns);
  EXPECT_EQ(r.total_latency, 12);
  EXPECT_EQ(r.op_category(), OpCategory::kCallIndirect);
  EXPECT_TRUE(r.has_event(7));
  EXPECT_FALSE(r.has(kFieldTimestamp));

  // Kernel data VA: bits [55:52] all ones -> top byte 0xff.
  SpeEncoder k;
  k.Address(0, SpeEncoder::InstructionAddress(0xffff000000001000, 1, true))
      .OpType(1, 0x01)
      .Address(2, SpeEncoder::DataVirtualAddress(0xfff0000000002000, 0x00))
      .End();
  out = DecodeString(k.bytes());
  ASSERT_EQ(out.records.size(), 1u);
  EXPECT_EQ(out.records[0].data_va, 0xfff0000000002000u);
  EXPECT_EQ(out.records[0].op_category(), OpCategory::kStoreGpr);
}

TEST(SpeRecordTest, UnknownIndicesAreKeptAndCounted) {
  SpeEncoder e;
  e.Address(0, SpeEncoder::InstructionAddress(0x1000, 0, true))
      .Address(9, 0x1111, true)  // extended index 9
      .Address(5, 0x2222)        // short index 5
      .Counter(5, 42)
      .Counter(30, 43, true)
      .Context(7, 2)  // reserved CONTEXT index
      .End();
  auto out = DecodeString(e.bytes());
  ASSERT_EQ(out.records.size(), 1u);
  const Record& r = out.records[0];
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.other_addresses, (1u << 9) | (1u << 5));
  EXPECT_EQ(r.other_counters, (1u << 5) | (1u << 30));
  EXPECT_EQ(out.stats.unknown_index_packets, 5u);
  ExpectAccounted(out.stats);
}

TEST(SpeRecordTest, EveryEventBitInEveryPayloadSize) {
  SpeEncoder e;
  int expected_records = 0;
  for (int bit = 0; bit < 64; ++bit) {
    for (int size : {1, 2, 4, 8}) {
      if (bit >= size * 8) continue;
      e.Address(0, SpeEncoder::InstructionAddress(0x1000 + bit, 0, true))
          .Events(uint64_t{1} << bit, size)
          .End();
      ++expected_records;
    }
  }
  auto out = DecodeString(e.bytes());
  ASSERT_EQ(out.records.size(), static_cast<size_t>(expected_records));
  EXPECT_EQ(out.stats.records, static_cast<uint64_t>(expected_records));
  size_t i = 0;
  for (int bit = 0; bit < 64; ++bit) {
    int sizes = 0;
    for (int size : {1, 2, 4, 8}) {
      if (bit >= size * 8) continue;
      ++sizes;
      EXPECT_EQ(out.records[i].events, uint64_t{1} << bit);
      EXPECT_EQ(out.records[i].pc, 0x1000u + bit);
      ++i;
    }
    EXPECT_EQ(out.stats.events[bit], static_cast<uint64_t>(sizes)) << bit;
  }
  ExpectAccounted(out.stats);
}

TEST(SpeRecordTest, PadsAndAlignmentBetweenPacketsChangeNothing) {
  RecordSpec spec;
  spec.pc = 0x400800;
  spec.op_class = 1;
  spec.op = 0x01;
  spec.events = 0x0e;
  spec.total_latency = 50;
  spec.issue_latency = 10;
  spec.data_va = 0x12340;
  spec.data_source = 8;
  spec.timestamp = 777;
  SpeEncoder plain;
  EncodeRecord(spec, plain);
  auto expected = DecodeString(plain.bytes());
  ASSERT_EQ(expected.records.size(), 1u);

  // Same packets with PADs and alignment pads of every size in between.
  SpeEncoder padded;
  padded.Pad(3)
      .Address(0, SpeEncoder::InstructionAddress(0x400800, 0, true))
      .Pad(1)
      .Alignment(3)
      .OpType(1, 0x01)
      .Alignment(0)
      .Events(0x0e)
      .Pad(17)
      .Counter(1, 10)
      .Alignment(1)
      .Counter(0, 50)
      .Alignment(2)
      .Address(2, SpeEncoder::DataVirtualAddress(0x12340, 0))
      .Pad(2)
      .DataSource(8)
      .Alignment(3)
      .Timestamp(777)
      .Pad(5);
  auto out = DecodeString(padded.bytes());
  ASSERT_EQ(out.records.size(), 1u);
  const Record& a = out.records[0];
  const Record& b = expected.records[0];
  EXPECT_TRUE(a.complete());
  EXPECT_EQ(a.offset, 3u);
  EXPECT_EQ(a.fields, b.fields);
  EXPECT_EQ(a.pc, b.pc);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.total_latency, b.total_latency);
  EXPECT_EQ(a.issue_latency, b.issue_latency);
  EXPECT_EQ(a.data_va, b.data_va);
  EXPECT_EQ(a.data_source, b.data_source);
  EXPECT_EQ(a.timestamp, b.timestamp);
  EXPECT_EQ(out.stats.bytes_skipped, 0u);
  EXPECT_EQ(out.stats.packets_by_type[static_cast<int>(PacketType::kAlignment)],
            5u);
  ExpectAccounted(out.stats);
}

TEST(SpeRecordTest, RecordCutAtTheEndIsPartial) {
  RecordSpec spec;
  spec.pc = 0x400000;
  spec.total_latency = 5;
  SpeEncoder whole;
  EncodeRecord(spec, whole);
  EncodeRecord(spec, whole);
  const size_t record_size = whole.size() / 2;
  // Cut the second record after every possible number of bytes past its PC
  // packet (9 bytes).
  for (size_t cut = 9; cut < record_size; ++cut) {
    std::string bytes = whole.bytes().substr(0, record_size + cut);
    auto out = DecodeString(bytes);
    SCOPED_TRACE(cut);
    ASSERT_EQ(out.records.size(), 2u);
    EXPECT_TRUE(out.records[0].complete());
    EXPECT_EQ(out.records[1].partial, PartialReason::kCutAtEnd);
    EXPECT_EQ(out.records[1].offset, record_size);
    EXPECT_EQ(out.stats.records, 1u);
    EXPECT_EQ(out.stats.partial_records, 1u);
    EXPECT_EQ(
        out.stats.partial_by_reason[static_cast<int>(PartialReason::kCutAtEnd)],
        1u);
    ExpectAccounted(out.stats);
  }
  // Cut in the middle of the PC packet: the 5 bytes are skipped as a
  // truncated packet and no record was started.
  auto out = DecodeString(whole.bytes().substr(0, record_size + 5));
  ASSERT_EQ(out.records.size(), 1u);
  EXPECT_EQ(out.stats.bytes_skipped, 5u);
  ASSERT_EQ(out.stats.skipped.size(), 1u);
  EXPECT_EQ(out.stats.skipped[0].offset, record_size);
  EXPECT_EQ(out.stats.skipped[0].length, 5u);
  EXPECT_EQ(out.stats.skipped[0].reason, SkipReason::kTruncatedPacket);
}

TEST(SpeRecordTest, GarbageBetweenRecordsIsSkippedAndCounted) {
  RecordSpec spec;
  spec.pc = 0x400000;
  spec.events = 0x2;
  spec.timestamp = 1;
  SpeEncoder e;
  EncodeRecord(spec, e);
  const uint64_t garbage1 = e.size();
  e.Raw("\xff\x02\x80\x10");  // no packet starts with these bytes
  spec.pc = 0x400004;
  spec.timestamp = 2;
  EncodeRecord(spec, e);
  const uint64_t garbage2 = e.size();
  e.Raw("\x21\x11");  // extended header with an invalid second byte
  spec.pc = 0x400008;
  spec.timestamp = 3;
  EncodeRecord(spec, e);
  auto out = DecodeString(e.bytes());
  ASSERT_EQ(out.records.size(), 3u);
  for (const Record& r : out.records) EXPECT_TRUE(r.complete());
  EXPECT_EQ(out.records[1].pc, 0x400004u);
  EXPECT_EQ(out.records[2].timestamp, 3u);
  EXPECT_EQ(out.stats.bytes_skipped, 4u + 2u);
  ASSERT_EQ(out.stats.skipped.size(), 2u);
  EXPECT_EQ(out.stats.skipped[0].offset, garbage1);
  EXPECT_EQ(out.stats.skipped[0].length, 4u);
  EXPECT_EQ(out.stats.skipped[0].reason, SkipReason::kInvalidHeader);
  EXPECT_EQ(out.stats.skipped[1].offset, garbage2);
  EXPECT_EQ(out.stats.skipped[1].length, 2u);
  ExpectAccounted(out.stats);
}

TEST(SpeRecordTest, GarbageInsideARecordMakesItPartial) {
  SpeEncoder e;
  e.Address(0, SpeEncoder::InstructionAddress(0x400000, 0, true))
      .OpType(1, 0)
      .Raw("\xff\xff")
      .Events(2)
      .Counter(0, 9)
      .End();
  auto out = DecodeString(e.bytes());
  ASSERT_EQ(out.records.size(), 2u);
  EXPECT_EQ(out.records[0].partial, PartialReason::kInvalidBytes);
  EXPECT_EQ(out.records[0].pc, 0x400000u);
  // The rest has no PC: its start was lost.
  EXPECT_EQ(out.records[1].partial, PartialReason::kNoPc);
  EXPECT_EQ(out.records[1].total_latency, 9);
  EXPECT_EQ(out.stats.records, 0u);
  EXPECT_EQ(out.stats.partial_records, 2u);
  ExpectAccounted(out.stats);
}

TEST(SpeRecordTest, LostEndSplitsAtTheRepeatedPacket) {
  // A half-buffer cut after the op type, followed directly by the next
  // half's first record (hwt(8)'s raw file has no framing).
  SpeEncoder e;
  e.Address(0, SpeEncoder::InstructionAddress(0x500000, 0, true)).OpType(1, 0);
  const uint64_t second = e.size();
  RecordSpec spec;
  spec.pc = 0x500010;
  spec.timestamp = 5;
  EncodeRecord(spec, e);
  auto out = DecodeString(e.bytes());
  ASSERT_EQ(out.records.size(), 2u);
  EXPECT_EQ(out.records[0].partial, PartialReason::kRepeatedPacket);
  EXPECT_EQ(out.records[0].pc, 0x500000u);
  EXPECT_EQ(out.records[0].end_offset, second);
  EXPECT_TRUE(out.records[1].complete());
  EXPECT_EQ(out.records[1].offset, second);
  EXPECT_EQ(out.records[1].pc, 0x500010u);
  EXPECT_EQ(
      out.stats
          .partial_by_reason[static_cast<int>(PartialReason::kRepeatedPacket)],
      1u);
}

TEST(SpeRecordTest, StrayEndAndTimestampOnly) {
  SpeEncoder e;
  e.End().End().Timestamp(9);
  auto out = DecodeString(e.bytes());
  // Two ENDs without a record produce nothing; a lone TIMESTAMP is a record
  // without a PC.
  ASSERT_EQ(out.records.size(), 1u);
  EXPECT_EQ(out.records[0].partial, PartialReason::kNoPc);
  EXPECT_EQ(out.stats.packets, 3u);
  ExpectAccounted(out.stats);
}

TEST(SpeRecordTest, ChunksAreDecodedSeparatelyWithFileOffsets) {
  RecordSpec spec;
  spec.pc = 0x400000;
  spec.timestamp = 10;
  SpeEncoder first;
  EncodeRecord(spec, first);
  first.Address(0, SpeEncoder::InstructionAddress(0x400004, 0, true))
      .OpType(1, 0);  // cut by the chunk end
  SpeEncoder second;
  second.Raw(std::string(5, '\x01'));  // keep alignment relative: unit start
  second.StartUnit();
  second.Alignment(3);
  spec.pc = 0x400008;
  EncodeRecord(spec, second);
  std::string file =
      first.bytes() + std::string(5, '\x01') + second.bytes().substr(5);
  const uint64_t second_offset = first.size() + 5;

  SpeStats stats;
  CollectingSink sink;
  {
    BufferDecoder decoder(3, &stats, &sink, DecodeOptions());
    capture::BufferChunk flags;
    flags.partial_record = true;
    decoder.DecodeChunk(Bytes(file).subspan(0, first.size()), 0, flags);
    capture::BufferChunk flags2;
    flags2.final = true;
    decoder.DecodeChunk(Bytes(file).subspan(second_offset), second_offset,
                        flags2);
    decoder.Finish();
  }
  ASSERT_EQ(sink.records.size(), 3u);
  EXPECT_EQ(sink.buffers[0], 3u);
  EXPECT_TRUE(sink.records[0].complete());
  EXPECT_EQ(sink.records[1].partial, PartialReason::kCutAtEnd);
  EXPECT_EQ(sink.records[1].pc, 0x400004u);
  EXPECT_TRUE(sink.records[2].complete());
  EXPECT_EQ(sink.records[2].pc, 0x400008u);
  // The alignment pad (0x23: 16 bytes from the unit start) ends where the
  // record begins.
  EXPECT_EQ(sink.records[2].offset, second_offset + 16);
  EXPECT_EQ(stats.chunks, 2u);
  EXPECT_EQ(stats.chunks_partial_record, 1u);
  EXPECT_EQ(stats.chunks_final, 1u);
  EXPECT_EQ(stats.bytes, file.size() - 5);
  EXPECT_EQ(stats.bytes_skipped, 0u);
  ExpectAccounted(stats);
  ASSERT_EQ(sink.ended.size(), 1u);
}

TEST(SpeRecordTest, BatchesKeepOrderAndPartialRecordsCanBeLeftOut) {
  SpeEncoder e;
  for (int i = 0; i < 100; ++i) {
    RecordSpec spec;
    spec.pc = 0x1000 + 4 * i;
    spec.timestamp = i;
    EncodeRecord(spec, e);
    if (i % 10 == 0) e.Address(0, 0).OpType(0, 0);  // partial (repeated)
  }
  DecodeOptions options;
  options.batch_size = 7;
  auto all = DecodeString(e.bytes(), options);
  EXPECT_EQ(all.records.size(), 110u);
  EXPECT_EQ(all.stats.records, 100u);
  EXPECT_EQ(all.stats.partial_records, 10u);
  options.deliver_partial_records = false;
  auto complete = DecodeString(e.bytes(), options);
  ASSERT_EQ(complete.records.size(), 100u);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(complete.records[i].pc, 0x1000u + 4 * i);
    EXPECT_EQ(complete.records[i].timestamp, static_cast<uint64_t>(i));
  }
  EXPECT_EQ(complete.stats.partial_records, 10u);
}

TEST(SpeRecordTest, OperationCategoriesAreCounted) {
  SpeEncoder e;
  const std::pair<int, uint8_t> ops[] = {{1, 0x00}, {1, 0x00}, {1, 0x01},
                                         {1, 0x25}, {2, 0x01}, {2, 0x12},
                                         {0, 0x00}, {1, 0x06}};
  for (auto [op_class, op] : ops) {
    RecordSpec spec;
    spec.pc = 0x1000;
    spec.op_class = op_class;
    spec.op = op;
    EncodeRecord(spec, e);
  }
  // And one record without an operation type.
  e.Address(0, SpeEncoder::InstructionAddress(0x2000, 0, true)).End();
  auto out = DecodeString(e.bytes());
  auto count = [&](OpCategory c) {
    return out.stats.op_categories[static_cast<int>(c)];
  };
  EXPECT_EQ(count(OpCategory::kLoadGpr), 2u);
  EXPECT_EQ(count(OpCategory::kStoreGpr), 1u);
  EXPECT_EQ(count(OpCategory::kMemset), 1u);
  EXPECT_EQ(count(OpCategory::kBranchConditional), 1u);
  EXPECT_EQ(count(OpCategory::kReturn), 1u);
  EXPECT_EQ(count(OpCategory::kOther), 1u);
  EXPECT_EQ(count(OpCategory::kLoadAtomic), 1u);
  EXPECT_EQ(count(OpCategory::kNone), 1u);
  EXPECT_EQ(out.stats.op_group("load"), 3u);
  EXPECT_EQ(out.stats.op_group("store"), 2u);
  EXPECT_EQ(out.stats.op_group("branch"), 2u);
  EXPECT_EQ(out.stats.records_without_data_source, 9u);
}

}  // namespace
}  // namespace hwt::spe
