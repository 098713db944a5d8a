// SPE records written by hand, byte by byte, from the Arm architecture's
// packet definitions (Arm ARM, "Statistical Profiling Extension" packet
// formats; summarised in docs and ../shared/reference/spe.md), with every
// expected field value written here too. Unlike the encoder round trips, a
// layout mistake shared by the project's encoder and decoder (which bit is
// NS, where the exception level sits, which header is which size) fails
// these tests. Nothing here uses encoder.h.
//
// Header bytes used (bit patterns from the architecture):
//   PAD 0b00000000, END 0b00000001, TIMESTAMP 0b01110001 + 8 bytes;
//   EVENTS 0b01ss0010 and DATA SOURCE 0b01ss0011, payload 1 << ss bytes;
//   CONTEXT 0b011001ii + 4 bytes (ii 0: CONTEXTIDR_EL1, 1: CONTEXTIDR_EL2);
//   OPERATION TYPE 0b010010cc + 1 byte (cc 0 other, 1 load/store, 2 branch);
//   ADDRESS 0b10110iii + 8 bytes, COUNTER 0b10011iii + 2 bytes; extended
//   forms prefix 0b001000jj, the index being jj:iii.
// Address payloads: instruction addresses NS [63], EL [62:61], VA [55:0];
// data VA TAG [63:56], VA [55:0]; data PA NS [63], CH [62], PAT [59:56],
// PA [55:0].
#include <cstdint>
#include <string>

#include "absl/strings/str_format.h"
#include "base/hex_dump.h"
#include "decoders/spe/data_source.h"
#include "decoders/spe/decoder.h"
#include "decoders/spe/events.h"
#include "decoders/spe/midr.h"
#include "decoders/spe/record.h"
#include "decoders/spe/testing/spe_decode.h"
#include "gtest/gtest.h"

namespace hwt::spe {
namespace {

using testing::Decoded;
using testing::DecodeString;

std::string Bytes(std::string_view hex) {
  absl::StatusOr<std::string> bytes = ParseHexDump(hex);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.value_or("");
}

// Decodes hand-written bytes that must be exactly whole records.
Decoded DecodeWhole(const std::string& bytes,
                    const DecodeOptions& options = {}) {
  Decoded d = DecodeString(bytes, options);
  EXPECT_EQ(d.stats.bytes, bytes.size());
  EXPECT_EQ(d.stats.bytes_decoded, bytes.size());
  EXPECT_EQ(d.stats.bytes_skipped, 0u);
  EXPECT_EQ(d.stats.partial_records, 0u);
  return d;
}

// A store, with every packet a load/store record can carry.
constexpr char kStore[] = R"(
  b0 56 34 12 00 80 ff ff a0  # PC: NS=1 EL=1 (0xa0 = 1 01 0 0000),
                              #     VA 0xffff8000123456 (bit 55 set)
  64 78 56 34 12              # CONTEXT index 0: CONTEXTIDR_EL1 0x12345678
  65 ef be ad de              # CONTEXT index 1: CONTEXTIDR_EL2 0xdeadbeef
  49 01                       # OP TYPE class 1 (load/store), 0x01: store, GP
  52 46 08                    # EVENTS, 2 bytes: 0x0846 = bits 1 2 6 11
  98 23 01                    # COUNTER 0: total latency 0x123
  99 45 00                    # COUNTER 1: issue latency 0x45
  9a 07 00                    # COUNTER 2: translation latency 7
  b2 ef be ad de ff 7f 00 5a  # ADDRESS 2: data VA 0x7fffdeadbeef, TAG 0x5a
  b3 78 56 34 12 80 00 00 c9  # ADDRESS 3: data PA 0x8012345678,
                              #   0xc9 = NS 1, CH 1, 00, PAT 0b1001
  43 0e                       # DATA SOURCE, 1 byte: 0xe
  21 9a 34 12                 # extended COUNTER, index 01:010 = 10
  21 b1 11 22 33 44 55 66 77 08  # extended ADDRESS, index 01:001 = 9
  00 00                       # PAD PAD
  71 ab 89 67 45 23 01 00 00  # TIMESTAMP 0x123456789ab, ends the record
)";

TEST(SpeArchitectureTest, StoreRecordWithEveryLoadStorePacket) {
  const Decoded d = DecodeWhole(Bytes(kStore));
  ASSERT_EQ(d.records.size(), 1u);
  const Record& r = d.records[0];
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.offset, 0u);
  EXPECT_EQ(r.end_offset,
            9u + 5 + 5 + 2 + 3 + 3 + 3 + 3 + 9 + 9 + 2 + 4 + 10 + 2 + 9);
  EXPECT_EQ(r.fields, kFieldPc | kFieldContextEl1 | kFieldContextEl2 |
                          kFieldOpType | kFieldEvents | kFieldTotalLatency |
                          kFieldIssueLatency | kFieldTranslationLatency |
                          kFieldDataVirtual | kFieldDataPhysical |
                          kFieldDataSource | kFieldTimestamp);
  EXPECT_EQ(r.pc, 0xffffff8000123456ULL);  // sign-extended from bit 55
  EXPECT_EQ(r.pc_el, 1);
  EXPECT_TRUE(r.pc_ns);
  EXPECT_EQ(r.context_el1, 0x12345678u);
  EXPECT_EQ(r.context_el2, 0xdeadbeefu);
  EXPECT_EQ(r.op_class, 1);
  EXPECT_EQ(r.op_payload, 0x01);
  EXPECT_EQ(r.op_category(), OpCategory::kStoreGpr);
  EXPECT_EQ(r.events, 0x846u);
  EXPECT_TRUE(r.has_event(kEventRetired));
  EXPECT_TRUE(r.has_event(kEventL1dAccess));
  EXPECT_TRUE(r.has_event(kEventNotTaken));
  EXPECT_TRUE(r.has_event(kEventAlignment));
  EXPECT_EQ(r.total_latency, 0x123);
  EXPECT_EQ(r.issue_latency, 0x45);
  EXPECT_EQ(r.translation_latency, 7);
  EXPECT_EQ(r.data_va, 0x7fffdeadbeefULL);
  EXPECT_EQ(r.va_tag, 0x5a);
  EXPECT_EQ(r.data_pa, 0x8012345678ULL);
  EXPECT_TRUE(r.pa_ns);
  EXPECT_TRUE(r.pa_ch);
  EXPECT_EQ(r.pa_pat, 0x9);
  EXPECT_EQ(r.data_source, 0xeu);
  EXPECT_EQ(r.data_source_size, 1);
  EXPECT_EQ(r.other_counters, 1u << 10);
  EXPECT_EQ(r.other_addresses, 1u << 9);
  EXPECT_EQ(r.timestamp, 0x123456789abULL);
  // Statistics: one record, its events and data source, two packets of
  // indices the architecture leaves to later versions.
  EXPECT_EQ(d.stats.records, 1u);
  EXPECT_EQ(d.stats.unknown_index_packets, 2u);
  EXPECT_EQ(d.stats.events[kEventAlignment], 1u);
  EXPECT_EQ(d.stats.data_sources.at(0xe), 1u);
  EXPECT_EQ(d.stats.packets_by_type[static_cast<int>(PacketType::kPad)], 1u);
}

// A branch, ended by END: the three instruction address kinds with every
// EL/NS combination that tells bits 63, 62 and 61 apart.
constexpr char kBranch[] = R"(
  b0 00 10 40 00 00 00 00 00  # PC 0x401000, EL0, NS=0
  4a 01                       # OP TYPE class 2 (branch), 0x01: conditional
  62 c2 00 00 02              # EVENTS, 4 bytes: 0x020000c2 = bits 1 6 7 25
  b1 40 10 40 00 00 00 00 60  # ADDRESS 1: target 0x401040, 0x60: NS=0 EL=3
  b4 fc 0f 40 00 00 00 00 c0  # ADDRESS 4: previous target 0x400ffc,
                              #   0xc0: NS=1 EL=2
  98 11 00                    # total latency 17
  01                          # END
)";

TEST(SpeArchitectureTest, BranchRecordWithEveryInstructionAddressKind) {
  const Decoded d = DecodeWhole(Bytes(kBranch));
  ASSERT_EQ(d.records.size(), 1u);
  const Record& r = d.records[0];
  EXPECT_EQ(r.fields, kFieldPc | kFieldOpType | kFieldEvents |
                          kFieldBranchTarget | kFieldPrevBranchTarget |
                          kFieldTotalLatency);
  EXPECT_EQ(r.end_offset, 9u + 2 + 5 + 9 + 9 + 3 + 1);
  EXPECT_EQ(r.pc, 0x401000u);
  EXPECT_EQ(r.pc_el, 0);
  EXPECT_FALSE(r.pc_ns);
  EXPECT_EQ(r.op_class, 2);
  EXPECT_EQ(r.op_category(), OpCategory::kBranchConditional);
  EXPECT_EQ(r.events, 0x020000c2u);
  EXPECT_TRUE(r.has_event(kEventMispredicted));
  EXPECT_TRUE(r.has_event(kEventSmcu));
  EXPECT_EQ(r.branch_target, 0x401040u);
  EXPECT_EQ(r.target_el, 3);
  EXPECT_FALSE(r.target_ns);
  EXPECT_EQ(r.prev_branch_target, 0x400ffcu);
  EXPECT_EQ(r.prev_target_el, 2);
  EXPECT_TRUE(r.prev_target_ns);
  EXPECT_EQ(r.total_latency, 17);
  EXPECT_FALSE(r.has(kFieldTimestamp));
}

// Physical addresses: NS, CH and PAT are separate bits of the top byte, and
// none of them leaks into the address. Each payload is written out.
TEST(SpeArchitectureTest, PhysicalAddressBitsAreIndependent) {
  struct Case {
    const char* top;  // byte 7 of the payload
    bool ns, ch;
    uint8_t pat;
  };
  const Case cases[] = {
      {"00", false, false, 0x0}, {"80", true, false, 0x0},
      {"40", false, true, 0x0},  {"0f", false, false, 0xf},
      {"01", false, false, 0x1}, {"08", false, false, 0x8},
      {"c5", true, true, 0x5},   {"30", false, false, 0x0},  // [61:60] res.
  };
  for (const Case& c : cases) {
    const std::string hex = std::string(
                                "b0 00 20 40 00 00 00 00 00\n"
                                "b3 00 f0 de bc 9a 78 56 ") +
                            c.top + "\n01";
    const Decoded d = DecodeWhole(Bytes(hex));
    ASSERT_EQ(d.records.size(), 1u) << c.top;
    const Record& r = d.records[0];
    EXPECT_EQ(r.data_pa, 0x56789abcdef000ULL) << c.top;
    EXPECT_EQ(r.pa_ns, c.ns) << c.top;
    EXPECT_EQ(r.pa_ch, c.ch) << c.top;
    EXPECT_EQ(r.pa_pat, c.pat) << c.top;
  }
}

// Data virtual addresses: the top byte is a tag, and a kernel address
// (bits [55:52] all ones) gets its top byte back as 0xff, as Linux does.
// Instruction addresses sign-extend bit 55 whatever the EL.
TEST(SpeArchitectureTest, VirtualAddressTopBytes) {
  const Decoded d = DecodeWhole(Bytes(R"(
    b0 00 00 00 00 00 00 70 00  # PC 0x70000000000000: bit 55 clear, EL0
    b2 78 56 34 12 00 00 f0 00  # VA 0xf0000012345678, tag 0: kernel
    01
    b0 00 00 00 00 00 00 80 20  # PC 0x80000000000000: bit 55 set, EL1
    b2 78 56 34 12 00 00 e0 a5  # VA 0xe0000012345678, tag 0xa5: not kernel
    01
  )"));
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[0].pc, 0x70000000000000ULL);
  EXPECT_EQ(d.records[0].data_va, 0xfff0000012345678ULL);
  EXPECT_EQ(d.records[0].va_tag, 0x00);
  EXPECT_EQ(d.records[1].pc, 0xff80000000000000ULL);
  EXPECT_EQ(d.records[1].pc_el, 1);
  EXPECT_FALSE(d.records[1].pc_ns);
  EXPECT_EQ(d.records[1].data_va, 0xe0000012345678ULL);
  EXPECT_EQ(d.records[1].va_tag, 0xa5);
}

// Every event bit in each payload size, from the header's size field
// (0x42, 0x52, 0x62, 0x72: 1, 2, 4, 8 bytes) and the bit's byte.
TEST(SpeArchitectureTest, EveryEventBitInEveryEncoding) {
  const char* headers[] = {"42", "52", "62", "72"};
  for (int log2 = 0; log2 < 4; ++log2) {
    const int size = 1 << log2;
    for (int bit = 0; bit < 8 * size; ++bit) {
      std::string payload;
      for (int byte = 0; byte < size; ++byte) {
        payload += byte == bit / 8 ? absl::StrFormat(" %02x", 1 << (bit % 8))
                                   : std::string(" 00");
      }
      const std::string hex = std::string("b0 00 10 40 00 00 00 00 00\n") +
                              headers[log2] + payload + "\n01";
      const Decoded d = DecodeWhole(Bytes(hex));
      ASSERT_EQ(d.records.size(), 1u) << hex;
      EXPECT_EQ(d.records[0].events, uint64_t{1} << bit) << hex;
      EXPECT_EQ(d.stats.events[bit], 1u) << hex;
    }
  }
}

// Data source packets in each size (0x43, 0x53, 0x63, 0x73), and every value
// of the two implementation-defined tables, named for their CPUs and raw
// otherwise.
TEST(SpeArchitectureTest, DataSourceEncodings) {
  struct Size {
    const char* hex;
    uint64_t value;
    uint8_t size;
  };
  const Size sizes[] = {{"43 0b", 0xb, 1},
                        {"53 34 12", 0x1234, 2},
                        {"63 78 56 34 12", 0x12345678, 4},
                        {"73 08 07 06 05 04 03 02 01", 0x0102030405060708, 8}};
  for (const Size& s : sizes) {
    const Decoded d = DecodeWhole(
        Bytes(std::string("b0 00 10 40 00 00 00 00 00\n") + s.hex + "\n01"));
    ASSERT_EQ(d.records.size(), 1u) << s.hex;
    EXPECT_EQ(d.records[0].data_source, s.value) << s.hex;
    EXPECT_EQ(d.records[0].data_source_size, s.size) << s.hex;
    EXPECT_EQ(d.stats.data_sources.at(s.value), 1u) << s.hex;
  }
  struct Named {
    uint64_t midr;
    uint8_t value;
    const char* name;
  };
  // Arm's common table (Neoverse N1 r3p1: MIDR 0x413fd0c1) and AmpereOne
  // (implementer 0xc0, part 0xac4).
  const Named named[] = {
      {0x413fd0c1, 0x0, "L1D"},
      {0x413fd0c1, 0x8, "L2"},
      {0x413fd0c1, 0x9, "peer-core"},
      {0x413fd0c1, 0xa, "local-cluster"},
      {0x413fd0c1, 0xb, "system-cache"},
      {0x413fd0c1, 0xc, "peer-cluster"},
      {0x413fd0c1, 0xd, "remote"},
      {0x413fd0c1, 0xe, "DRAM"},
      {0x413fd0c1, 0x1, "0x1"},
      {0x413fd0c1, 0xf, "0xf"},
      {0xc00fac40, 0x0, "local-chip-cache-or-device"},
      {0xc00fac40, 0x3, "SLC"},
      {0xc00fac40, 0x5, "remote-chip-cache"},
      {0xc00fac40, 0x7, "DDR"},
      {0xc00fac40, 0x8, "L1D"},
      {0xc00fac40, 0x9, "L2D"},
      {0xc00fac40, 0xe, "0xe"},
      {0x414fd0b1, 0xe, "0xe"},  // Cortex-A76: no table known
      {0x0, 0x0, "0x0"},
  };
  for (const Named& n : named) {
    DecodeOptions options;
    options.midr = n.midr;
    const Decoded d =
        DecodeWhole(Bytes(absl::StrFormat(
                        "b0 00 10 40 00 00 00 00 00\n43 %02x\n01", n.value)),
                    options);
    ASSERT_EQ(d.records.size(), 1u);
    EXPECT_EQ(d.records[0].data_source, n.value);
    EXPECT_EQ(DataSourceLabel(d.records[0].data_source, IdentifyCpu(n.midr)),
              n.name)
        << "MIDR 0x" << std::hex << n.midr << " value 0x" << int(n.value);
  }
}

// Operation type: the class is the header's low two bits, the payload is
// kept as it is.
TEST(SpeArchitectureTest, OperationTypeClasses) {
  struct Case {
    const char* hex;
    uint8_t op_class, payload;
    OpCategory category;
  };
  const Case cases[] = {
      {"48 00", 0, 0x00, OpCategory::kOther},
      {"49 00", 1, 0x00, OpCategory::kLoadGpr},
      {"49 01", 1, 0x01, OpCategory::kStoreGpr},
      {"4a 00", 2, 0x00, OpCategory::kBranch},
      {"4a 01", 2, 0x01, OpCategory::kBranchConditional},  // bit 0
      {"4a 02", 2, 0x02, OpCategory::kBranchIndirect},     // bit 1
      {"4a 08", 2, 0x08, OpCategory::kCall},               // [4:3] = 1: BL
      {"4a 0a", 2, 0x0a, OpCategory::kCallIndirect},       // BLR
      {"4a 12", 2, 0x12, OpCategory::kReturn},             // [4:3] = 2: RET
  };
  for (const Case& c : cases) {
    const Decoded d = DecodeWhole(
        Bytes(std::string("b0 00 10 40 00 00 00 00 00\n") + c.hex + "\n01"));
    ASSERT_EQ(d.records.size(), 1u) << c.hex;
    EXPECT_EQ(d.records[0].op_class, c.op_class) << c.hex;
    EXPECT_EQ(d.records[0].op_payload, c.payload) << c.hex;
    EXPECT_EQ(d.records[0].op_category(), c.category) << c.hex;
  }
  // Class 3 is reserved: decoded, kept, counted.
  const Decoded d = DecodeWhole(Bytes("b0 00 10 40 00 00 00 00 00 4b 00 01"));
  EXPECT_EQ(d.records.at(0).op_class, 3);
  EXPECT_EQ(d.records.at(0).op_category(), OpCategory::kReservedClass);
  EXPECT_EQ(d.stats.unknown_index_packets, 1u);
}

// Extended headers for the architected indices give the same fields as the
// short ones (0x20 prefix: index 00:iii).
TEST(SpeArchitectureTest, ExtendedHeadersOfLowIndices) {
  const Decoded d = DecodeWhole(Bytes(R"(
    20 b0 00 10 40 00 00 00 00 80  # extended ADDRESS 0: PC 0x401000, NS=1
    20 b3 00 30 00 00 00 00 00 80  # extended ADDRESS 3: PA 0x3000, NS=1
    20 99 05 00                    # extended COUNTER 1: issue latency 5
    01
  )"));
  ASSERT_EQ(d.records.size(), 1u);
  EXPECT_EQ(d.records[0].pc, 0x401000u);
  EXPECT_TRUE(d.records[0].pc_ns);
  EXPECT_EQ(d.records[0].data_pa, 0x3000u);
  EXPECT_TRUE(d.records[0].pa_ns);
  EXPECT_EQ(d.records[0].issue_latency, 5);
  EXPECT_EQ(d.stats.unknown_index_packets, 0u);
}

// Real bytes: the first record of google/perf_data_converter's
// src/quipper/arm_spe_decoder_test.cc (Neoverse, EL2 kernel code), the one
// ../shared/reference/spe.md quotes; testdata/spe/quipper_records.* holds
// both of its records for the quipper test. The values are those quipper's
// test states, and the EL/NS split of 0xc0 (1 10 0 0000) by hand.
TEST(SpeArchitectureTest, RealRecordFromQuipper) {
  const Decoded d = DecodeWhole(Bytes(R"(
    b0 d0 c2 a1 ed 66 ba ff c0  # PC, top byte 0xc0: NS=1 EL=2
    00 00 00 00 00
    65 80 5f 00 00              # CONTEXTIDR_EL2 0x5f80
    49 00                       # load, general register
    52 16 00                    # EVENTS 0x16: retired, L1D access, TLB access
    99 04 00                    # issue latency 4
    98 0c 00                    # total latency 12
    b2 28 6b 09 03 37 0e ff 00  # data VA, bits [55:52] = 0xf: kernel
    9a 01 00                    # translation latency 1
    00 00 00 00 00 00 00 00 00
    43 00                       # data source 0
    00 00
    71 2e 65 2f 6a 0a 00 00 00  # TIMESTAMP 44731163950
  )"));
  ASSERT_EQ(d.records.size(), 1u);
  const Record& r = d.records[0];
  EXPECT_EQ(r.pc, 0xffffba66eda1c2d0ULL);
  EXPECT_EQ(r.pc_el, 2);
  EXPECT_TRUE(r.pc_ns);
  EXPECT_EQ(r.context_el2, 0x5f80u);
  EXPECT_EQ(r.op_category(), OpCategory::kLoadGpr);
  EXPECT_EQ(r.events, 0x16u);
  EXPECT_EQ(r.issue_latency, 4);
  EXPECT_EQ(r.total_latency, 12);
  EXPECT_EQ(r.translation_latency, 1);
  EXPECT_EQ(r.data_va, 0xffff0e3703096b28ULL);
  EXPECT_EQ(r.data_source, 0u);
  EXPECT_EQ(r.timestamp, 44731163950u);
  EXPECT_EQ(r.end_offset, 64u);
}

}  // namespace
}  // namespace hwt::spe
