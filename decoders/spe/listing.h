// Human- and machine-readable listings of SPE trace for hwt-decode: packets in
// the style of perf's arm-spe dump ("b0 d0 c2 ... PC 0xffba66eda1c2d0 el2
// ns=1"), and records as one text line or one JSON object each.
#ifndef HWT_DECODERS_SPE_LISTING_H_
#define HWT_DECODERS_SPE_LISTING_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "decoders/spe/decoder.h"
#include "decoders/spe/midr.h"
#include "decoders/spe/packet.h"
#include "decoders/spe/record.h"
#include "decoders/spe/stats.h"

namespace hwt::spe {

// The meaning of a packet: "PC 0xffba66eda1c2d0 el2 ns=1", "LAT 4 ISSUE",
// "EV RETIRED L1D-ACCESS", "DATA-SOURCE 14 DRAM", "PAD", ...
std::string DescribePacket(const Packet& packet, const CpuModel& cpu);

// Hex bytes padded to a fixed column, then the description. `bytes` points at
// the packet's first byte.
std::string FormatPacket(const uint8_t* bytes, const Packet& packet,
                         const CpuModel& cpu);

// A skipped run: its first bytes in hex, then "SKIPPED 3 bytes (invalid
// header)".
std::string FormatSkipped(const uint8_t* bytes, uint64_t length,
                          SkipReason reason);

// "0x00000010: " + text: how a tool prints a listing line.
std::string FormatListingLine(uint64_t offset, std::string_view text);

// One line per record: "0x00000000 pc=0xffffba66eda1c2d0 el2 ns=1 op=\"LD
// GP-REG\" lat=12 issue=4 xlat=1 ev=retired,l1d-access ...".
std::string FormatRecordText(const Record& record, const CpuModel& cpu);
// One JSON object per record (addresses as "0x..." strings).
std::string FormatRecordJson(const Record& record, uint32_t buffer,
                             const CpuModel& cpu);

// A RecordSink that prints every record (text: prefixed with the buffer) to a
// line writer.
class RecordListingSink : public RecordSink {
 public:
  enum class Format { kText, kJson };
  using LineWriter = std::function<void(std::string_view line)>;

  RecordListingSink(Format format, CpuModel cpu, LineWriter writer)
      : format_(format), cpu_(std::move(cpu)), writer_(std::move(writer)) {}
  void OnRecords(uint32_t buffer, absl::Span<const Record> records) override;

 private:
  Format format_;
  CpuModel cpu_;
  LineWriter writer_;
};

}  // namespace hwt::spe

#endif  // HWT_DECODERS_SPE_LISTING_H_
