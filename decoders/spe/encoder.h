// A small SPE packet encoder written from the packet format (reference/spe.md),
// independent of the decoder: tests and benchmarks build streams with known
// content from it. Not used when decoding real trace.
#ifndef HWT_DECODERS_SPE_ENCODER_H_
#define HWT_DECODERS_SPE_ENCODER_H_

#include <cstdint>
#include <optional>
#include <string>

namespace hwt::spe {

class SpeEncoder {
 public:
  // PAD bytes (0x00).
  SpeEncoder& Pad(size_t count = 1);
  SpeEncoder& End();
  SpeEncoder& Timestamp(uint64_t value);
  // payload_size 1/2/4/8; 0 = the smallest that holds the value.
  SpeEncoder& Events(uint64_t bits, int payload_size = 0);
  SpeEncoder& DataSource(uint64_t value, int payload_size = 0);
  // index 0: CONTEXTIDR_EL1, 1: CONTEXTIDR_EL2.
  SpeEncoder& Context(uint32_t id, int index = 0);
  // op_class 0 other, 1 load/store, 2 branch.
  SpeEncoder& OpType(int op_class, uint8_t subclass);
  // Indices above 7 need the extended header; `extended` forces it for
  // smaller ones.
  SpeEncoder& Address(int index, uint64_t payload, bool extended = false);
  SpeEncoder& Counter(int index, uint16_t value, bool extended = false);
  // An alignment pad to 2 << log2 bytes (log2 0..3): extended header
  // 0x20|log2, 0x00, then zero bytes up to the next boundary after it,
  // counted from the unit start (see StartUnit).
  SpeEncoder& Alignment(int log2);
  SpeEncoder& Raw(const std::string& bytes);
  SpeEncoder& Byte(uint8_t byte);

  // Alignment is relative to the current position from here on.
  void StartUnit() { unit_start_ = bytes_.size(); }

  static uint64_t InstructionAddress(uint64_t va, int el, bool ns);
  static uint64_t DataVirtualAddress(uint64_t va, uint8_t tag);
  static uint64_t DataPhysicalAddress(uint64_t pa, bool ns, bool ch,
                                      uint8_t pat);

  const std::string& bytes() const { return bytes_; }
  size_t size() const { return bytes_.size(); }
  void Clear() {
    bytes_.clear();
    unit_start_ = 0;
  }

 private:
  void Payload(uint64_t value, int size);

  std::string bytes_;
  size_t unit_start_ = 0;
};

// A whole record with known content, encoded in the usual packet order (PC,
// context, op type, events, latencies, target/data addresses, data source,
// then END or TIMESTAMP).
struct RecordSpec {
  uint64_t pc = 0;  // VA (56 bits used)
  int el = 0;
  bool ns = true;
  std::optional<uint32_t> context;
  int context_index = 0;
  int op_class = 1;
  uint8_t op = 0;
  uint64_t events = 0x2;  // retired
  std::optional<uint16_t> total_latency;
  std::optional<uint16_t> issue_latency;
  std::optional<uint16_t> translation_latency;
  std::optional<uint64_t> branch_target;
  std::optional<uint64_t> data_va;
  uint8_t va_tag = 0;
  std::optional<uint64_t> data_pa;
  std::optional<uint64_t> data_source;
  std::optional<uint64_t> timestamp;  // ends with TIMESTAMP instead of END
};
void EncodeRecord(const RecordSpec& spec, SpeEncoder& encoder);

}  // namespace hwt::spe

#endif  // HWT_DECODERS_SPE_ENCODER_H_
