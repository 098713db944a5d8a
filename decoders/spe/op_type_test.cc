// Operation types, events and data sources: flags, categories and perf-style
// text for each subclass the spec names, checked against hand-decoded values.
#include "decoders/spe/op_type.h"

#include <set>

#include "decoders/spe/data_source.h"
#include "decoders/spe/events.h"
#include "decoders/spe/midr.h"
#include "gtest/gtest.h"

namespace hwt::spe {
namespace {

constexpr int kOther = 0, kLdSt = 1, kBranch = 2;

TEST(SpeOpTypeTest, LoadStoreSubclasses) {
  struct Case {
    uint8_t payload;
    LoadStoreSubclass subclass;
    bool store;
    OpCategory category;
    const char* text;
  };
  const Case cases[] = {
      {0x00, LoadStoreSubclass::kGeneralRegister, false, OpCategory::kLoadGpr,
       "LD GP-REG"},
      {0x01, LoadStoreSubclass::kGeneralRegister, true, OpCategory::kStoreGpr,
       "ST GP-REG"},
      {0x04, LoadStoreSubclass::kSimdFp, false, OpCategory::kLoadSimdFp,
       "LD SIMD-FP"},
      {0x05, LoadStoreSubclass::kSimdFp, true, OpCategory::kStoreSimdFp,
       "ST SIMD-FP"},
      {0x10, LoadStoreSubclass::kUnspecifiedRegister, false,
       OpCategory::kLoadUnspecifiedReg, "LD UNSPEC-REG"},
      {0x31, LoadStoreSubclass::kNvSysreg, true, OpCategory::kStoreNvSysreg,
       "ST NV-SYSREG"},
      {0x14, LoadStoreSubclass::kMteTag, false, OpCategory::kLoadMteTag,
       "LD MTE-TAG"},
      {0x15, LoadStoreSubclass::kMteTag, true, OpCategory::kStoreMteTag,
       "ST MTE-TAG"},
      {0x20, LoadStoreSubclass::kMemcpy, false, OpCategory::kMemcpyLoad,
       "LD MEMCPY"},
      {0x21, LoadStoreSubclass::kMemcpy, true, OpCategory::kMemcpyStore,
       "ST MEMCPY"},
      {0x25, LoadStoreSubclass::kMemset, true, OpCategory::kMemset,
       "ST MEMSET"},
      // Atomics: (v & 0xe2) == 0x2; AT bit 2, EXCL bit 3, AR bit 4.
      {0x06, LoadStoreSubclass::kExtended, false, OpCategory::kLoadAtomic,
       "LD AT"},
      {0x17, LoadStoreSubclass::kExtended, true, OpCategory::kStoreAtomic,
       "ST AT AR"},
      {0x0a, LoadStoreSubclass::kExtended, false, OpCategory::kLoadExclusive,
       "LD EXCL"},
      {0x1b, LoadStoreSubclass::kExtended, true, OpCategory::kStoreExclusive,
       "ST EXCL AR"},
      {0x12, LoadStoreSubclass::kExtended, false,
       OpCategory::kLoadAcquireRelease, "LD AR"},
      {0x02, LoadStoreSubclass::kExtended, false, OpCategory::kLoadOther, "LD"},
      // SVE: (v & 0x0a) == 0x8; EVL 32 << v[6:4], pred bit 2, SG bit 7.
      {0x08, LoadStoreSubclass::kSveSme, false, OpCategory::kLoadSve,
       "LD SVE-SME-REG EVLEN 32"},
      {0xbd, LoadStoreSubclass::kSveSme, true, OpCategory::kStoreSve,
       "ST SVE-SME-REG EVLEN 256 PRED SG"},
      // GCS: (v & 0xfa) == 0x40, COMM bit 2.
      {0x40, LoadStoreSubclass::kGcs, false, OpCategory::kLoadGcs, "LD GCS"},
      {0x45, LoadStoreSubclass::kGcs, true, OpCategory::kStoreGcs,
       "ST GCS COMM"},
      {0x60, LoadStoreSubclass::kUnknown, false, OpCategory::kLoadOther,
       "LD UNKNOWN-0x60"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message()
                 << "payload 0x" << std::hex << int(c.payload));
    OpInfo op = DecodeOp(kLdSt, c.payload);
    EXPECT_EQ(op.op_class, OpClass::kLoadStore);
    EXPECT_EQ(op.ldst, c.subclass);
    EXPECT_EQ(op.store, c.store);
    EXPECT_EQ(CategorizeOp(kLdSt, c.payload), c.category);
    EXPECT_EQ(DescribeOp(kLdSt, c.payload), c.text);
  }
  OpInfo atomic = DecodeOp(kLdSt, 0x1f);  // ST AT EXCL AR
  EXPECT_TRUE(atomic.atomic);
  EXPECT_TRUE(atomic.exclusive);
  EXPECT_TRUE(atomic.acquire_release);
  OpInfo sve = DecodeOp(kLdSt, 0xbd);
  EXPECT_EQ(sve.sve_evl, 256);
  EXPECT_TRUE(sve.sve_predicated);
  EXPECT_TRUE(sve.sve_gather_scatter);
  EXPECT_TRUE(DecodeOp(kLdSt, 0x44).gcs_common);
}

TEST(SpeOpTypeTest, Branches) {
  struct Case {
    uint8_t payload;
    OpCategory category;
    const char* text;
  };
  const Case cases[] = {
      {0x00, OpCategory::kBranch, "B"},
      {0x01, OpCategory::kBranchConditional, "B COND"},
      {0x02, OpCategory::kBranchIndirect, "B IND"},
      {0x08, OpCategory::kCall, "B CR-BL"},
      {0x0a, OpCategory::kCallIndirect, "B IND CR-BL"},
      {0x12, OpCategory::kReturn, "B IND CR-RET"},
      {0x16, OpCategory::kReturn, "B IND GCS CR-RET"},
      {0x19, OpCategory::kBranchConditional, "B COND CR-NON-BL-RET"},
      {0x1a, OpCategory::kBranchIndirect, "B IND CR-NON-BL-RET"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message()
                 << "payload 0x" << std::hex << int(c.payload));
    EXPECT_EQ(CategorizeOp(kBranch, c.payload), c.category);
    EXPECT_EQ(DescribeOp(kBranch, c.payload), c.text);
  }
  OpInfo ret = DecodeOp(kBranch, 0x16);
  EXPECT_TRUE(ret.indirect);
  EXPECT_TRUE(ret.gcs);
  EXPECT_FALSE(ret.conditional);
  EXPECT_EQ(ret.branch_kind, BranchKindBits::kReturn);
}

TEST(SpeOpTypeTest, Other) {
  EXPECT_EQ(DescribeOp(kOther, 0x00), "OTHER INSN-OTHER");
  EXPECT_EQ(DescribeOp(kOther, 0x01), "OTHER COND-SELECT");
  EXPECT_EQ(DescribeOp(kOther, 0x06), "OTHER ASE FP INSN-OTHER");
  EXPECT_EQ(CategorizeOp(kOther, 0x00), OpCategory::kOther);
  EXPECT_EQ(CategorizeOp(kOther, 0x01), OpCategory::kOtherCondSelect);
  // SVE other: (v & 0x89) == 0x08.
  EXPECT_EQ(DescribeOp(kOther, 0x2e), "SVE-OTHER EVLEN 128 FP PRED");
  EXPECT_EQ(CategorizeOp(kOther, 0x2e), OpCategory::kOtherSve);
  // SME other: (v & 0x89) == 0x88, ETS = 128 << (v[6:4] << 1 | v[2]).
  EXPECT_EQ(DescribeOp(kOther, 0x9c), "SME-OTHER ETS 1024");
  EXPECT_EQ(CategorizeOp(kOther, 0x9c), OpCategory::kOtherSme);
  EXPECT_EQ(CategorizeOp(kOther, 0x10), OpCategory::kOtherUnknown);
  EXPECT_EQ(CategorizeOp(3, 0x00), OpCategory::kReservedClass);
}

TEST(SpeOpTypeTest, CategoryNamesAreUniqueAndGrouped) {
  std::set<std::string_view> names;
  for (int i = 0; i < kNumOpCategories; ++i) {
    auto category = static_cast<OpCategory>(i);
    EXPECT_TRUE(names.insert(OpCategoryName(category)).second);
    EXPECT_NE(OpCategoryName(category), "?");
  }
  EXPECT_EQ(OpCategoryGroup(OpCategory::kMemset), "store");
  EXPECT_EQ(OpCategoryGroup(OpCategory::kLoadAtomic), "load");
  EXPECT_EQ(OpCategoryGroup(OpCategory::kReturn), "branch");
  EXPECT_EQ(OpCategoryGroup(OpCategory::kNone), "none");
}

TEST(SpeEventsTest, EveryArchitecturalBitHasANameUpToV1p4) {
  CpuModel unknown = IdentifyCpu(0);
  const char* expected[26] = {"exception-generated",
                              "retired",
                              "l1d-access",
                              "l1d-refill",
                              "tlb-access",
                              "tlb-walk",
                              "not-taken",
                              "mispredicted",
                              "llc-access",
                              "llc-miss",
                              "remote-access",
                              "alignment",
                              "impdef-12",
                              "impdef-13",
                              "impdef-14",
                              "impdef-15",
                              "transactional",
                              "sve-partial-predicate",
                              "sve-empty-predicate",
                              "l2d-access",
                              "l2d-miss",
                              "cache-data-modified",
                              "recently-fetched",
                              "data-snooped",
                              "streaming-sve",
                              "smcu"};
  for (int bit = 0; bit < 26; ++bit) {
    EXPECT_EQ(EventName(bit, unknown), expected[bit]) << bit;
  }
  EXPECT_EQ(EventName(40, unknown), "bit-40");
  EXPECT_EQ(DescribeEvents(0x16, unknown), "EV RETIRED L1D-ACCESS TLB-ACCESS");
  EXPECT_EQ(DescribeEvents(0x42, unknown), "EV RETIRED NOT-TAKEN");
  EXPECT_EQ(DescribeEvents((1ull << 21) | (1ull << 12) | (1ull << 13), unknown),
            "EV HITM IMPDEF:12,13");
}

TEST(SpeEventsTest, NeoverseN1NamesBit12) {
  CpuModel n1 = IdentifyCpu(0x413fd0c1);  // Neoverse N1 r3p1
  EXPECT_EQ(n1.name, "Neoverse N1");
  EXPECT_EQ(EventName(12, n1), "late-prefetch");
  EXPECT_EQ(DescribeEvents(1ull << 12, n1), "EV LATE-PREFETCH");
  CpuModel n2 = IdentifyCpu(0x410fd490);
  EXPECT_EQ(EventName(12, n2), "impdef-12");
}

TEST(SpeDataSourceTest, DecodedByMidr) {
  const uint64_t neoverse[] = {0x413fd0c1, 0x410fd490, 0x411fd401, 0x410fd4f0};
  for (uint64_t midr : neoverse) {
    CpuModel cpu = IdentifyCpu(midr);
    EXPECT_EQ(cpu.data_sources, DataSourceTable::kCommon) << cpu.name;
    EXPECT_EQ(DataSourceName(0x0, cpu), "L1D");
    EXPECT_EQ(DataSourceName(0x8, cpu), "L2");
    EXPECT_EQ(DataSourceName(0x9, cpu), "peer-core");
    EXPECT_EQ(DataSourceName(0xa, cpu), "local-cluster");
    EXPECT_EQ(DataSourceName(0xb, cpu), "system-cache");
    EXPECT_EQ(DataSourceName(0xc, cpu), "peer-cluster");
    EXPECT_EQ(DataSourceName(0xd, cpu), "remote");
    EXPECT_EQ(DataSourceName(0xe, cpu), "DRAM");
    EXPECT_EQ(DataSourceName(0x5, cpu), "");
    EXPECT_EQ(DataSourceLabel(0x5, cpu), "0x5");
  }
  CpuModel ampere = IdentifyCpu(0xc00fac40);
  EXPECT_EQ(ampere.data_sources, DataSourceTable::kAmpereOne);
  EXPECT_EQ(DataSourceName(0x7, ampere), "DDR");
  EXPECT_EQ(DataSourceName(0x8, ampere), "L1D");
  // Unknown CPU (e.g. Cortex-A76) or no MIDR: raw values only.
  CpuModel a76 = IdentifyCpu(0x414fd0b1);
  EXPECT_EQ(a76.data_sources, DataSourceTable::kUnknown);
  EXPECT_EQ(DataSourceLabel(0xe, a76), "0xe");
  EXPECT_EQ(DataSourceLabel(0xe, IdentifyCpu(0)), "0xe");
}

}  // namespace
}  // namespace hwt::spe
