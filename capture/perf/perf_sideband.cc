// Sideband records, their order and positions; see perf_sideband.h.
#include "capture/perf/perf_sideband.h"

#include <algorithm>
#include <map>

#include "base/status_macros.h"
#include "capture/perf/perf_format.h"

namespace hwt::capture::perf {
namespace {

constexpr std::string_view kKernelMapPrefix = "[kernel.kallsyms]";

void ApplySample(const SampleId& sample, Record* record) {
  if (sample.pid && !record->pid) {
    record->pid = static_cast<int32_t>(*sample.pid);
  }
  if (sample.tid && !record->tid) {
    record->tid = static_cast<int32_t>(*sample.tid);
  }
  if (sample.time) record->time = *sample.time;
  if (sample.cpu) record->cpu = static_cast<int32_t>(*sample.cpu);
}

absl::StatusOr<std::optional<Record>> MmapToRecord(const RawRecord& r,
                                                   const std::string& where) {
  HWT_ASSIGN_OR_RETURN(MmapRecord m, DecodeMmap(r, where));
  const uint16_t mode = r.misc & kMiscCpumodeMask;
  if (mode == kMiscGuestKernel || mode == kMiscGuestUser) {
    return std::optional<Record>();  // a guest's maps: not this trace's
  }
  Record record;
  record.type = mode == kMiscKernel ? RecordType::kKernel : RecordType::kMmap;
  record.path = m.filename;
  record.addr = m.addr;
  record.length = m.len;
  record.pgoff = m.pgoff;
  record.build_id = m.build_id;
  record.pid = static_cast<int32_t>(m.pid);
  record.tid = static_cast<int32_t>(m.tid);
  if (m.executable()) record.flags |= kRecordFlagExecutable;
  if (r.misc & kMiscMmapData) record.flags |= kRecordFlagData;
  // MMAP2: the mapping's protection and flags (PROT_*, MAP_*).
  if (m.mmap2) {
    record.flags |= kRecordFlagMmap2;
    record.value = (uint64_t{m.prot} << 32) | m.flags;
  }
  return std::optional<Record>(std::move(record));
}

}  // namespace

absl::StatusOr<std::optional<Record>> SidebandRecord(const RawRecord& r,
                                                     const SampleId& sample,
                                                     const std::string& where) {
  Record record;
  switch (r.type) {
    case kRecordMmap:
    case kRecordMmap2: {
      HWT_ASSIGN_OR_RETURN(auto mmap, MmapToRecord(r, where));
      if (!mmap) return mmap;
      record = std::move(*mmap);
      break;
    }
    case kRecordComm: {
      HWT_ASSIGN_OR_RETURN(CommRecord c, DecodeComm(r, where));
      record.type = RecordType::kComm;
      record.path = c.comm;
      record.pid = static_cast<int32_t>(c.pid);
      record.tid = static_cast<int32_t>(c.tid);
      if (c.exec) record.flags |= kRecordFlagExec;
      break;
    }
    case kRecordFork:
    case kRecordExit: {
      HWT_ASSIGN_OR_RETURN(TaskRecord t, DecodeTask(r, where));
      record.type =
          r.type == kRecordFork ? RecordType::kFork : RecordType::kExit;
      record.pid = static_cast<int32_t>(t.pid);
      record.tid = static_cast<int32_t>(t.tid);
      record.other_pid = static_cast<int32_t>(t.ppid);
      record.other_tid = static_cast<int32_t>(t.ptid);
      record.time = t.time;
      break;
    }
    case kRecordSwitch:
    case kRecordSwitchCpuWide: {
      HWT_ASSIGN_OR_RETURN(SwitchRecord s, DecodeSwitch(r, where));
      record.type = RecordType::kSwitch;
      if (s.out) record.flags |= kRecordFlagSwitchOut;
      if (s.preempt) record.flags |= kRecordFlagPreempt;
      if (s.cpu_wide) {
        record.flags |= kRecordFlagCpuWide;
        record.other_pid = static_cast<int32_t>(s.next_prev_pid);
        record.other_tid = static_cast<int32_t>(s.next_prev_tid);
      }
      break;
    }
    case kRecordItraceStart: {
      HWT_ASSIGN_OR_RETURN(CommRecord c, DecodeItraceStart(r, where));
      record.type = RecordType::kItraceStart;
      record.pid = static_cast<int32_t>(c.pid);
      record.tid = static_cast<int32_t>(c.tid);
      break;
    }
    case kRecordAux: {
      HWT_ASSIGN_OR_RETURN(AuxRecord a, DecodeAux(r, where));
      record.type = RecordType::kAux;
      record.addr = a.aux_offset;
      record.value = a.aux_size;
      record.flags = static_cast<uint32_t>(a.flags);
      break;
    }
    case kRecordLost:
    case kRecordLostSamples: {
      HWT_ASSIGN_OR_RETURN(record.value, DecodeLost(r, where));
      record.type = RecordType::kLost;
      if (r.type == kRecordLostSamples) record.path = "samples";
      break;
    }
    case kRecordAuxOutputHwId: {
      HWT_ASSIGN_OR_RETURN(record.value, DecodeAuxOutputHwId(r, where));
      record.type = RecordType::kAuxOutputHwId;
      break;
    }
    case kRecordAuxtraceError: {
      HWT_ASSIGN_OR_RETURN(AuxtraceErrorRecord e,
                           DecodeAuxtraceError(r, where));
      record.type = RecordType::kAuxtraceError;
      record.path = e.message;
      record.value = e.code;
      record.flags = e.type;
      record.addr = e.ip;
      record.cpu = static_cast<int32_t>(e.cpu);
      record.pid = static_cast<int32_t>(e.pid);
      record.tid = static_cast<int32_t>(e.tid);
      if (e.time) record.time = *e.time;
      return std::optional<Record>(std::move(record));
    }
    default:
      return std::optional<Record>();
  }
  ApplySample(sample, &record);
  return std::optional<Record>(std::move(record));
}

bool PlacedLate(const Record& record) {
  if (record.type == RecordType::kComm) {
    return (record.flags & kRecordFlagExec) != 0;
  }
  return record.type == RecordType::kExit;
}

void AttachBuildIds(const std::vector<BuildIdEntry>& ids,
                    std::vector<PendingRecord>* records) {
  // By file name; an entry of the same process wins over one of another.
  std::map<std::string, std::vector<const BuildIdEntry*>> by_name;
  for (const BuildIdEntry& entry : ids) {
    by_name[entry.filename].push_back(&entry);
  }
  for (PendingRecord& p : *records) {
    Record& r = p.record;
    if ((r.type != RecordType::kMmap && r.type != RecordType::kKernel) ||
        !r.build_id.empty()) {
      continue;
    }
    std::string name = r.path;
    if (r.type == RecordType::kKernel &&
        name.compare(0, kKernelMapPrefix.size(), kKernelMapPrefix) == 0) {
      name = std::string(kKernelMapPrefix);
    }
    auto it = by_name.find(name);
    if (it == by_name.end()) continue;
    const BuildIdEntry* best = it->second.front();
    for (const BuildIdEntry* e : it->second) {
      if (r.pid && e->pid == *r.pid) best = e;
    }
    r.build_id = best->build_id;
  }
}

std::vector<Record> PlaceSideband(std::vector<PendingRecord> pending,
                                  const std::vector<PlacedBuffer>& buffers) {
  std::stable_sort(pending.begin(), pending.end(),
                   [](const PendingRecord& a, const PendingRecord& b) {
                     return a.order != b.order ? a.order < b.order
                                               : a.seq < b.seq;
                   });
  // Per buffer: the AUX marks in order and the position each one ends at.
  struct Mark {
    uint64_t order;
    uint64_t position;
  };
  std::vector<std::vector<Mark>> marks(buffers.size());
  std::vector<uint64_t> ends(buffers.size(), 0);
  for (size_t b = 0; b < buffers.size(); ++b) {
    const AuxArea& area = *buffers[b].area;
    for (const AuxMark& m : area.marks) {
      marks[b].push_back(
          {m.order,
           AuxAreas::Position(area, m.aux.aux_offset + m.aux.aux_size)});
    }
    if (!area.segments.empty()) {
      ends[b] = area.segments.back().file_start + area.segments.back().size;
    }
  }
  std::vector<Record> out;
  out.reserve(pending.size());
  for (PendingRecord& p : pending) {
    Record record = std::move(p.record);
    for (size_t b = 0; b < buffers.size(); ++b) {
      const auto& m = marks[b];
      uint64_t position;
      if (p.late) {
        auto it = std::lower_bound(m.begin(), m.end(), p.order,
                                   [](const Mark& mark, uint64_t order) {
                                     return mark.order < order;
                                   });
        position = it == m.end() ? ends[b] : it->position;
      } else {
        auto it = std::upper_bound(m.begin(), m.end(), p.order,
                                   [](uint64_t order, const Mark& mark) {
                                     return order < mark.order;
                                   });
        position = it == m.begin() ? 0 : std::prev(it)->position;
      }
      record.positions.push_back({buffers[b].id, position});
    }
    out.push_back(std::move(record));
  }
  return out;
}

}  // namespace hwt::capture::perf
