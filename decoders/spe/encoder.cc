// The test encoder; see encoder.h. Header values come from the packet table
// in reference/spe.md, not from the decoder's code.
#include "decoders/spe/encoder.h"

namespace hwt::spe {
namespace {

int SizeCode(int payload_size) {
  switch (payload_size) {
    case 1:
      return 0;
    case 2:
      return 1;
    case 4:
      return 2;
    default:
      return 3;
  }
}

int SmallestSize(uint64_t value) {
  if (value <= 0xff) return 1;
  if (value <= 0xffff) return 2;
  if (value <= 0xffffffff) return 4;
  return 8;
}

}  // namespace

void SpeEncoder::Payload(uint64_t value, int size) {
  for (int i = 0; i < size; ++i) {
    bytes_.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
}

SpeEncoder& SpeEncoder::Pad(size_t count) {
  bytes_.append(count, '\0');
  return *this;
}

SpeEncoder& SpeEncoder::End() { return Byte(0x01); }

SpeEncoder& SpeEncoder::Timestamp(uint64_t value) {
  Byte(0x71);
  Payload(value, 8);
  return *this;
}

SpeEncoder& SpeEncoder::Events(uint64_t bits, int payload_size) {
  if (payload_size == 0) payload_size = SmallestSize(bits);
  Byte(static_cast<uint8_t>(0x42 | (SizeCode(payload_size) << 4)));
  Payload(bits, payload_size);
  return *this;
}

SpeEncoder& SpeEncoder::DataSource(uint64_t value, int payload_size) {
  if (payload_size == 0) payload_size = SmallestSize(value);
  Byte(static_cast<uint8_t>(0x43 | (SizeCode(payload_size) << 4)));
  Payload(value, payload_size);
  return *this;
}

SpeEncoder& SpeEncoder::Context(uint32_t id, int index) {
  Byte(static_cast<uint8_t>(0x64 | (index & 3)));
  Payload(id, 4);
  return *this;
}

SpeEncoder& SpeEncoder::OpType(int op_class, uint8_t subclass) {
  Byte(static_cast<uint8_t>(0x48 | (op_class & 3)));
  Byte(subclass);
  return *this;
}

SpeEncoder& SpeEncoder::Address(int index, uint64_t payload, bool extended) {
  if (extended || index > 7) {
    Byte(static_cast<uint8_t>(0x20 | ((index >> 3) & 3)));
  }
  Byte(static_cast<uint8_t>(0xb0 | (index & 7)));
  Payload(payload, 8);
  return *this;
}

SpeEncoder& SpeEncoder::Counter(int index, uint16_t value, bool extended) {
  if (extended || index > 7) {
    Byte(static_cast<uint8_t>(0x20 | ((index >> 3) & 3)));
  }
  Byte(static_cast<uint8_t>(0x98 | (index & 7)));
  Payload(value, 2);
  return *this;
}

SpeEncoder& SpeEncoder::Alignment(int log2) {
  size_t alignment = size_t{2} << log2;
  size_t position = bytes_.size() - unit_start_;
  Byte(static_cast<uint8_t>(0x20 | log2));
  Byte(0x00);
  position += 2;
  while (position % alignment != 0) {
    Byte(0x00);
    ++position;
  }
  return *this;
}

SpeEncoder& SpeEncoder::Raw(const std::string& bytes) {
  bytes_ += bytes;
  return *this;
}

SpeEncoder& SpeEncoder::Byte(uint8_t byte) {
  bytes_.push_back(static_cast<char>(byte));
  return *this;
}

uint64_t SpeEncoder::InstructionAddress(uint64_t va, int el, bool ns) {
  return (va & ((uint64_t{1} << 56) - 1)) | (uint64_t(el & 3) << 61) |
         (uint64_t{ns} << 63);
}

uint64_t SpeEncoder::DataVirtualAddress(uint64_t va, uint8_t tag) {
  return (va & ((uint64_t{1} << 56) - 1)) | (uint64_t{tag} << 56);
}

uint64_t SpeEncoder::DataPhysicalAddress(uint64_t pa, bool ns, bool ch,
                                         uint8_t pat) {
  return (pa & ((uint64_t{1} << 56) - 1)) | (uint64_t(pat & 0xf) << 56) |
         (uint64_t{ch} << 62) | (uint64_t{ns} << 63);
}

void EncodeRecord(const RecordSpec& r, SpeEncoder& e) {
  e.Address(0, SpeEncoder::InstructionAddress(r.pc, r.el, r.ns));
  if (r.context) e.Context(*r.context, r.context_index);
  e.OpType(r.op_class, r.op);
  e.Events(r.events);
  if (r.issue_latency) e.Counter(1, *r.issue_latency);
  if (r.total_latency) e.Counter(0, *r.total_latency);
  if (r.branch_target) {
    e.Address(1, SpeEncoder::InstructionAddress(*r.branch_target, r.el, r.ns));
  }
  if (r.data_va) {
    e.Address(2, SpeEncoder::DataVirtualAddress(*r.data_va, r.va_tag));
  }
  if (r.translation_latency) e.Counter(2, *r.translation_latency);
  if (r.data_pa) {
    e.Address(3, SpeEncoder::DataPhysicalAddress(*r.data_pa, true, false, 0));
  }
  if (r.data_source) e.DataSource(*r.data_source);
  if (r.timestamp) {
    e.Timestamp(*r.timestamp);
  } else {
    e.End();
  }
}

}  // namespace hwt::spe
