// Helpers shared by the SPE decoder tests: a sink that keeps every record and
// a one-call decode of a byte string.
#ifndef HWT_DECODERS_SPE_TESTING_SPE_DECODE_H_
#define HWT_DECODERS_SPE_TESTING_SPE_DECODE_H_

#include <string>
#include <vector>

#include "decoders/spe/decoder.h"

namespace hwt::spe::testing {

class CollectingSink : public RecordSink {
 public:
  void OnRecords(uint32_t buffer, absl::Span<const Record> records) override {
    for (const Record& r : records) {
      this->records.push_back(r);
      this->buffers.push_back(buffer);
    }
  }
  void OnBufferEnd(uint32_t buffer) override { ended.push_back(buffer); }

  std::vector<Record> Complete() const {
    std::vector<Record> out;
    for (const Record& r : records) {
      if (r.complete()) out.push_back(r);
    }
    return out;
  }

  std::vector<Record> records;
  std::vector<uint32_t> buffers;
  std::vector<uint32_t> ended;
};

inline absl::Span<const uint8_t> Bytes(const std::string& s) {
  return absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(s.data()),
                             s.size());
}

struct Decoded {
  SpeStats stats;
  std::vector<Record> records;  // complete and partial, in order
};

inline Decoded DecodeString(const std::string& bytes,
                            const DecodeOptions& options = {}) {
  CollectingSink sink;
  Decoded out;
  out.stats = DecodeBytes(Bytes(bytes), &sink, options);
  out.records = std::move(sink.records);
  return out;
}

}  // namespace hwt::spe::testing

#endif  // HWT_DECODERS_SPE_TESTING_SPE_DECODE_H_
