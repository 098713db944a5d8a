// Interpretation of SPE address packet payloads: instruction addresses (PC,
// branch target, previous branch target) carry the exception level and the
// security state; data virtual addresses carry a top-byte tag; data physical
// addresses carry NS, CH and PAT.
#ifndef HWT_DECODERS_SPE_ADDRESS_H_
#define HWT_DECODERS_SPE_ADDRESS_H_

#include <cstdint>

namespace hwt::spe {

inline constexpr uint64_t kAddressMask56 = (uint64_t{1} << 56) - 1;

struct DecodedAddress {
  uint64_t address = 0;  // canonical address (see DecodeAddress)
  uint8_t el = 0;        // instruction addresses: exception level [62:61]
  bool ns = false;       // instruction addresses and PA: bit 63
  uint8_t tag = 0;       // data VA: bits [63:56]
  bool ch = false;       // data PA: bit 62
  uint8_t pat = 0;       // data PA: bits [59:56]
};

inline bool IsInstructionAddressIndex(uint8_t index) {
  return index == 0 || index == 1 || index == 4;
}

// Instruction addresses: VA [55:0], sign-extended from bit 55 (kernel
// addresses at EL1/EL2 become 0xff..., user addresses stay as they are; this
// matches what Linux perf and quipper print for EL1/EL2 non-secure code).
inline DecodedAddress DecodeInstructionAddress(uint64_t payload) {
  DecodedAddress out;
  uint64_t va = payload & kAddressMask56;
  if (va & (uint64_t{1} << 55)) va |= ~kAddressMask56;
  out.address = va;
  out.el = static_cast<uint8_t>((payload >> 61) & 3);
  out.ns = (payload >> 63) != 0;
  return out;
}

// Data VA: [55:0] with the tag in [63:56]; like Linux, the top byte is
// rebuilt as 0xff when bits [55:52] are all ones (a kernel address).
inline DecodedAddress DecodeDataVirtualAddress(uint64_t payload) {
  DecodedAddress out;
  uint64_t va = payload & kAddressMask56;
  if (((va >> 52) & 0xf) == 0xf) va |= ~kAddressMask56;
  out.address = va;
  out.tag = static_cast<uint8_t>(payload >> 56);
  return out;
}

// Data PA: [55:0], NS bit 63, CH bit 62, PAT [59:56].
inline DecodedAddress DecodeDataPhysicalAddress(uint64_t payload) {
  DecodedAddress out;
  out.address = payload & kAddressMask56;
  out.ns = (payload >> 63) != 0;
  out.ch = ((payload >> 62) & 1) != 0;
  out.pat = static_cast<uint8_t>((payload >> 56) & 0xf);
  return out;
}

// Dispatches on the address index; unknown indices keep the raw payload.
inline DecodedAddress DecodeAddress(uint8_t index, uint64_t payload) {
  if (IsInstructionAddressIndex(index)) {
    return DecodeInstructionAddress(payload);
  }
  if (index == 2) return DecodeDataVirtualAddress(payload);
  if (index == 3) return DecodeDataPhysicalAddress(payload);
  DecodedAddress out;
  out.address = payload;
  return out;
}

}  // namespace hwt::spe

#endif  // HWT_DECODERS_SPE_ADDRESS_H_
