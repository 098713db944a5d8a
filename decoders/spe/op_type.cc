// Operation type decoding, categories and perf-style descriptions; see
// op_type.h. Bit patterns follow ../shared/reference/spe.md.
#include "decoders/spe/op_type.h"

#include "absl/strings/str_format.h"

namespace hwt::spe {
namespace {

LoadStoreSubclass ClassifyLoadStore(uint8_t v) {
  if ((v & 0xe2) == 0x02) return LoadStoreSubclass::kExtended;
  switch (v & 0xfe) {
    case 0x00:
      return LoadStoreSubclass::kGeneralRegister;
    case 0x04:
      return LoadStoreSubclass::kSimdFp;
    case 0x10:
      return LoadStoreSubclass::kUnspecifiedRegister;
    case 0x30:
      return LoadStoreSubclass::kNvSysreg;
    case 0x14:
      return LoadStoreSubclass::kMteTag;
    case 0x20:
      return LoadStoreSubclass::kMemcpy;
    default:
      break;
  }
  if (v == 0x25) return LoadStoreSubclass::kMemset;
  if ((v & 0x0a) == 0x08) return LoadStoreSubclass::kSveSme;
  if ((v & 0xfa) == 0x40) return LoadStoreSubclass::kGcs;
  return LoadStoreSubclass::kUnknown;
}

OtherSubclass ClassifyOther(uint8_t v) {
  if ((v & 0x89) == 0x08) return OtherSubclass::kSve;
  if ((v & 0x89) == 0x88) return OtherSubclass::kSme;
  if ((v & 0xf8) == 0x00) return OtherSubclass::kOther;
  return OtherSubclass::kUnknown;
}

uint16_t SveEvl(uint8_t v) {
  return static_cast<uint16_t>(32u << ((v >> 4) & 7));
}

}  // namespace

OpInfo DecodeOp(uint8_t op_class, uint8_t v) {
  OpInfo info;
  info.op_class = static_cast<OpClass>(op_class & 3);
  info.payload = v;
  switch (info.op_class) {
    case OpClass::kOther:
      info.other = ClassifyOther(v);
      switch (info.other) {
        case OtherSubclass::kSve:
          info.sve_evl = SveEvl(v);
          info.floating_point = (v & 0x02) != 0;
          info.sve_predicated = (v & 0x04) != 0;
          break;
        case OtherSubclass::kSme:
          info.sme_ets = 128u << ((((v >> 4) & 7) << 1) | ((v >> 2) & 1));
          info.floating_point = (v & 0x02) != 0;
          break;
        case OtherSubclass::kOther:
          info.conditional_select = (v & 0x01) != 0;
          info.floating_point = (v & 0x02) != 0;
          info.simd = (v & 0x04) != 0;
          break;
        case OtherSubclass::kUnknown:
          break;
      }
      break;
    case OpClass::kLoadStore:
      info.store = (v & 0x01) != 0;
      info.ldst = ClassifyLoadStore(v);
      if (info.ldst == LoadStoreSubclass::kExtended) {
        info.atomic = (v & 0x04) != 0;
        info.exclusive = (v & 0x08) != 0;
        info.acquire_release = (v & 0x10) != 0;
      } else if (info.ldst == LoadStoreSubclass::kSveSme) {
        info.sve_evl = SveEvl(v);
        info.sve_predicated = (v & 0x04) != 0;
        info.sve_gather_scatter = (v & 0x80) != 0;
      } else if (info.ldst == LoadStoreSubclass::kGcs) {
        info.gcs_common = (v & 0x04) != 0;
      }
      break;
    case OpClass::kBranch:
      info.conditional = (v & 0x01) != 0;
      info.indirect = (v & 0x02) != 0;
      info.gcs = (v & 0x04) != 0;
      info.branch_kind = static_cast<BranchKindBits>((v >> 3) & 3);
      break;
    case OpClass::kReserved:
      break;
  }
  return info;
}

OpCategory CategorizeOp(uint8_t op_class, uint8_t v) {
  switch (static_cast<OpClass>(op_class & 3)) {
    case OpClass::kOther:
      switch (ClassifyOther(v)) {
        case OtherSubclass::kSve:
          return OpCategory::kOtherSve;
        case OtherSubclass::kSme:
          return OpCategory::kOtherSme;
        case OtherSubclass::kOther:
          return (v & 1) ? OpCategory::kOtherCondSelect : OpCategory::kOther;
        case OtherSubclass::kUnknown:
          return OpCategory::kOtherUnknown;
      }
      break;
    case OpClass::kLoadStore: {
      bool st = (v & 1) != 0;
      switch (ClassifyLoadStore(v)) {
        case LoadStoreSubclass::kGeneralRegister:
          return st ? OpCategory::kStoreGpr : OpCategory::kLoadGpr;
        case LoadStoreSubclass::kSimdFp:
          return st ? OpCategory::kStoreSimdFp : OpCategory::kLoadSimdFp;
        case LoadStoreSubclass::kUnspecifiedRegister:
          return st ? OpCategory::kStoreUnspecifiedReg
                    : OpCategory::kLoadUnspecifiedReg;
        case LoadStoreSubclass::kNvSysreg:
          return st ? OpCategory::kStoreNvSysreg : OpCategory::kLoadNvSysreg;
        case LoadStoreSubclass::kMteTag:
          return st ? OpCategory::kStoreMteTag : OpCategory::kLoadMteTag;
        case LoadStoreSubclass::kMemcpy:
          return st ? OpCategory::kMemcpyStore : OpCategory::kMemcpyLoad;
        case LoadStoreSubclass::kMemset:
          return OpCategory::kMemset;
        case LoadStoreSubclass::kSveSme:
          return st ? OpCategory::kStoreSve : OpCategory::kLoadSve;
        case LoadStoreSubclass::kGcs:
          return st ? OpCategory::kStoreGcs : OpCategory::kLoadGcs;
        case LoadStoreSubclass::kExtended:
          if (v & 0x04) {
            return st ? OpCategory::kStoreAtomic : OpCategory::kLoadAtomic;
          }
          if (v & 0x08) {
            return st ? OpCategory::kStoreExclusive
                      : OpCategory::kLoadExclusive;
          }
          if (v & 0x10) {
            return st ? OpCategory::kStoreAcquireRelease
                      : OpCategory::kLoadAcquireRelease;
          }
          return st ? OpCategory::kStoreOther : OpCategory::kLoadOther;
        case LoadStoreSubclass::kUnknown:
          return st ? OpCategory::kStoreOther : OpCategory::kLoadOther;
      }
      break;
    }
    case OpClass::kBranch: {
      bool indirect = (v & 0x02) != 0;
      switch (static_cast<BranchKindBits>((v >> 3) & 3)) {
        case BranchKindBits::kCall:
          return indirect ? OpCategory::kCallIndirect : OpCategory::kCall;
        case BranchKindBits::kReturn:
          return OpCategory::kReturn;
        default:
          break;
      }
      if (indirect) return OpCategory::kBranchIndirect;
      if (v & 0x01) return OpCategory::kBranchConditional;
      return OpCategory::kBranch;
    }
    case OpClass::kReserved:
      return OpCategory::kReservedClass;
  }
  return OpCategory::kReservedClass;
}

std::string_view OpCategoryName(OpCategory category) {
  switch (category) {
    case OpCategory::kNone:
      return "none";
    case OpCategory::kOther:
      return "other";
    case OpCategory::kOtherCondSelect:
      return "other-cond-select";
    case OpCategory::kOtherSve:
      return "other-sve";
    case OpCategory::kOtherSme:
      return "other-sme";
    case OpCategory::kOtherUnknown:
      return "other-unknown";
    case OpCategory::kLoadGpr:
      return "load-gpr";
    case OpCategory::kStoreGpr:
      return "store-gpr";
    case OpCategory::kLoadSimdFp:
      return "load-simd-fp";
    case OpCategory::kStoreSimdFp:
      return "store-simd-fp";
    case OpCategory::kLoadSve:
      return "load-sve";
    case OpCategory::kStoreSve:
      return "store-sve";
    case OpCategory::kLoadUnspecifiedReg:
      return "load-unspecified-reg";
    case OpCategory::kStoreUnspecifiedReg:
      return "store-unspecified-reg";
    case OpCategory::kLoadNvSysreg:
      return "load-nv-sysreg";
    case OpCategory::kStoreNvSysreg:
      return "store-nv-sysreg";
    case OpCategory::kLoadMteTag:
      return "load-mte-tag";
    case OpCategory::kStoreMteTag:
      return "store-mte-tag";
    case OpCategory::kMemcpyLoad:
      return "memcpy-load";
    case OpCategory::kMemcpyStore:
      return "memcpy-store";
    case OpCategory::kMemset:
      return "memset";
    case OpCategory::kLoadGcs:
      return "load-gcs";
    case OpCategory::kStoreGcs:
      return "store-gcs";
    case OpCategory::kLoadAtomic:
      return "load-atomic";
    case OpCategory::kStoreAtomic:
      return "store-atomic";
    case OpCategory::kLoadExclusive:
      return "load-exclusive";
    case OpCategory::kStoreExclusive:
      return "store-exclusive";
    case OpCategory::kLoadAcquireRelease:
      return "load-acquire-release";
    case OpCategory::kStoreAcquireRelease:
      return "store-acquire-release";
    case OpCategory::kLoadOther:
      return "load-other";
    case OpCategory::kStoreOther:
      return "store-other";
    case OpCategory::kBranch:
      return "branch";
    case OpCategory::kBranchConditional:
      return "branch-conditional";
    case OpCategory::kBranchIndirect:
      return "branch-indirect";
    case OpCategory::kCall:
      return "call";
    case OpCategory::kCallIndirect:
      return "call-indirect";
    case OpCategory::kReturn:
      return "return";
    case OpCategory::kReservedClass:
      return "reserved-class";
  }
  return "?";
}

std::string_view OpCategoryGroup(OpCategory category) {
  switch (category) {
    case OpCategory::kNone:
      return "none";
    case OpCategory::kOther:
    case OpCategory::kOtherCondSelect:
    case OpCategory::kOtherSve:
    case OpCategory::kOtherSme:
    case OpCategory::kOtherUnknown:
    case OpCategory::kReservedClass:
      return "other";
    case OpCategory::kLoadGpr:
    case OpCategory::kLoadSimdFp:
    case OpCategory::kLoadSve:
    case OpCategory::kLoadUnspecifiedReg:
    case OpCategory::kLoadNvSysreg:
    case OpCategory::kLoadMteTag:
    case OpCategory::kMemcpyLoad:
    case OpCategory::kLoadGcs:
    case OpCategory::kLoadAtomic:
    case OpCategory::kLoadExclusive:
    case OpCategory::kLoadAcquireRelease:
    case OpCategory::kLoadOther:
      return "load";
    case OpCategory::kStoreGpr:
    case OpCategory::kStoreSimdFp:
    case OpCategory::kStoreSve:
    case OpCategory::kStoreUnspecifiedReg:
    case OpCategory::kStoreNvSysreg:
    case OpCategory::kStoreMteTag:
    case OpCategory::kMemcpyStore:
    case OpCategory::kMemset:
    case OpCategory::kStoreGcs:
    case OpCategory::kStoreAtomic:
    case OpCategory::kStoreExclusive:
    case OpCategory::kStoreAcquireRelease:
    case OpCategory::kStoreOther:
      return "store";
    case OpCategory::kBranch:
    case OpCategory::kBranchConditional:
    case OpCategory::kBranchIndirect:
    case OpCategory::kCall:
    case OpCategory::kCallIndirect:
    case OpCategory::kReturn:
      return "branch";
  }
  return "other";
}

std::string DescribeOp(uint8_t op_class, uint8_t v) {
  OpInfo op = DecodeOp(op_class, v);
  std::string out;
  switch (op.op_class) {
    case OpClass::kOther:
      switch (op.other) {
        case OtherSubclass::kSve:
          out = absl::StrFormat("SVE-OTHER EVLEN %d", op.sve_evl);
          if (op.floating_point) out += " FP";
          if (op.sve_predicated) out += " PRED";
          break;
        case OtherSubclass::kSme:
          out = absl::StrFormat("SME-OTHER ETS %d", op.sme_ets);
          if (op.floating_point) out += " FP";
          break;
        case OtherSubclass::kOther:
          out += "OTHER";
          if (op.simd) out += " ASE";
          if (op.floating_point) out += " FP";
          out += op.conditional_select ? " COND-SELECT" : " INSN-OTHER";
          break;
        case OtherSubclass::kUnknown:
          out = absl::StrFormat("OTHER UNKNOWN-0x%02x", v);
          break;
      }
      break;
    case OpClass::kLoadStore:
      out += op.store ? "ST" : "LD";
      switch (op.ldst) {
        case LoadStoreSubclass::kExtended:
          if (op.atomic) out += " AT";
          if (op.exclusive) out += " EXCL";
          if (op.acquire_release) out += " AR";
          break;
        case LoadStoreSubclass::kGeneralRegister:
          out += " GP-REG";
          break;
        case LoadStoreSubclass::kSimdFp:
          out += " SIMD-FP";
          break;
        case LoadStoreSubclass::kUnspecifiedRegister:
          out += " UNSPEC-REG";
          break;
        case LoadStoreSubclass::kNvSysreg:
          out += " NV-SYSREG";
          break;
        case LoadStoreSubclass::kMteTag:
          out += " MTE-TAG";
          break;
        case LoadStoreSubclass::kMemcpy:
          out += " MEMCPY";
          break;
        case LoadStoreSubclass::kMemset:
          out += " MEMSET";
          break;
        case LoadStoreSubclass::kSveSme:
          absl::StrAppendFormat(&out, " SVE-SME-REG EVLEN %d", op.sve_evl);
          if (op.sve_predicated) out += " PRED";
          if (op.sve_gather_scatter) out += " SG";
          break;
        case LoadStoreSubclass::kGcs:
          out += " GCS";
          if (op.gcs_common) out += " COMM";
          break;
        case LoadStoreSubclass::kUnknown:
          absl::StrAppendFormat(&out, " UNKNOWN-0x%02x", v);
          break;
      }
      break;
    case OpClass::kBranch:
      out += "B";
      if (op.conditional) out += " COND";
      if (op.indirect) out += " IND";
      if (op.gcs) out += " GCS";
      switch (op.branch_kind) {
        case BranchKindBits::kCall:
          out += " CR-BL";
          break;
        case BranchKindBits::kReturn:
          out += " CR-RET";
          break;
        case BranchKindBits::kOtherKind:
          out += " CR-NON-BL-RET";
          break;
        case BranchKindBits::kUnspecified:
          break;
      }
      break;
    case OpClass::kReserved:
      out = absl::StrFormat("OP-TYPE RESERVED-CLASS-3 0x%02x", v);
      break;
  }
  return out;
}

}  // namespace hwt::spe
