// AUX area reconstruction; see perf_aux_areas.h.
#include "capture/perf/perf_aux_areas.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "capture/perf/perf_format.h"

namespace hwt::capture::perf {
namespace {

constexpr uint32_t kNoCpu = 0xffffffffu;
// perf pads every AUXTRACE payload to a multiple of 8 bytes.
constexpr uint64_t kPayloadAlignment = 8;

std::string AreaName(const AuxKey& key) {
  return key.per_cpu ? absl::StrCat("cpu ", key.value)
                     : absl::StrCat("thread ", key.value);
}

}  // namespace

AuxAreas::~AuxAreas() {
  for (auto& [key, area] : areas_) {
    if (area.fd >= 0) close(area.fd);
  }
}

absl::StatusOr<AuxArea*> AuxAreas::Area(const AuxKey& key) {
  auto it = areas_.find(key);
  if (it != areas_.end()) return &it->second;
  AuxArea area;
  area.key = key;
  area.file = absl::StrCat("buffers/", key.per_cpu ? "cpu" : "thread",
                           key.value, ".bin");
  if (!dir_.empty()) {
    HWT_RETURN_IF_ERROR(MakeDirsBelow(dir_, "buffers"));
    const std::string path = dir_ + "/" + area.file;
    area.fd = open(path.c_str(), O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0644);
    if (area.fd < 0) {
      return absl::InternalError(ErrnoMessage(path, "cannot create", errno));
    }
  }
  return &areas_.emplace(key, std::move(area)).first->second;
}

absl::Status AuxAreas::AddData(const AuxtraceRecord& record,
                               absl::Span<const uint8_t> payload, bool snapshot,
                               const std::string& where) {
  AuxKey key;
  key.per_cpu = record.cpu != kNoCpu;
  key.value = static_cast<int32_t>(key.per_cpu ? record.cpu : record.tid);
  HWT_ASSIGN_OR_RETURN(AuxArea * area, Area(key));
  area->snapshot = area->snapshot || snapshot;
  area->payload_bytes += payload.size();
  if (payload.empty()) return absl::OkStatus();
  uint64_t file_pos;
  AuxSegment* last = area->segments.empty() ? nullptr : &area->segments.back();
  if (!snapshot && last != nullptr && record.offset >= last->aux_start &&
      record.offset - last->aux_start <= last->size) {
    // Continues the run (possibly over the previous payload's padding).
    const uint64_t at = record.offset - last->aux_start;
    file_pos = last->file_start + at;
    last->size = std::max(last->size, at + payload.size());
  } else {
    AuxSegment segment;
    segment.aux_start = record.offset;
    segment.file_start = area->file_size;
    segment.size = payload.size();
    segment.lost_before = last != nullptr;
    area->segments.push_back(segment);
    file_pos = segment.file_start;
  }
  area->file_size = std::max(area->file_size, file_pos + payload.size());
  if (area->fd < 0) return absl::OkStatus();
  size_t done = 0;
  while (done < payload.size()) {
    ssize_t n = pwrite(area->fd, payload.data() + done, payload.size() - done,
                       static_cast<off_t>(file_pos + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return absl::DataLossError(
          ErrnoMessage(where + " (" + area->file + ")", "write failed", errno));
    }
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

void AuxAreas::AddMark(const AuxKey& key, uint64_t order,
                       const AuxRecord& aux) {
  auto area = Area(key);
  if (!area.ok()) return;  // reported when data for it arrives
  (*area)->marks.push_back({order, aux});
}

void AuxAreas::ClipAndSplit(AuxArea* area, std::vector<std::string>* lost) {
  std::stable_sort(
      area->marks.begin(), area->marks.end(),
      [](const AuxMark& a, const AuxMark& b) { return a.order < b.order; });
  if (!area->marks.empty() && !area->segments.empty()) {
    uint64_t covered_end = 0;
    for (const AuxMark& m : area->marks) {
      covered_end = std::max(covered_end, m.aux.aux_offset + m.aux.aux_size);
    }
    AuxSegment& last = area->segments.back();
    const uint64_t end = last.aux_start + last.size;
    if (end > covered_end && end - covered_end < kPayloadAlignment &&
        covered_end > last.aux_start) {
      // The payload's padding: cut from the segment and from the file.
      const bool at_file_end = last.file_start + last.size == area->file_size;
      last.size = covered_end - last.aux_start;
      if (at_file_end) area->file_size = last.file_start + last.size;
    }
  }
  // Split where the kernel says trace was lost.
  for (const AuxMark& m : area->marks) {
    const uint64_t flags = m.aux.flags;
    std::optional<uint64_t> at;
    if (flags & kAuxFlagTruncated) at = m.aux.aux_offset + m.aux.aux_size;
    if (flags & (kAuxFlagPartial | kAuxFlagCollision)) at = m.aux.aux_offset;
    if (!at) continue;
    for (size_t i = 0; i < area->segments.size(); ++i) {
      AuxSegment& s = area->segments[i];
      if (*at == s.aux_start) {
        s.lost_before = true;
        break;
      }
      if (*at > s.aux_start && *at < s.aux_start + s.size) {
        AuxSegment tail = s;
        const uint64_t head = *at - s.aux_start;
        tail.aux_start = *at;
        tail.file_start = s.file_start + head;
        tail.size = s.size - head;
        tail.lost_before = true;
        s.size = head;
        area->segments.insert(area->segments.begin() + i + 1, tail);
        break;
      }
    }
  }
  // AUX data the kernel reported that no AUXTRACE payload holds.
  uint64_t reported = 0, missing = 0;
  for (const AuxMark& m : area->marks) {
    uint64_t covered = 0;
    const uint64_t begin = m.aux.aux_offset, end = begin + m.aux.aux_size;
    for (const AuxSegment& s : area->segments) {
      const uint64_t lo = std::max(begin, s.aux_start);
      const uint64_t hi = std::min(end, s.aux_start + s.size);
      if (hi > lo) covered += hi - lo;
    }
    reported += m.aux.aux_size;
    missing += m.aux.aux_size - std::min(covered, m.aux.aux_size);
  }
  if (missing > 0 && !area->snapshot) {
    lost->push_back(absl::StrFormat(
        "%s: the kernel reported %u bytes of AUX data in %u AUX records, "
        "but the file holds %u of them: %u bytes of trace are lost",
        AreaName(area->key), reported, area->marks.size(), reported - missing,
        missing));
  }
}

absl::Status AuxAreas::Finish(std::vector<std::string>* lost) {
  for (auto& [key, area] : areas_) {
    ClipAndSplit(&area, lost);
    if (area.fd >= 0) {
      if (ftruncate(area.fd, static_cast<off_t>(area.file_size)) != 0 ||
          close(area.fd) != 0) {
        area.fd = -1;
        return absl::DataLossError(
            ErrnoMessage(dir_ + "/" + area.file, "write failed", errno));
      }
      area.fd = -1;
    }
  }
  return absl::OkStatus();
}

BufferInfo AuxAreas::Buffer(const AuxArea& area, uint32_t id) const {
  BufferInfo info;
  info.id = id;
  if (area.key.per_cpu) {
    info.cpu = area.key.value;
  } else {
    info.thread = area.key.value;
  }
  info.file = area.file;
  info.size = area.file_size;
  info.wrapped = area.snapshot;
  for (const AuxSegment& s : area.segments) {
    BufferChunk chunk;
    chunk.offset = s.file_start;
    chunk.size = s.size;
    chunk.data_lost_before = s.lost_before;
    info.data_lost = info.data_lost || s.lost_before;
    info.chunks.push_back(chunk);
  }
  for (const AuxMark& m : area.marks) {
    if (m.aux.flags &
        (kAuxFlagTruncated | kAuxFlagPartial | kAuxFlagCollision)) {
      info.data_lost = true;
    }
  }
  return info;
}

uint64_t AuxAreas::Position(const AuxArea& area, uint64_t aux_offset) {
  uint64_t position = 0;
  for (const AuxSegment& s : area.segments) {
    if (aux_offset <= s.aux_start) return std::max(position, s.file_start);
    if (aux_offset - s.aux_start <= s.size) {
      return s.file_start + (aux_offset - s.aux_start);
    }
    position = s.file_start + s.size;
  }
  return position;
}

}  // namespace hwt::capture::perf
