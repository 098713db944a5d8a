// Raw trace backend detection; see raw_detect.h for what each detector looks
// for and why it cannot be fooled by random bytes.
#include "capture/raw_detect.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "capture/elf_file.h"

namespace hwt::capture {
namespace {

constexpr uint8_t kPsb[16] = {0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
                              0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82};
constexpr uint8_t kFsync[4] = {0xff, 0xff, 0xff, 0x7f};

constexpr size_t kFrameSize = 16;
// A formatted stream interleaves few sources; more distinct IDs than this in
// the frames examined means the bytes are not frames.
constexpr size_t kMaxPlausibleTraceIds = 16;
constexpr size_t kMinFrames = 8;

std::optional<size_t> Find(absl::Span<const uint8_t> bytes, const uint8_t* what,
                           size_t what_size, size_t limit) {
  size_t end = std::min(bytes.size(), limit);
  if (end < what_size) return std::nullopt;
  const uint8_t* begin = bytes.data();
  const uint8_t* last = begin + end;
  const uint8_t* found = std::search(begin, last, what, what + what_size);
  if (found == last) return std::nullopt;
  return static_cast<size_t>(found - begin);
}

// Total size (header included) of the SPE packet at `pos`, 0 when the header
// is invalid. May exceed the bytes left (a cut-off packet).
size_t SpePacketSize(absl::Span<const uint8_t> bytes, size_t pos) {
  const uint8_t h = bytes[pos];
  auto sized = [](uint8_t header) -> size_t {
    return size_t{1} << ((header >> 4) & 3);
  };
  if (h == 0x00 || h == 0x01) return 1;  // PAD, END
  if (h == 0x71) return 9;               // TIMESTAMP
  if ((h & 0xcf) == 0x42 || (h & 0xcf) == 0x43) return 1 + sized(h);
  if ((h & 0xfc) == 0x64) return 5;  // CONTEXT
  if ((h & 0xfc) == 0x48) return 2;  // OP_TYPE
  if ((h & 0xf8) == 0xb0) return 9;  // ADDRESS
  if ((h & 0xf8) == 0x98) return 3;  // COUNTER
  if ((h & 0xfc) == 0x20) {          // extended header
    if (pos + 1 >= bytes.size()) return 2;
    const uint8_t h1 = bytes[pos + 1];
    if (h1 == 0x00) {  // alignment padding to a 2 << (h & 3) boundary
      size_t alignment = size_t{2} << (h & 3);
      return alignment - (pos % alignment);
    }
    if ((h1 & 0xf8) == 0xb0) return 10;
    if ((h1 & 0xf8) == 0x98) return 4;
    return 0;
  }
  return 0;
}

// Statistics of 16-byte frames from `start`.
struct FrameScan {
  size_t frames_examined = 0;
  size_t good_prefix = 0;  // frames before the first implausible one
  size_t id_bytes_in_prefix = 0;
  std::set<uint32_t> ids_in_prefix;  // non-null IDs
  std::string first_problem;
};

FrameScan ScanFrames(absl::Span<const uint8_t> bytes, size_t start,
                     size_t limit) {
  FrameScan scan;
  size_t end = std::min(bytes.size(), start + limit);
  bool in_prefix = true;
  for (size_t frame = start; frame + kFrameSize <= end; frame += kFrameSize) {
    ++scan.frames_examined;
    if (!in_prefix) continue;
    std::set<uint32_t> ids = scan.ids_in_prefix;
    size_t id_bytes = 0;
    std::string problem;
    for (size_t i = 0; i < 15; i += 2) {
      uint8_t b = bytes[frame + i];
      if ((b & 1) == 0) continue;
      ++id_bytes;
      uint32_t id = b >> 1;
      if (id >= 0x70) {
        problem = absl::StrFormat("reserved trace ID 0x%x at offset 0x%x", id,
                                  frame + i);
        break;
      }
      if (id != 0) ids.insert(id);
    }
    if (problem.empty() && ids.size() > kMaxPlausibleTraceIds) {
      problem =
          absl::StrFormat("more than %u distinct trace IDs by offset 0x%x",
                          kMaxPlausibleTraceIds, frame);
    }
    if (!problem.empty()) {
      in_prefix = false;
      scan.first_problem = problem;
      continue;
    }
    ++scan.good_prefix;
    scan.id_bytes_in_prefix += id_bytes;
    scan.ids_in_prefix = std::move(ids);
  }
  return scan;
}

// Whether a frame scan looks like real formatted trace; sets `why` either way.
bool FramesPlausible(const FrameScan& scan, std::string* why) {
  if (scan.frames_examined < kMinFrames) {
    *why = absl::StrFormat("fewer than %u 16-byte frames", kMinFrames);
    return false;
  }
  if (scan.good_prefix < kMinFrames) {
    *why = scan.first_problem;
    return false;
  }
  // Real streams keep most of the examined frames consistent; a buffer that
  // was not full may end in stale memory, hence the absolute minimum too.
  if (scan.good_prefix * 10 < scan.frames_examined * 9 &&
      scan.good_prefix < 2 * kMinFrames) {
    *why = absl::StrCat("only ", scan.good_prefix, " of ", scan.frames_examined,
                        " frames are consistent (", scan.first_problem, ")");
    return false;
  }
  if (scan.ids_in_prefix.empty()) {
    *why = "no trace ID in any frame";
    return false;
  }
  // Random bytes have an ID byte at half of the 8 even positions; frames
  // change source far less often.
  if (scan.id_bytes_in_prefix > 2 * scan.good_prefix) {
    *why = absl::StrFormat("%.1f ID bytes per frame (random data has 4)",
                           static_cast<double>(scan.id_bytes_in_prefix) /
                               static_cast<double>(scan.good_prefix));
    return false;
  }
  return true;
}

std::string IdList(const std::set<uint32_t>& ids) {
  std::vector<std::string> parts;
  for (uint32_t id : ids) parts.push_back(absl::StrFormat("0x%x", id));
  return absl::StrJoin(parts, ", ");
}

// The file starts with at least five 00 then 80: the alignment sync a
// PTM/ETMv3 (five) or ETMv4/ETE (eleven) source emits first. A formatted
// buffer starts with an ID byte instead, so this wins over the frame check.
DetectorResult DetectAlignmentSyncAtStart(absl::Span<const uint8_t> bytes) {
  DetectorResult result;
  size_t zeros = 0;
  while (zeros < bytes.size() && bytes[zeros] == 0) ++zeros;
  if (zeros >= 5 && zeros < bytes.size() && bytes[zeros] == 0x80) {
    RawDetection detection;
    detection.backend = Backend::kCoreSight;
    detection.reason = absl::StrFormat(
        "unformatted CoreSight trace: %s alignment sync at offset 0",
        zeros >= 11 ? "ETMv4/ETE" : "PTM/ETMv3");
    result.detection = std::move(detection);
  } else {
    result.rejection = "no alignment sync at the start";
  }
  return result;
}

}  // namespace

DetectorResult DetectPt(absl::Span<const uint8_t> bytes) {
  DetectorResult result;
  std::optional<size_t> psb = Find(bytes, kPsb, sizeof(kPsb), kPsbSearchLimit);
  if (!psb) {
    result.rejection =
        absl::StrFormat("no Intel PT PSB (02 82 x8) in the first %u bytes",
                        std::min(bytes.size(), kPsbSearchLimit));
    return result;
  }
  RawDetection detection;
  detection.backend = Backend::kPt;
  detection.reason =
      absl::StrFormat("Intel PT PSB (02 82 x8) at offset 0x%x", *psb);
  result.detection = std::move(detection);
  return result;
}

DetectorResult DetectCoreSightFormatted(absl::Span<const uint8_t> bytes) {
  DetectorResult result;
  FrameScan scan = ScanFrames(bytes, 0, kFrameCheckLimit);
  std::string why;
  if (!FramesPlausible(scan, &why)) {
    result.rejection = absl::StrCat("not CoreSight formatted frames: ", why);
    return result;
  }
  RawDetection detection;
  detection.backend = Backend::kCoreSight;
  detection.coresight_formatted = true;
  detection.coresight_trace_ids.assign(scan.ids_in_prefix.begin(),
                                       scan.ids_in_prefix.end());
  detection.reason = absl::StrFormat(
      "CoreSight formatted frames: %u consistent 16-byte frames naming trace "
      "ID%s %s",
      scan.good_prefix, scan.ids_in_prefix.size() > 1 ? "s" : "",
      IdList(scan.ids_in_prefix));
  result.detection = std::move(detection);
  return result;
}

DetectorResult DetectCoreSightFrameSyncs(absl::Span<const uint8_t> bytes) {
  DetectorResult result;
  size_t end = std::min(bytes.size(), kFrameCheckLimit);
  std::vector<size_t> syncs;
  size_t pos = 0;
  while (pos < end) {
    std::optional<size_t> found =
        Find(bytes.subspan(pos), kFsync, sizeof(kFsync), end - pos);
    if (!found) break;
    syncs.push_back(pos + *found);
    pos += *found + sizeof(kFsync);
  }
  if (syncs.size() < 2) {
    result.rejection = absl::StrFormat(
        "fewer than two CoreSight frame syncs (ff ff ff 7f) in the first %u "
        "bytes",
        end);
    return result;
  }
  RawDetection detection;
  detection.backend = Backend::kCoreSight;
  detection.coresight_formatted = true;
  detection.coresight_fsyncs = true;
  detection.reason = absl::StrFormat(
      "%u CoreSight frame syncs (ff ff ff 7f, TPIU), the first at offset 0x%x",
      syncs.size(), syncs.front());
  result.detection = std::move(detection);
  return result;
}

DetectorResult DetectCoreSightUnformatted(absl::Span<const uint8_t> bytes) {
  DetectorResult result = DetectAlignmentSyncAtStart(bytes);
  if (result.detection) return result;
  // Elsewhere early: the ETMv4/ETE sync only (long enough to be unambiguous).
  size_t end = std::min(bytes.size(), kFrameCheckLimit);
  size_t run = 0;
  for (size_t i = 0; i < end; ++i) {
    if (bytes[i] == 0) {
      ++run;
      continue;
    }
    if (bytes[i] == 0x80 && run >= 11) {
      RawDetection detection;
      detection.backend = Backend::kCoreSight;
      detection.reason = absl::StrFormat(
          "unformatted CoreSight trace: ETMv4/ETE alignment sync at offset "
          "0x%x",
          i - 11);
      result.detection = std::move(detection);
      return result;
    }
    run = 0;
  }
  result.rejection = absl::StrFormat(
      "no ETMv4/ETE/PTM alignment sync (00 x11 80) in the first %u bytes", end);
  return result;
}

DetectorResult DetectSpe(absl::Span<const uint8_t> bytes) {
  DetectorResult result;
  const size_t end = std::min(bytes.size(), kSpeCheckLimit);
  size_t pos = 0;
  size_t records = 0;
  size_t invalid = 0;
  size_t packets_in_record = 0;
  size_t first_invalid = end;
  while (pos < end) {
    size_t size = SpePacketSize(bytes, pos);
    if (size == 0) {
      if (invalid == 0) first_invalid = pos;
      ++invalid;
      packets_in_record = 0;
      ++pos;
      continue;
    }
    if (pos + size > bytes.size()) break;  // cut off at the end of the file
    const uint8_t h = bytes[pos];
    if (h == 0x01 || h == 0x71) {
      if (packets_in_record > 0) ++records;
      packets_in_record = 0;
    } else if (h != 0x00 && (h & 0xfc) != 0x20) {
      ++packets_in_record;
    } else if ((h & 0xfc) == 0x20 && bytes[pos + 1] != 0x00) {
      ++packets_in_record;
    }
    pos += size;
  }
  // Whole records with no invalid header at all, or many records with a few
  // resynchronisations (hwt(8) appends half-buffers whose last record may be
  // cut off).
  bool clean = invalid == 0 && records >= 2;
  bool mostly = records >= 16 && invalid * 16 <= records;
  if (!clean && !mostly) {
    if (invalid > 0) {
      result.rejection = absl::StrFormat(
          "not ARM SPE records: %u invalid packet headers (the first at offset "
          "0x%x), %u complete records",
          invalid, first_invalid, records);
    } else {
      result.rejection =
          absl::StrFormat("not ARM SPE records: only %u complete record%s",
                          records, records == 1 ? "" : "s");
    }
    return result;
  }
  RawDetection detection;
  detection.backend = Backend::kSpe;
  detection.reason = absl::StrFormat(
      "ARM SPE: %u records of valid packets in the first %u bytes%s", records,
      end,
      invalid == 0
          ? ""
          : absl::StrFormat(" (%u bytes skipped to resynchronise)", invalid));
  result.detection = std::move(detection);
  return result;
}

DetectorResult DetectCoreSight(absl::Span<const uint8_t> bytes) {
  DetectorResult result;
  std::vector<std::string> tried;
  for (auto* detector :
       {&DetectAlignmentSyncAtStart, &DetectCoreSightFormatted,
        &DetectCoreSightFrameSyncs, &DetectCoreSightUnformatted}) {
    DetectorResult one = detector(bytes);
    if (one.detection) return one;
    tried.push_back(std::move(one.rejection));
  }
  result.rejection = absl::StrJoin(tried, "; ");
  return result;
}

absl::StatusOr<RawDetection> DetectRawBackend(absl::Span<const uint8_t> bytes,
                                              std::string_view where) {
  std::vector<std::string> tried;
  // The shortest conclusive pattern, a PTM alignment sync, has 6 bytes.
  if (bytes.size() < 6) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: only %u bytes: too short to tell which trace it holds; give the "
        "backend with --backend pt|coresight|spe",
        where, bytes.size()));
  }
  if (LooksLikeElf(bytes)) {
    return absl::FailedPreconditionError(absl::StrCat(
        std::string(where),
        ": is an ELF file, not a raw trace (give program images with "
        "--image)"));
  }
  // PT first: a PSB is conclusive. Then an alignment sync at offset 0 (a
  // formatted buffer starts with an ID byte). SPE before formatted
  // CoreSight: its check is the stricter one (every byte must parse).
  for (auto* detector : {&DetectPt, &DetectAlignmentSyncAtStart, &DetectSpe,
                         &DetectCoreSightFormatted, &DetectCoreSightFrameSyncs,
                         &DetectCoreSightUnformatted}) {
    DetectorResult result = detector(bytes);
    if (result.detection) return std::move(*result.detection);
    if (detector != &DetectAlignmentSyncAtStart) {
      tried.push_back(std::move(result.rejection));
    }
  }
  return absl::FailedPreconditionError(absl::StrCat(
      std::string(where), ": cannot tell which trace this raw file holds: ",
      absl::StrJoin(tried, "; "),
      ". Give the backend with --backend pt|coresight|spe"));
}

}  // namespace hwt::capture
