// SPE operation type packets: the class in the header (other, load/store/
// atomic, branch/exception return) and the subclass byte, decoded into flags
// (DecodeOp), into one category per sampled operation for statistics
// (CategorizeOp) and into perf-style text (DescribeOp).
#ifndef HWT_DECODERS_SPE_OP_TYPE_H_
#define HWT_DECODERS_SPE_OP_TYPE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace hwt::spe {

enum class OpClass : uint8_t {
  kOther = 0,
  kLoadStore = 1,  // load, store, atomic
  kBranch = 2,     // branch or exception return
  kReserved = 3,
};

enum class LoadStoreSubclass : uint8_t {
  kGeneralRegister,      // subclass bits [7:1] == 0x0
  kSimdFp,               // 0x4
  kUnspecifiedRegister,  // 0x10
  kNvSysreg,             // 0x30: non-volatile system register
  kMteTag,               // 0x14: allocation tag
  kMemcpy,               // 0x20: CPYx
  kMemset,               // payload 0x25: SETx
  kExtended,             // (v & 0xe2) == 0x2: atomic / exclusive / acq-rel
  kSveSme,               // (v & 0x0a) == 0x8: SVE/SME register
  kGcs,                  // (v & 0xfa) == 0x40: Guarded Control Stack
  kUnknown,
};

enum class OtherSubclass : uint8_t {
  kOther,  // (v & 0xf8) == 0: ordinary data processing
  kSve,    // (v & 0x89) == 0x08
  kSme,    // (v & 0x89) == 0x88
  kUnknown,
};

// Branch payload bits [4:3] (FEAT_SPE_FDS / SPEv1p4): kind of the branch.
enum class BranchKindBits : uint8_t {
  kUnspecified = 0,
  kCall = 1,       // BL/BLR
  kReturn = 2,     // RET
  kOtherKind = 3,  // neither
};

struct OpInfo {
  OpClass op_class = OpClass::kOther;
  uint8_t payload = 0;
  // kLoadStore
  bool store = false;  // bit 0
  LoadStoreSubclass ldst = LoadStoreSubclass::kUnknown;
  bool atomic = false;           // extended: AT (bit 2)
  bool exclusive = false;        // extended: EXCL (bit 3)
  bool acquire_release = false;  // extended: AR (bit 4)
  bool gcs_common = false;       // GCS: COMM (bit 2)
  // SVE (load/store and other): effective vector length in bits, 32 <<
  // v[6:4]; predicated (bit 2); gather/scatter (load/store bit 7);
  // floating point (other bit 1).
  uint16_t sve_evl = 0;
  bool sve_predicated = false;
  bool sve_gather_scatter = false;
  // kOther
  OtherSubclass other = OtherSubclass::kUnknown;
  bool conditional_select = false;  // plain other, bit 0
  bool floating_point = false;      // other, bit 1
  bool simd = false;                // plain other, bit 2 (ASE)
  uint32_t sme_ets = 0;             // SME: 128 << (v[6:4] << 1 | v[2])
  // kBranch
  bool conditional = false;  // bit 0
  bool indirect = false;     // bit 1
  bool gcs = false;          // bit 2
  BranchKindBits branch_kind = BranchKindBits::kUnspecified;
};

OpInfo DecodeOp(uint8_t op_class, uint8_t payload);

// One category per sampled operation, for counts. kNone: the record had no
// operation type packet.
enum class OpCategory : uint8_t {
  kNone,
  kOther,
  kOtherCondSelect,
  kOtherSve,
  kOtherSme,
  kOtherUnknown,
  kLoadGpr,
  kStoreGpr,
  kLoadSimdFp,
  kStoreSimdFp,
  kLoadSve,
  kStoreSve,
  kLoadUnspecifiedReg,
  kStoreUnspecifiedReg,
  kLoadNvSysreg,
  kStoreNvSysreg,
  kLoadMteTag,
  kStoreMteTag,
  kMemcpyLoad,
  kMemcpyStore,
  kMemset,
  kLoadGcs,
  kStoreGcs,
  kLoadAtomic,
  kStoreAtomic,
  kLoadExclusive,
  kStoreExclusive,
  kLoadAcquireRelease,
  kStoreAcquireRelease,
  kLoadOther,
  kStoreOther,
  kBranch,
  kBranchConditional,
  kBranchIndirect,
  kCall,
  kCallIndirect,
  kReturn,
  kReservedClass,
};
inline constexpr int kNumOpCategories =
    static_cast<int>(OpCategory::kReservedClass) + 1;

OpCategory CategorizeOp(uint8_t op_class, uint8_t payload);
// "load-gpr", "branch-conditional", ...
std::string_view OpCategoryName(OpCategory category);
// The class a category belongs to: "other", "load", "store", "branch", "none".
std::string_view OpCategoryGroup(OpCategory category);

// perf-style text of an operation type packet: "LD GP-REG", "B COND",
// "ST AT EXCL AR", "SVE-OTHER EVLEN 256 PRED", ...
std::string DescribeOp(uint8_t op_class, uint8_t payload);

}  // namespace hwt::spe

#endif  // HWT_DECODERS_SPE_OP_TYPE_H_
