// Packet and record listings; see listing.h.
#include "decoders/spe/listing.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "decoders/spe/address.h"
#include "decoders/spe/data_source.h"
#include "decoders/spe/events.h"
#include "decoders/spe/op_type.h"

namespace hwt::spe {
namespace {

constexpr size_t kHexColumn = 16 * 3;  // 16 bytes per line, like perf

void AppendHex(const uint8_t* bytes, uint64_t length, std::string* out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (uint64_t i = 0; i < length; ++i) {
    out->push_back(kDigits[bytes[i] >> 4]);
    out->push_back(kDigits[bytes[i] & 15]);
    out->push_back(' ');
  }
}

void PadTo(size_t column, std::string* out) {
  if (out->size() < column) out->append(column - out->size(), ' ');
}

const char* CounterName(uint8_t index) {
  switch (index) {
    case kCounterTotalLatency:
      return "TOT";
    case kCounterIssueLatency:
      return "ISSUE";
    case kCounterTranslationLatency:
      return "XLAT";
    default:
      return nullptr;
  }
}

const char* OpClassName(uint8_t op_class) {
  switch (op_class & 3) {
    case 0:
      return "other";
    case 1:
      return "load-store";
    case 2:
      return "branch";
    default:
      return "reserved";
  }
}

}  // namespace

std::string DescribePacket(const Packet& p, const CpuModel& cpu) {
  switch (p.type) {
    case PacketType::kPad:
      return "PAD";
    case PacketType::kEnd:
      return "END";
    case PacketType::kAlignment:
      return absl::StrFormat("PAD ALIGN %d", p.index);
    case PacketType::kTimestamp:
      return absl::StrFormat("TS %d", p.payload);
    case PacketType::kEvents:
      return DescribeEvents(p.payload, cpu);
    case PacketType::kDataSource: {
      std::string out = absl::StrFormat("DATA-SOURCE %d", p.payload);
      std::string_view name = DataSourceName(p.payload, cpu);
      if (!name.empty()) absl::StrAppend(&out, " ", std::string(name));
      return out;
    }
    case PacketType::kContext:
      if (p.index > 1) {
        return absl::StrFormat("CONTEXT 0x%x (index %d)", p.payload, p.index);
      }
      return absl::StrFormat("CONTEXT 0x%x el%d", p.payload, p.index + 1);
    case PacketType::kOpType:
      return DescribeOp(p.index, static_cast<uint8_t>(p.payload));
    case PacketType::kAddress: {
      static constexpr const char* kNames[] = {"PC", "TGT", "VA", "PA", "PBT"};
      if (IsInstructionAddressIndex(p.index)) {
        DecodedAddress a = DecodeInstructionAddress(p.payload);
        return absl::StrFormat("%s 0x%x el%d ns=%d", kNames[p.index],
                               p.payload & kAddressMask56, a.el, a.ns ? 1 : 0);
      }
      if (p.index == kAddressDataVirtual) {
        return absl::StrFormat("VA 0x%x", p.payload);
      }
      if (p.index == kAddressDataPhysical) {
        DecodedAddress a = DecodeDataPhysicalAddress(p.payload);
        return absl::StrFormat("PA 0x%x ns=%d ch=%d pat=%x", a.address,
                               a.ns ? 1 : 0, a.ch ? 1 : 0, a.pat);
      }
      return absl::StrFormat("ADDR 0x%x (index %d)", p.payload, p.index);
    }
    case PacketType::kCounter: {
      const char* name = CounterName(p.index);
      if (name != nullptr) {
        return absl::StrFormat("LAT %d %s", p.payload, name);
      }
      return absl::StrFormat("LAT %d (index %d)", p.payload, p.index);
    }
  }
  return "?";
}

std::string FormatPacket(const uint8_t* bytes, const Packet& packet,
                         const CpuModel& cpu) {
  std::string out;
  out.reserve(96);
  AppendHex(bytes, packet.size, &out);
  PadTo(kHexColumn, &out);
  out += DescribePacket(packet, cpu);
  return out;
}

std::string FormatSkipped(const uint8_t* bytes, uint64_t length,
                          SkipReason reason) {
  std::string out;
  AppendHex(bytes, length < 16 ? length : 16, &out);
  if (length > 16) out += "... ";
  PadTo(kHexColumn, &out);
  absl::StrAppendFormat(&out, "SKIPPED %d bytes (%s)", length,
                        SkipReasonName(reason));
  return out;
}

std::string FormatListingLine(uint64_t offset, std::string_view text) {
  return absl::StrFormat("0x%08x: %s", offset, text);
}

std::string FormatRecordText(const Record& r, const CpuModel& cpu) {
  std::string out = absl::StrFormat("0x%08x", r.offset);
  if (!r.complete()) {
    absl::StrAppendFormat(&out, " PARTIAL(%s)", PartialReasonName(r.partial));
  }
  if (r.has(kFieldPc)) {
    absl::StrAppendFormat(&out, " pc=0x%x el%d ns=%d", r.pc, r.pc_el,
                          r.pc_ns ? 1 : 0);
  }
  if (r.has(kFieldOpType)) {
    absl::StrAppendFormat(&out, " op=\"%s\"",
                          DescribeOp(r.op_class, r.op_payload));
  }
  if (r.has(kFieldTotalLatency)) {
    absl::StrAppendFormat(&out, " lat=%d", r.total_latency);
  }
  if (r.has(kFieldIssueLatency)) {
    absl::StrAppendFormat(&out, " issue=%d", r.issue_latency);
  }
  if (r.has(kFieldTranslationLatency)) {
    absl::StrAppendFormat(&out, " xlat=%d", r.translation_latency);
  }
  if (r.has(kFieldEvents)) {
    out += " ev=";
    bool first = true;
    for (int bit = 0; bit < 64; ++bit) {
      if (!r.has_event(bit)) continue;
      if (!first) out += ",";
      out += EventName(bit, cpu);
      first = false;
    }
    if (first) out += "none";
  }
  if (r.has(kFieldBranchTarget)) {
    absl::StrAppendFormat(&out, " tgt=0x%x el%d ns=%d", r.branch_target,
                          r.target_el, r.target_ns ? 1 : 0);
  }
  if (r.has(kFieldPrevBranchTarget)) {
    absl::StrAppendFormat(&out, " pbt=0x%x el%d ns=%d", r.prev_branch_target,
                          r.prev_target_el, r.prev_target_ns ? 1 : 0);
  }
  if (r.has(kFieldDataVirtual)) {
    absl::StrAppendFormat(&out, " va=0x%x tag=0x%02x", r.data_va, r.va_tag);
  }
  if (r.has(kFieldDataPhysical)) {
    absl::StrAppendFormat(&out, " pa=0x%x ns=%d ch=%d pat=%x", r.data_pa,
                          r.pa_ns ? 1 : 0, r.pa_ch ? 1 : 0, r.pa_pat);
  }
  if (r.has(kFieldDataSource)) {
    absl::StrAppendFormat(&out, " ds=%s", DataSourceLabel(r.data_source, cpu));
  }
  if (r.has(kFieldContextEl1)) {
    absl::StrAppendFormat(&out, " ctx_el1=0x%x", r.context_el1);
  }
  if (r.has(kFieldContextEl2)) {
    absl::StrAppendFormat(&out, " ctx_el2=0x%x", r.context_el2);
  }
  if (r.has(kFieldTimestamp))
    absl::StrAppendFormat(&out, " ts=%d", r.timestamp);
  return out;
}

std::string FormatRecordJson(const Record& r, uint32_t buffer,
                             const CpuModel& cpu) {
  std::string out = absl::StrFormat(
      "{\"buffer\":%d,\"offset\":%d,\"end_offset\":%d,\"complete\":%s", buffer,
      r.offset, r.end_offset, r.complete() ? "true" : "false");
  if (!r.complete()) {
    absl::StrAppendFormat(&out, ",\"partial\":\"%s\"",
                          PartialReasonName(r.partial));
  }
  auto address = [&out](const char* name, uint64_t value, uint8_t el, bool ns) {
    absl::StrAppendFormat(&out,
                          ",\"%s\":{\"address\":\"0x%x\",\"el\":%d,\"ns\":%s}",
                          name, value, el, ns ? "true" : "false");
  };
  if (r.has(kFieldPc)) address("pc", r.pc, r.pc_el, r.pc_ns);
  if (r.has(kFieldBranchTarget)) {
    address("branch_target", r.branch_target, r.target_el, r.target_ns);
  }
  if (r.has(kFieldPrevBranchTarget)) {
    address("prev_branch_target", r.prev_branch_target, r.prev_target_el,
            r.prev_target_ns);
  }
  if (r.has(kFieldOpType)) {
    absl::StrAppendFormat(
        &out,
        ",\"op\":{\"class\":\"%s\",\"category\":\"%s\",\"payload\":%d,"
        "\"text\":\"%s\"}",
        OpClassName(r.op_class), OpCategoryName(r.op_category()), r.op_payload,
        DescribeOp(r.op_class, r.op_payload));
  }
  if (r.has(kFieldTotalLatency)) {
    absl::StrAppendFormat(&out, ",\"total_latency\":%d", r.total_latency);
  }
  if (r.has(kFieldIssueLatency)) {
    absl::StrAppendFormat(&out, ",\"issue_latency\":%d", r.issue_latency);
  }
  if (r.has(kFieldTranslationLatency)) {
    absl::StrAppendFormat(&out, ",\"translation_latency\":%d",
                          r.translation_latency);
  }
  if (r.has(kFieldEvents)) {
    absl::StrAppendFormat(&out, ",\"events_raw\":\"0x%x\",\"events\":[",
                          r.events);
    bool first = true;
    for (int bit = 0; bit < 64; ++bit) {
      if (!r.has_event(bit)) continue;
      absl::StrAppendFormat(&out, "%s\"%s\"", first ? "" : ",",
                            EventName(bit, cpu));
      first = false;
    }
    out += "]";
  }
  if (r.has(kFieldDataVirtual)) {
    absl::StrAppendFormat(&out, ",\"data_va\":\"0x%x\",\"va_tag\":%d",
                          r.data_va, r.va_tag);
  }
  if (r.has(kFieldDataPhysical)) {
    absl::StrAppendFormat(
        &out,
        ",\"data_pa\":{\"address\":\"0x%x\",\"ns\":%s,\"ch\":%s,\"pat\":%d}",
        r.data_pa, r.pa_ns ? "true" : "false", r.pa_ch ? "true" : "false",
        r.pa_pat);
  }
  if (r.has(kFieldDataSource)) {
    absl::StrAppendFormat(&out, ",\"data_source\":%d", r.data_source);
    std::string_view name = DataSourceName(r.data_source, cpu);
    if (!name.empty()) {
      absl::StrAppendFormat(&out, ",\"data_source_name\":\"%s\"", name);
    }
  }
  if (r.has(kFieldContextEl1)) {
    absl::StrAppendFormat(&out, ",\"context_el1\":%d", r.context_el1);
  }
  if (r.has(kFieldContextEl2)) {
    absl::StrAppendFormat(&out, ",\"context_el2\":%d", r.context_el2);
  }
  if (r.has(kFieldTimestamp)) {
    absl::StrAppendFormat(&out, ",\"timestamp\":%d", r.timestamp);
  }
  if (r.other_addresses != 0) {
    absl::StrAppendFormat(&out, ",\"other_address_indices\":\"0x%x\"",
                          r.other_addresses);
  }
  if (r.other_counters != 0) {
    absl::StrAppendFormat(&out, ",\"other_counter_indices\":\"0x%x\"",
                          r.other_counters);
  }
  out += "}";
  return out;
}

void RecordListingSink::OnRecords(uint32_t buffer,
                                  absl::Span<const Record> records) {
  for (const Record& record : records) {
    if (format_ == Format::kJson) {
      writer_(FormatRecordJson(record, buffer, cpu_));
    } else {
      writer_(absl::StrCat("[", buffer, "] ", FormatRecordText(record, cpu_)));
    }
  }
}

}  // namespace hwt::spe
