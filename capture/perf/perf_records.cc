// Record body decoding; see perf_records.h. Layouts follow the kernel's
// include/uapi/linux/perf_event.h and perf's tools/lib/perf/include/perf/
// event.h as docs/perf-data.md summarises them.
#include "capture/perf/perf_records.h"

#include "absl/strings/str_format.h"
#include "capture/perf/byte_reader.h"
#include "capture/perf/perf_format.h"

namespace hwt::capture::perf {
namespace {

constexpr uint32_t kProtExec = 4;

absl::Status TooShort(const RawRecord& r, const std::string& where,
                      size_t needed) {
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s: %s: %s record body of %u bytes is too short (needs %u)", where,
      DescribeOffset(r.offset), RecordTypeName(r.type), r.body.size(), needed));
}

int TrailerFields(uint64_t sample_type) {
  int n = 0;
  for (uint64_t bit : {kSampleTid, kSampleTime, kSampleId, kSampleStreamId,
                       kSampleCpu, kSampleIdentifier}) {
    if (sample_type & bit) ++n;
  }
  return n;
}

}  // namespace

std::string HexBytes(absl::Span<const uint8_t> bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) absl::StrAppendFormat(&out, "%02x", b);
  return out;
}

void SampleIdReader::AddAttr(const PerfAttr& attr) {
  attrs_.push_back(attr);
  for (uint64_t id : attr.ids) attr_by_id_.emplace(id, attrs_.size() - 1);
}

const PerfAttr* SampleIdReader::AttrForTrailer(
    absl::Span<const uint8_t> body) const {
  if (attrs_.empty()) return nullptr;
  const PerfAttr& first = attrs_.front();
  std::optional<size_t> from_end;
  if (first.sample_type & kSampleIdentifier) {
    from_end = 8;
  } else if (first.sample_type & kSampleId) {
    from_end = 8 * (1 + ((first.sample_type & kSampleStreamId) ? 1 : 0) +
                    ((first.sample_type & kSampleCpu) ? 1 : 0));
  }
  if (from_end && attrs_.size() > 1 && body.size() >= *from_end) {
    auto it = attr_by_id_.find(LoadLe64(body.data() + body.size() - *from_end));
    if (it != attr_by_id_.end()) return &attrs_[it->second];
  }
  return &first;
}

size_t SampleIdReader::TrailerSize(absl::Span<const uint8_t> body) const {
  const PerfAttr* attr = AttrForTrailer(body);
  if (attr == nullptr || !(attr->flags & kAttrSampleIdAll)) return 0;
  return 8 * TrailerFields(attr->sample_type);
}

SampleId SampleIdReader::Trailer(absl::Span<const uint8_t> body) const {
  SampleId out;
  const PerfAttr* attr = AttrForTrailer(body);
  if (attr == nullptr || !(attr->flags & kAttrSampleIdAll)) return out;
  const uint64_t st = attr->sample_type;
  const size_t size = 8 * TrailerFields(st);
  if (body.size() < size) return out;
  ByteReader in(body.subspan(body.size() - size));
  if (st & kSampleTid) {
    uint32_t pid = 0, tid = 0;
    in.U32(&pid);
    in.U32(&tid);
    out.pid = pid;
    out.tid = tid;
  }
  if (st & kSampleTime) {
    uint64_t time = 0;
    in.U64(&time);
    out.time = time;
  }
  if (st & kSampleId) {
    uint64_t id = 0;
    in.U64(&id);
    out.id = id;
  }
  if (st & kSampleStreamId) in.Skip(8);
  if (st & kSampleCpu) {
    uint32_t cpu = 0;
    in.U32(&cpu);
    in.Skip(4);
    out.cpu = cpu;
  }
  if (st & kSampleIdentifier) {
    uint64_t id = 0;
    in.U64(&id);
    out.id = id;
  }
  return out;
}

const PerfAttr* SampleIdReader::AttrForSample(
    absl::Span<const uint8_t> body) const {
  if (attrs_.empty()) return nullptr;
  const PerfAttr& first = attrs_.front();
  std::optional<size_t> at;
  if (first.sample_type & kSampleIdentifier) {
    at = 0;
  } else if (first.sample_type & kSampleId) {
    size_t n = 0;
    for (uint64_t bit : {kSampleIp, kSampleTid, kSampleTime, kSampleAddr}) {
      if (first.sample_type & bit) ++n;
    }
    at = 8 * n;
  }
  if (at && attrs_.size() > 1 && body.size() >= *at + 8) {
    auto it = attr_by_id_.find(LoadLe64(body.data() + *at));
    if (it != attr_by_id_.end()) return &attrs_[it->second];
  }
  return &first;
}

SampleId SampleIdReader::FromSample(absl::Span<const uint8_t> body) const {
  SampleId out;
  const PerfAttr* attr = AttrForSample(body);
  if (attr == nullptr) return out;
  const uint64_t st = attr->sample_type;
  ByteReader in(body);
  uint64_t value = 0;
  if ((st & kSampleIdentifier) && in.U64(&value)) out.id = value;
  if (st & kSampleIp) in.Skip(8);
  uint32_t pid = 0, tid = 0;
  if ((st & kSampleTid) && in.U32(&pid) && in.U32(&tid)) {
    out.pid = pid;
    out.tid = tid;
  }
  if ((st & kSampleTime) && in.U64(&value)) out.time = value;
  if (st & kSampleAddr) in.Skip(8);
  if ((st & kSampleId) && in.U64(&value)) out.id = value;
  if (st & kSampleStreamId) in.Skip(8);
  uint32_t cpu = 0;
  if ((st & kSampleCpu) && in.U32(&cpu)) out.cpu = cpu;
  return out;
}

bool MmapRecord::executable() const {
  if (mmap2) return (prot & kProtExec) != 0;
  return (misc & kMiscMmapData) == 0;
}

absl::StatusOr<MmapRecord> DecodeMmap(const RawRecord& r,
                                      const std::string& where) {
  MmapRecord m;
  m.mmap2 = r.type == kRecordMmap2;
  m.misc = r.misc;
  const size_t fixed = m.mmap2 ? 64 : 32;
  if (r.body.size() < fixed) return TooShort(r, where, fixed);
  ByteReader in(r.body);
  in.U32(&m.pid);
  in.U32(&m.tid);
  in.U64(&m.addr);
  in.U64(&m.len);
  in.U64(&m.pgoff);
  if (m.mmap2) {
    if (r.misc & kMiscMmapBuildId) {
      uint8_t size = 0;
      in.U8(&size);
      in.Skip(3);
      absl::Span<const uint8_t> id;
      in.Bytes(20, &id);
      m.build_id = HexBytes(id.first(std::min<size_t>(size, 20)));
    } else {
      in.U32(&m.maj);
      in.U32(&m.min);
      in.U64(&m.ino);
      in.U64(&m.ino_generation);
    }
    in.U32(&m.prot);
    in.U32(&m.flags);
  }
  m.filename = ByteReader::CString(in.rest());
  return m;
}

absl::StatusOr<CommRecord> DecodeComm(const RawRecord& r,
                                      const std::string& where) {
  if (r.body.size() < 8) return TooShort(r, where, 8);
  CommRecord c;
  c.pid = LoadLe32(r.body.data());
  c.tid = LoadLe32(r.body.data() + 4);
  c.comm = ByteReader::CString(r.body.subspan(8));
  c.exec = (r.misc & kMiscCommExec) != 0;
  return c;
}

absl::StatusOr<TaskRecord> DecodeTask(const RawRecord& r,
                                      const std::string& where) {
  if (r.body.size() < 24) return TooShort(r, where, 24);
  TaskRecord t;
  ByteReader in(r.body);
  in.U32(&t.pid);
  in.U32(&t.ppid);
  in.U32(&t.tid);
  in.U32(&t.ptid);
  in.U64(&t.time);
  return t;
}

absl::StatusOr<AuxRecord> DecodeAux(const RawRecord& r,
                                    const std::string& where) {
  if (r.body.size() < 24) return TooShort(r, where, 24);
  AuxRecord a;
  a.aux_offset = LoadLe64(r.body.data());
  a.aux_size = LoadLe64(r.body.data() + 8);
  a.flags = LoadLe64(r.body.data() + 16);
  return a;
}

absl::StatusOr<SwitchRecord> DecodeSwitch(const RawRecord& r,
                                          const std::string& where) {
  SwitchRecord s;
  s.out = (r.misc & kMiscSwitchOut) != 0;
  s.preempt = (r.misc & kMiscSwitchOutPreempt) != 0;
  s.cpu_wide = r.type == kRecordSwitchCpuWide;
  if (s.cpu_wide) {
    if (r.body.size() < 8) return TooShort(r, where, 8);
    s.next_prev_pid = LoadLe32(r.body.data());
    s.next_prev_tid = LoadLe32(r.body.data() + 4);
  }
  return s;
}

absl::StatusOr<uint64_t> DecodeLost(const RawRecord& r,
                                    const std::string& where) {
  if (r.type == kRecordLostSamples) {
    if (r.body.size() < 8) return TooShort(r, where, 8);
    return LoadLe64(r.body.data());
  }
  if (r.body.size() < 16) return TooShort(r, where, 16);
  return LoadLe64(r.body.data() + 8);
}

absl::StatusOr<uint64_t> DecodeAuxOutputHwId(const RawRecord& r,
                                             const std::string& where) {
  if (r.body.size() < 8) return TooShort(r, where, 8);
  return LoadLe64(r.body.data());
}

absl::StatusOr<CommRecord> DecodeItraceStart(const RawRecord& r,
                                             const std::string& where) {
  if (r.body.size() < 8) return TooShort(r, where, 8);
  CommRecord c;
  c.pid = LoadLe32(r.body.data());
  c.tid = LoadLe32(r.body.data() + 4);
  return c;
}

absl::StatusOr<AuxtraceRecord> DecodeAuxtrace(const RawRecord& r,
                                              const std::string& where) {
  if (r.body.size() < 36) return TooShort(r, where, 36);
  AuxtraceRecord a;
  ByteReader in(r.body);
  in.U64(&a.size);
  in.U64(&a.offset);
  in.U64(&a.reference);
  in.U32(&a.idx);
  in.U32(&a.tid);
  in.U32(&a.cpu);
  return a;
}

absl::StatusOr<AuxtraceErrorRecord> DecodeAuxtraceError(
    const RawRecord& r, const std::string& where) {
  if (r.body.size() < 32) return TooShort(r, where, 32);
  AuxtraceErrorRecord e;
  ByteReader in(r.body);
  uint32_t fmt = 0;
  in.U32(&e.type);
  in.U32(&e.code);
  in.U32(&e.cpu);
  in.U32(&e.pid);
  in.U32(&e.tid);
  in.U32(&fmt);
  in.U64(&e.ip);
  if (fmt >= 1) {
    uint64_t time = 0;
    if (in.U64(&time)) e.time = time;
  }
  std::string message;
  in.PaddedString(std::min<size_t>(64, in.remaining()), &message);
  e.message = message;
  return e;
}

absl::StatusOr<AuxtraceInfoRecord> DecodeAuxtraceInfo(
    const RawRecord& r, const std::string& where) {
  if (r.body.size() < 8) return TooShort(r, where, 8);
  AuxtraceInfoRecord info;
  info.type = LoadLe32(r.body.data());
  for (size_t at = 8; at + 8 <= r.body.size(); at += 8) {
    info.priv.push_back(LoadLe64(r.body.data() + at));
  }
  return info;
}

absl::StatusOr<TimeConvRecord> DecodeTimeConv(const RawRecord& r,
                                              const std::string& where) {
  if (r.body.size() < 24) return TooShort(r, where, 24);
  TimeConvRecord t;
  ByteReader in(r.body);
  in.U64(&t.time_shift);
  in.U64(&t.time_mult);
  in.U64(&t.time_zero);
  uint64_t cycles = 0, mask = 0;
  if (in.U64(&cycles) && in.U64(&mask)) {
    t.time_cycles = cycles;
    t.time_mask = mask;
    uint8_t zero = 0, short_time = 0;
    if (in.U8(&zero) && in.U8(&short_time)) {
      t.cap_user_time_zero = zero != 0;
      t.cap_user_time_short = short_time != 0;
    }
  }
  return t;
}

absl::StatusOr<std::vector<IdIndexEntry>> DecodeIdIndex(
    const RawRecord& r, const std::string& where) {
  if (r.body.size() < 8) return TooShort(r, where, 8);
  const uint64_t nr = LoadLe64(r.body.data());
  if (nr > (r.body.size() - 8) / 32) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %s: ID_INDEX record claims %u entries but holds at most %u", where,
        DescribeOffset(r.offset), nr, (r.body.size() - 8) / 32));
  }
  std::vector<IdIndexEntry> entries(nr);
  ByteReader in(r.body.subspan(8));
  for (IdIndexEntry& e : entries) {
    in.U64(&e.id);
    in.U64(&e.idx);
    in.U64(&e.cpu);
    in.U64(&e.tid);
  }
  return entries;
}

}  // namespace hwt::capture::perf
