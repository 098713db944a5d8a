// Frame walking and unpacking, following OpenCSD's TraceFmtDcdImpl
// (trc_frame_deformatter.cpp) so that byte counts match what its
// demultiplexer hands to each trace ID.
#include "decoders/coresight/frame_scanner.h"

#include <cstring>

#include "absl/strings/str_format.h"
#include "opencsd/ocsd_if_types.h"

namespace hwt::coresight {
namespace {

constexpr uint8_t kNoId = 0xff;

bool IsFsync(const uint8_t* p) {
  return p[0] == 0xff && p[1] == 0xff && p[2] == 0xff && p[3] == 0x7f;
}
bool IsHsync(const uint8_t* p) { return p[0] == 0xff && p[1] == 0x7f; }

}  // namespace

FrameScanner::FrameScanner(uint32_t deformatter_flags)
    : flags_(deformatter_flags) {
  if (flags_ & OCSD_DFRMTR_HAS_HSYNCS) {
    alignment_ = 2;
  } else if (flags_ & OCSD_DFRMTR_HAS_FSYNCS) {
    alignment_ = 4;
  } else {
    alignment_ = 16;
  }
  Reset();
}

void FrameScanner::Reset() {
  // Memory-aligned frames need no synchronisation; TPIU data waits for the
  // first FSYNC.
  synced_ = (flags_ & OCSD_DFRMTR_HAS_FSYNCS) == 0;
  current_id_ = kNoId;
  frame_fill_ = 0;
}

void FrameScanner::AddData(uint8_t id, uint64_t offset, uint64_t n,
                           FrameScanResult* out) {
  if (n == 0) return;
  if (id == kNoId) {
    out->unknown_id_bytes += n;
  } else if (id == 0) {
    out->null_id_bytes += n;
  } else if (id >= 0x70) {
    out->reserved_id_bytes += n;
  } else {
    auto [it, inserted] = out->ids.try_emplace(id);
    if (inserted) it->second.first_offset = offset;
    it->second.bytes += n;
  }
}

void FrameScanner::UnpackFrame(uint64_t frame_offset, FrameScanResult* out) {
  const uint8_t* f = frame_;
  uint8_t flag_bit = 1;
  uint64_t non_data = 1;  // byte 15 holds the flag bits
  // Bytes 0..13 as pairs: an even byte is an ID (bit 0 set) or data whose
  // bit 0 is in the flag byte; an odd byte is always data. On an ID change
  // the flag says whether the following data byte still belongs to the old
  // ID.
  for (int i = 0; i < 14; i += 2, flag_bit <<= 1) {
    uint64_t at = frame_offset + i;
    if (f[i] & 1) {
      uint8_t id = (f[i] >> 1) & 0x7f;
      ++non_data;
      if (id != current_id_) {
        bool old_id_gets_next = (f[15] & flag_bit) != 0;
        if (old_id_gets_next) AddData(current_id_, at + 1, 1, out);
        current_id_ = id;
        if (!old_id_gets_next) AddData(current_id_, at + 1, 1, out);
      } else {
        AddData(current_id_, at + 1, 1, out);
      }
    } else {
      AddData(current_id_, at, 2, out);
    }
  }
  // Byte 14: an ID (with no data of its own) or a data byte.
  if (f[14] & 1) {
    current_id_ = (f[14] >> 1) & 0x7f;
    ++non_data;
  } else {
    AddData(current_id_, frame_offset + 14, 1, out);
  }
  out->frame_bytes += non_data;
}

void FrameScanner::Scan(absl::Span<const uint8_t> data, uint64_t offset,
                        FrameScanResult* out) {
  const size_t size = data.size() - data.size() % alignment_;
  const uint8_t* p = data.data();
  size_t pos = 0;

  if (flags_ & OCSD_DFRMTR_FRAME_MEM_ALIGN) {
    const bool reset_on_fsyncs = flags_ & OCSD_DFRMTR_RESET_ON_4X_FSYNC;
    while (pos + 16 <= size) {
      if (reset_on_fsyncs) {
        // Linux perf pads and separates blocks with whole frames of FSYNCs;
        // a multiple of four resets the decoders.
        size_t n = 0;
        while (pos + 4 * (n + 1) <= size && IsFsync(p + pos + 4 * n)) ++n;
        if (n > 0) {
          out->frame_bytes += 4 * n;
          if (n % 4 != 0) {
            out->errors.push_back(
                {offset + pos, 4 * n,
                 absl::StrFormat("%u FSYNCs at offset 0x%x are not a whole "
                                 "number of frames (frame reset pattern "
                                 "broken)",
                                 n, offset + pos)});
          }
          current_id_ = kNoId;
          pos += 4 * n;
          continue;
        }
      }
      std::memcpy(frame_, p + pos, 16);
      UnpackFrame(offset + pos, out);
      pos += 16;
    }
    return;
  }

  const bool has_fsyncs = flags_ & OCSD_DFRMTR_HAS_FSYNCS;
  const bool has_hsyncs = flags_ & OCSD_DFRMTR_HAS_HSYNCS;
  while (pos < size) {
    if (!synced_) {
      size_t start = pos;
      while (pos + 4 <= size && !IsFsync(p + pos)) ++pos;
      if (pos + 4 > size) pos = size;
      out->unsynced_bytes += pos - start;
      if (pos >= size) break;
      synced_ = true;
      frame_fill_ = 0;
    }
    if (frame_fill_ == 0 && has_fsyncs) {
      while (pos + 4 <= size && IsFsync(p + pos)) {
        out->frame_bytes += 4;
        pos += 4;
      }
      if (pos >= size) break;
    }
    bool bad_sync = false;
    while (frame_fill_ < 16 && pos + 2 <= size) {
      if (frame_fill_ % 4 == 0 && pos + 4 <= size && IsFsync(p + pos)) {
        out->errors.push_back(
            {offset + pos, static_cast<uint64_t>(frame_fill_),
             absl::StrFormat("FSYNC inside a frame at offset 0x%x: partial "
                             "frame dropped, resynchronising",
                             offset + pos)});
        bad_sync = true;
        break;
      }
      if (frame_fill_ == 0) frame_offset_ = offset + pos;
      if (IsHsync(p + pos)) {
        if (!has_hsyncs) {
          out->errors.push_back(
              {offset + pos, static_cast<uint64_t>(frame_fill_) + 2,
               absl::StrFormat("HSYNC at offset 0x%x in a stream configured "
                               "without HSYNCs: partial frame dropped",
                               offset + pos)});
          pos += 2;
          bad_sync = true;
          break;
        }
        out->frame_bytes += 2;
        pos += 2;
        continue;
      }
      frame_[frame_fill_] = p[pos];
      frame_[frame_fill_ + 1] = p[pos + 1];
      frame_fill_ += 2;
      pos += 2;
    }
    if (bad_sync) {
      // OpenCSD stops with a fatal error; the decoder resets and searches
      // for the next FSYNC, and so do we.
      frame_fill_ = 0;
      current_id_ = kNoId;
      synced_ = false;
      continue;
    }
    if (frame_fill_ == 16) {
      UnpackFrame(frame_offset_, out);
      frame_fill_ = 0;
    }
  }
}

}  // namespace hwt::coresight
