// The perf.data tokenizer; see perf_tokenizer.h for what it does and
// docs/perf-data.md for the layouts it frames.
#include "capture/perf/perf_tokenizer.h"

#include <zstd.h>

#include <algorithm>
#include <memory>
#include <string>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "capture/perf/byte_reader.h"
#include "capture/perf/perf_format.h"

namespace hwt::capture::perf {
namespace {

struct Section {
  uint64_t offset = 0;
  uint64_t size = 0;
};

struct FileHeader {
  uint64_t header_size = 0;
  uint64_t attr_size = 0;
  Section attrs;
  Section data;
  Section event_types;
  uint64_t features[4] = {0, 0, 0, 0};
};

struct DStreamDeleter {
  void operator()(ZSTD_DStream* stream) const { ZSTD_freeDStream(stream); }
};

// Reads the fields of a perf_event_attr the importer uses. `bytes` holds the
// structure as stored (its declared size may be smaller than today's).
PerfAttr ParseAttrFields(absl::Span<const uint8_t> bytes, uint64_t offset) {
  PerfAttr attr;
  attr.offset = offset;
  auto u64_at = [&](size_t at) {
    return at + 8 <= bytes.size() ? LoadLe64(bytes.data() + at) : 0;
  };
  attr.type = bytes.size() >= 4 ? LoadLe32(bytes.data()) : 0;
  attr.size = bytes.size() >= 8 ? LoadLe32(bytes.data() + 4) : 0;
  attr.config = u64_at(8);
  attr.sample_period = u64_at(16);
  attr.sample_type = u64_at(24);
  attr.read_format = u64_at(32);
  attr.flags = u64_at(40);
  attr.config1 = u64_at(56);
  attr.config2 = u64_at(64);
  return attr;
}

class Tokenizer {
 public:
  Tokenizer(absl::Span<const uint8_t> bytes, const std::string& where,
            PerfVisitor* visitor)
      : bytes_(bytes), where_(where), visitor_(visitor) {}

  absl::StatusOr<TokenizeSummary> Run() {
    if (bytes_.size() < kPipeHeaderSize) {
      return Error(0, absl::StrFormat("%u bytes: too short for a perf.data "
                                      "header",
                                      bytes_.size()));
    }
    const uint64_t magic = LoadLe64(bytes_.data());
    if (magic == kMagicSwapped) {
      return Error(0,
                   "big-endian perf.data (written on a big-endian machine): "
                   "not supported; convert it on that machine with `perf "
                   "inject` or read it there");
    }
    if (std::string_view(reinterpret_cast<const char*>(bytes_.data()), 8) ==
        kLegacyMagic) {
      return Error(0,
                   "perf.data version 1 (magic PERFFILE, perf before 2.6.39) "
                   "is not supported");
    }
    if (magic != kMagic) {
      return Error(0, "not a perf.data file (no PERFILE2 magic)");
    }
    const uint64_t header_size = LoadLe64(bytes_.data() + 8);
    if (header_size == kPipeHeaderSize) {
      summary_.pipe = true;
      HWT_RETURN_IF_ERROR(ReadPipeForm());
    } else {
      HWT_RETURN_IF_ERROR(ReadFileForm(header_size));
    }
    if (!pending_.empty()) {
      Warn(absl::StrFormat(
          "%s: the COMPRESSED data ends inside a record (%u decompressed "
          "bytes from decompressed byte 0x%x are not a whole record): they "
          "are not read",
          where_, pending_.size(), pending_base_));
    }
    return summary_;
  }

 private:
  absl::Status Error(uint64_t offset, const std::string& message) const {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: offset 0x%x: %s", where_, offset, message));
  }
  absl::Status Error(const PerfOffset& offset,
                     const std::string& message) const {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: %s: %s", where_, DescribeOffset(offset), message));
  }
  void Warn(std::string message) {
    summary_.warnings.push_back(std::move(message));
  }

  absl::Status ReadPipeForm() {
    summary_.data_offset = kPipeHeaderSize;
    summary_.data_end = bytes_.size();
    return FrameOuter(kPipeHeaderSize, bytes_.size());
  }

  absl::Status ReadFileForm(uint64_t header_size) {
    if (header_size < kFileHeaderSize || bytes_.size() < kFileHeaderSize) {
      return Error(
          8, absl::StrFormat("header size %u (file of %u bytes): a perf.data "
                             "header is %u bytes (or %u in the pipe form)",
                             header_size, bytes_.size(), kFileHeaderSize,
                             kPipeHeaderSize));
    }
    ByteReader in(bytes_.subspan(8, kFileHeaderSize - 8));
    FileHeader h;
    in.U64(&h.header_size);
    in.U64(&h.attr_size);
    in.U64(&h.attrs.offset);
    in.U64(&h.attrs.size);
    in.U64(&h.data.offset);
    in.U64(&h.data.size);
    in.U64(&h.event_types.offset);
    in.U64(&h.event_types.size);
    for (uint64_t& word : h.features) in.U64(&word);
    HWT_RETURN_IF_ERROR(ReadAttrs(h));
    HWT_RETURN_IF_ERROR(ReadFeatures(h));
    return ReadDataSection(h);
  }

  // Checks that [offset, offset + size) lies in the file; `what` names it.
  absl::Status CheckSection(const Section& s, uint64_t field_offset,
                            const std::string& what) const {
    if (s.offset > bytes_.size() || s.size > bytes_.size() - s.offset) {
      return Error(field_offset,
                   absl::StrFormat("%s [0x%x, +0x%x) lies beyond the end of "
                                   "the file (%u bytes)",
                                   what, s.offset, s.size, bytes_.size()));
    }
    return absl::OkStatus();
  }

  absl::Status ReadAttrs(const FileHeader& h) {
    HWT_RETURN_IF_ERROR(CheckSection(h.attrs, 24, "the attribute section"));
    if (h.attrs.size == 0) return absl::OkStatus();
    if (h.attr_size < kAttrSizeVer0 + 16 || h.attr_size > 4096) {
      return Error(16, absl::StrFormat("attribute size %u: expected %u to "
                                       "4096 bytes (attr plus ids section)",
                                       h.attr_size, kAttrSizeVer0 + 16));
    }
    const uint64_t count = h.attrs.size / h.attr_size;
    if (h.attrs.size % h.attr_size != 0 || count > kMaxAttrs) {
      return Error(h.attrs.offset,
                   absl::StrFormat("attribute section of %u bytes is not a "
                                   "whole number (at most %u) of %u-byte "
                                   "attributes",
                                   h.attrs.size, kMaxAttrs, h.attr_size));
    }
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t at = h.attrs.offset + i * h.attr_size;
      auto entry = bytes_.subspan(at, h.attr_size);
      PerfAttr attr = ParseAttrFields(entry.first(h.attr_size - 16), at);
      Section ids{LoadLe64(entry.data() + h.attr_size - 16),
                  LoadLe64(entry.data() + h.attr_size - 8)};
      HWT_RETURN_IF_ERROR(
          CheckSection(ids, at + h.attr_size - 16,
                       absl::StrFormat("the ids of attribute %u", i)));
      if (ids.size % 8 != 0 || ids.size / 8 > kMaxIdsPerAttr) {
        return Error(at + h.attr_size - 8,
                     absl::StrFormat("attribute %u: ids section of %u bytes "
                                     "is not a whole number of u64 ids",
                                     i, ids.size));
      }
      for (uint64_t k = 0; k < ids.size / 8; ++k) {
        attr.ids.push_back(LoadLe64(bytes_.data() + ids.offset + 8 * k));
      }
      HWT_RETURN_IF_ERROR(visitor_->OnAttr(attr));
    }
    return absl::OkStatus();
  }

  absl::Status ReadFeatures(const FileHeader& h) {
    int count = 0;
    for (int bit = 0; bit < kFeatureBits; ++bit) {
      if ((h.features[bit / 64] >> (bit % 64)) & 1) ++count;
    }
    if (count == 0) return absl::OkStatus();
    if (h.data.size == 0) {
      Warn(absl::StrFormat(
          "%s: the header's data size is 0 (perf record did not finish): "
          "the %d feature sections (build-ids, CPU, command line) cannot be "
          "found",
          where_, count));
      return absl::OkStatus();
    }
    const uint64_t table = h.data.offset + h.data.size;
    if (table < h.data.offset || table > bytes_.size() ||
        uint64_t(count) * 16 > bytes_.size() - table) {
      Warn(absl::StrFormat(
          "%s: the feature section table at 0x%x (%d entries) lies beyond "
          "the end of the file (%u bytes): the file is truncated; build-ids, "
          "CPU and command line are lost",
          where_, table, count, bytes_.size()));
      return absl::OkStatus();
    }
    int index = 0;
    for (int bit = 0; bit < kFeatureBits; ++bit) {
      if (!((h.features[bit / 64] >> (bit % 64)) & 1)) continue;
      const uint64_t entry = table + 16 * uint64_t(index++);
      Section s{LoadLe64(bytes_.data() + entry),
                LoadLe64(bytes_.data() + entry + 8)};
      if (s.offset > bytes_.size() || s.size > bytes_.size() - s.offset) {
        Warn(absl::StrFormat(
            "%s: offset 0x%x: feature %s section [0x%x, +0x%x) lies beyond "
            "the end of the file: not read",
            where_, entry, FeatureName(bit), s.offset, s.size));
        continue;
      }
      HWT_RETURN_IF_ERROR(
          visitor_->OnFeature(bit, bytes_.subspan(s.offset, s.size), s.offset));
    }
    return absl::OkStatus();
  }

  absl::Status ReadDataSection(const FileHeader& h) {
    uint64_t end = h.data.offset + h.data.size;
    if (h.data.offset < kFileHeaderSize || h.data.offset > bytes_.size() ||
        end < h.data.offset) {
      return Error(40,
                   absl::StrFormat("data section at 0x%x (+0x%x) is "
                                   "outside the file (%u bytes)",
                                   h.data.offset, h.data.size, bytes_.size()));
    }
    if (h.data.size == 0) {
      data_end_unknown_ = true;
      end = bytes_.size();
      if (end > h.data.offset) {
        Warn(absl::StrFormat(
            "%s: the header's data size is 0 (perf record did not finish): "
            "records are read from 0x%x to the end of the file",
            where_, h.data.offset));
      }
    } else if (end > bytes_.size()) {
      Warn(absl::StrFormat(
          "%s: the data section runs to 0x%x but the file ends at 0x%x: "
          "the file is truncated; %u bytes of records are lost",
          where_, end, bytes_.size(), end - bytes_.size()));
      data_end_unknown_ = true;
      end = bytes_.size();
    }
    summary_.data_offset = h.data.offset;
    summary_.data_end = end;
    return FrameOuter(h.data.offset, end);
  }

  // The records of the file in [begin, end).
  absl::Status FrameOuter(uint64_t begin, uint64_t end) {
    auto data = bytes_.subspan(begin, end - begin);
    HWT_ASSIGN_OR_RETURN(size_t used, Frame(data, begin, std::nullopt, true));
    if (used < data.size()) summary_.data_end = begin + used;
    return absl::OkStatus();
  }

  // Frames the records of `data`, whose first byte is at `base` (a file
  // offset, or with `compressed_at` an offset in the decompressed stream of
  // the COMPRESSED records). Returns the bytes consumed. `final`: nothing
  // follows `data`, so an incomplete record at its end is a truncation
  // (reported; an AUXTRACE payload cut short is still delivered); otherwise
  // it is left for the next COMPRESSED record to complete.
  absl::StatusOr<size_t> Frame(absl::Span<const uint8_t> data, uint64_t base,
                               std::optional<uint64_t> compressed_at,
                               bool final) {
    size_t pos = 0;
    while (pos < data.size()) {
      PerfOffset where = compressed_at ? PerfOffset{*compressed_at, base + pos}
                                       : PerfOffset{base + pos, std::nullopt};
      const size_t left = data.size() - pos;
      if (left < kRecordHeaderSize) {
        if (final) TruncatedTail(where, left, "a record header");
        return pos;
      }
      RawRecord r;
      r.offset = where;
      r.type = LoadLe32(data.data() + pos);
      r.misc = LoadLe16(data.data() + pos + 4);
      r.size = LoadLe16(data.data() + pos + 6);
      if (r.size < kRecordHeaderSize && final && !compressed_at &&
          data_end_unknown_) {
        // The header does not say where the records end (data size 0, or
        // past the end of the file): what follows them (e.g. the feature
        // sections) is not records. Stop here and say so.
        Warn(absl::StrFormat(
            "%s: %s: no record can be framed here (size %u) and the header "
            "does not say where the records end: the %u bytes from here on "
            "are not read",
            where_, DescribeOffset(where), r.size, left));
        return pos;
      }
      if (r.size < kRecordHeaderSize) {
        return Error(
            where, absl::StrFormat("%s record of size %u (less than its 8-byte "
                                   "header): the records cannot be framed",
                                   RecordTypeName(r.type), r.size));
      }
      if (r.size > left) {
        if (final) {
          TruncatedTail(where, left,
                        absl::StrFormat("a %u-byte %s record", r.size,
                                        RecordTypeName(r.type)));
        }
        return pos;
      }
      r.body =
          data.subspan(pos + kRecordHeaderSize, r.size - kRecordHeaderSize);
      HWT_ASSIGN_OR_RETURN(r.payload_declared, PayloadSize(r));
      const size_t after = pos + r.size;
      const uint64_t available = data.size() - after;
      if (r.payload_declared > available) {
        if (!final) return pos;
        r.payload = data.subspan(after, available);
        r.payload_truncated = true;
        Warn(absl::StrFormat(
            "%s: %s: %s record declares %u bytes of data but the file ends "
            "after %u: the file is truncated; %u bytes are lost",
            where_, DescribeOffset(where), RecordTypeName(r.type),
            r.payload_declared, available, r.payload_declared - available));
        HWT_RETURN_IF_ERROR(Dispatch(r));
        return data.size();
      }
      r.payload = data.subspan(after, r.payload_declared);
      HWT_RETURN_IF_ERROR(Dispatch(r));
      pos = after + r.payload_declared;
    }
    return pos;
  }

  void TruncatedTail(const PerfOffset& where, size_t left,
                     const std::string& what) {
    Warn(absl::StrFormat(
        "%s: %s: the data ends %u bytes into %s: the file is truncated; "
        "the rest of that record is lost",
        where_, DescribeOffset(where), left, what));
  }

  absl::StatusOr<uint64_t> PayloadSize(const RawRecord& r) const {
    if (r.type == kRecordAuxtrace) {
      if (r.body.size() < 8) {
        return Error(r.offset, "AUXTRACE record too short for its size field");
      }
      return LoadLe64(r.body.data());
    }
    if (r.type == kRecordHeaderTracingData) {
      if (r.body.size() < 4) {
        return Error(r.offset,
                     "TRACING_DATA record too short for its size field");
      }
      return LoadLe32(r.body.data());
    }
    return 0;
  }

  absl::Status Dispatch(const RawRecord& r) {
    ++summary_.records;
    switch (r.type) {
      case kRecordHeaderAttr:
        return PipeAttr(r);
      case kRecordHeaderFeature: {
        if (r.body.size() < 8) {
          return Error(r.offset, "HEADER_FEATURE record without a feature id");
        }
        uint64_t id = LoadLe64(r.body.data());
        if (id >= kFeatureBits) {
          return Error(r.offset,
                       absl::StrFormat("HEADER_FEATURE record for feature %u "
                                       "(ids are below %d)",
                                       id, kFeatureBits));
        }
        return visitor_->OnFeature(static_cast<int>(id), r.body.subspan(8),
                                   r.offset.file + kRecordHeaderSize + 8);
      }
      case kRecordHeaderBuildId: {
        // One build_id_event, laid out as an entry of the BUILD_ID feature
        // (header included).
        absl::Span<const uint8_t> whole(r.body.data() - kRecordHeaderSize,
                                        r.size);
        return visitor_->OnFeature(kFeatBuildId, whole, r.offset.file);
      }
      case kRecordCompressed:
      case kRecordCompressed2:
        return Decompress(r);
      default:
        return visitor_->OnRecord(r);
    }
  }

  absl::Status PipeAttr(const RawRecord& r) {
    if (r.body.size() < kAttrSizeVer0) {
      return Error(r.offset, absl::StrFormat("HEADER_ATTR record of %u bytes: "
                                             "an attribute is at least %u",
                                             r.body.size(), kAttrSizeVer0));
    }
    const uint32_t declared = LoadLe32(r.body.data() + 4);
    if (declared < kAttrSizeVer0 || declared > r.body.size() ||
        (r.body.size() - declared) % 8 != 0) {
      return Error(r.offset,
                   absl::StrFormat("HEADER_ATTR record: attribute size %u "
                                   "does not fit the %u-byte record body",
                                   declared, r.body.size()));
    }
    if (++pipe_attrs_ > kMaxAttrs) {
      return Error(r.offset,
                   absl::StrFormat("more than %u attributes", kMaxAttrs));
    }
    PerfAttr attr = ParseAttrFields(r.body.first(declared), r.offset.file);
    for (size_t at = declared; at + 8 <= r.body.size(); at += 8) {
      attr.ids.push_back(LoadLe64(r.body.data() + at));
    }
    return visitor_->OnAttr(attr);
  }

  absl::Status Decompress(const RawRecord& r) {
    if (r.offset.decompressed) {
      return Error(r.offset, "COMPRESSED record inside COMPRESSED data");
    }
    absl::Span<const uint8_t> input = r.body;
    if (r.type == kRecordCompressed2) {
      if (r.body.size() < 8 || LoadLe64(r.body.data()) > r.body.size() - 8) {
        return Error(r.offset, "COMPRESSED2 record: data size past its end");
      }
      input = r.body.subspan(8, LoadLe64(r.body.data()));
    }
    ++summary_.compressed_records;
    if (!dstream_) {
      dstream_.reset(ZSTD_createDStream());
      if (!dstream_ || ZSTD_isError(ZSTD_initDStream(dstream_.get()))) {
        return absl::ResourceExhaustedError("cannot create a zstd stream");
      }
    }
    ZSTD_inBuffer in{input.data(), input.size(), 0};
    const size_t step = ZSTD_DStreamOutSize();
    bool frame_ended = false;
    for (;;) {
      // Writers pad the record to 8 bytes after the zstd frame: zero bytes
      // there are not the start of another frame.
      if (frame_ended && input.size() - in.pos < 8 &&
          std::all_of(input.begin() + in.pos, input.end(),
                      [](uint8_t b) { return b == 0; })) {
        break;
      }
      const size_t old = pending_.size();
      pending_.resize(old + step);
      ZSTD_outBuffer out{pending_.data() + old, step, 0};
      const size_t in_before = in.pos;
      size_t result = ZSTD_decompressStream(dstream_.get(), &out, &in);
      pending_.resize(old + out.pos);
      if (ZSTD_isError(result)) {
        return Error(r.offset, absl::StrFormat("COMPRESSED record: zstd: %s",
                                               ZSTD_getErrorName(result)));
      }
      frame_ended = result == 0;
      summary_.decompressed_bytes += out.pos;
      if (pending_.size() > kMaxDecompressedPending) {
        return Error(r.offset,
                     absl::StrFormat("COMPRESSED data decompresses to more "
                                     "than %u bytes without a whole record",
                                     kMaxDecompressedPending));
      }
      const bool progress = out.pos > 0 || in.pos > in_before;
      if ((in.pos == in.size && out.pos < step) || !progress) break;
    }
    auto bytes = absl::Span<const uint8_t>(
        reinterpret_cast<const uint8_t*>(pending_.data()), pending_.size());
    HWT_ASSIGN_OR_RETURN(size_t used,
                         Frame(bytes, pending_base_, r.offset.file, false));
    pending_.erase(0, used);
    pending_base_ += used;
    return absl::OkStatus();
  }

  absl::Span<const uint8_t> bytes_;
  const std::string& where_;
  PerfVisitor* visitor_;
  TokenizeSummary summary_;
  uint64_t pipe_attrs_ = 0;
  // The data section's end is the file's end, not one the header gives.
  bool data_end_unknown_ = false;
  std::unique_ptr<ZSTD_DStream, DStreamDeleter> dstream_;
  std::string pending_;  // decompressed bytes not yet framed
  uint64_t pending_base_ = 0;
};

}  // namespace

std::string DescribeOffset(const PerfOffset& offset) {
  if (!offset.decompressed) return absl::StrFormat("offset 0x%x", offset.file);
  return absl::StrFormat(
      "offset 0x%x (COMPRESSED data, decompressed byte 0x%x)", offset.file,
      *offset.decompressed);
}

absl::StatusOr<TokenizeSummary> TokenizePerfData(
    absl::Span<const uint8_t> bytes, const std::string& where,
    PerfVisitor* visitor) {
  Tokenizer tokenizer(bytes, where, visitor);
  return tokenizer.Run();
}

bool LooksLikePerfData(absl::Span<const uint8_t> bytes) {
  if (bytes.size() < 8) return false;
  const uint64_t magic = LoadLe64(bytes.data());
  return magic == kMagic || magic == kMagicSwapped ||
         std::string_view(reinterpret_cast<const char*>(bytes.data()), 8) ==
             kLegacyMagic;
}

}  // namespace hwt::capture::perf
