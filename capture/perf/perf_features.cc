// Feature section decoding; see perf_features.h.
#include "capture/perf/perf_features.h"

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "capture/elf_file.h"
#include "capture/perf/byte_reader.h"
#include "capture/perf/perf_format.h"
#include "capture/perf/perf_records.h"

namespace hwt::capture::perf {
namespace {

constexpr uint32_t kMaxListEntries = 1u << 20;

class FeatureReader {
 public:
  FeatureReader(int feature, absl::Span<const uint8_t> data, uint64_t offset,
                const std::string& where)
      : feature_(feature), in_(data), offset_(offset), where_(where) {}

  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: feature %s at offset 0x%x: %s (at byte %u of the section)", where_,
        FeatureName(feature_), offset_, what, in_.position()));
  }

  absl::Status U32(uint32_t* out) {
    return in_.U32(out) ? absl::OkStatus() : Error("section ends early");
  }
  absl::Status U64(uint64_t* out) {
    return in_.U64(out) ? absl::OkStatus() : Error("section ends early");
  }
  // struct perf_header_string: u32 len, then len NUL-padded bytes.
  absl::Status String(std::string* out) {
    uint32_t len = 0;
    HWT_RETURN_IF_ERROR(U32(&len));
    if (!in_.PaddedString(len, out)) {
      return Error(
          absl::StrFormat("string of %u bytes runs past the end", len));
    }
    return absl::OkStatus();
  }
  absl::Status Count(uint32_t* out, size_t min_entry_size) {
    HWT_RETURN_IF_ERROR(U32(out));
    if (*out > kMaxListEntries ||
        uint64_t(*out) * min_entry_size > in_.remaining()) {
      return Error(absl::StrFormat("%u entries do not fit in %u bytes", *out,
                                   in_.remaining()));
    }
    return absl::OkStatus();
  }
  ByteReader& in() { return in_; }

 private:
  int feature_;
  ByteReader in_;
  uint64_t offset_;
  const std::string& where_;
};

absl::Status DecodeBuildIds(FeatureReader& r, uint64_t offset,
                            PerfFeatures* out) {
  ByteReader& in = r.in();
  while (in.remaining() > 0) {
    const uint64_t at = offset + in.position();
    uint32_t type = 0;
    uint16_t misc = 0, size = 0;
    if (!in.U32(&type) || !in.U16(&misc) || !in.U16(&size)) {
      return r.Error("build-id entry header cut short");
    }
    if (size < 8 + 4 + 24 || size - 8u > in.remaining()) {
      return r.Error(absl::StrFormat("build-id entry of %u bytes", size));
    }
    absl::Span<const uint8_t> entry;
    in.Bytes(size - 8, &entry);
    BuildIdEntry e;
    e.offset = at;
    e.pid = static_cast<int32_t>(LoadLe32(entry.data()));
    e.cpumode = misc & kMiscCpumodeMask;
    absl::Span<const uint8_t> id = entry.subspan(4, 20);
    if (misc & kMiscBuildIdSize) {
      e.build_id = HexBytes(id.first(std::min<size_t>(entry[24], 20)));
    } else {
      e.build_id = TrimBuildId(HexBytes(id));
    }
    e.filename = ByteReader::CString(entry.subspan(28));
    out->build_ids.push_back(std::move(e));
  }
  return absl::OkStatus();
}

absl::Status DecodeEventDesc(FeatureReader& r, PerfFeatures* out) {
  uint32_t nr = 0, attr_size = 0;
  HWT_RETURN_IF_ERROR(r.Count(&nr, 1));
  HWT_RETURN_IF_ERROR(r.U32(&attr_size));
  for (uint32_t i = 0; i < nr; ++i) {
    EventDesc desc;
    uint32_t nr_ids = 0;
    if (!r.in().Skip(attr_size)) return r.Error("attribute cut short");
    HWT_RETURN_IF_ERROR(r.Count(&nr_ids, 8));
    HWT_RETURN_IF_ERROR(r.String(&desc.name));
    for (uint32_t k = 0; k < nr_ids; ++k) {
      uint64_t id = 0;
      HWT_RETURN_IF_ERROR(r.U64(&id));
      desc.ids.push_back(id);
    }
    out->events.push_back(std::move(desc));
  }
  return absl::OkStatus();
}

absl::Status DecodeStringFeature(FeatureReader& r, int feature,
                                 PerfFeatures* out) {
  std::string* field = nullptr;
  switch (feature) {
    case kFeatHostname:
      field = &out->hostname;
      break;
    case kFeatOsRelease:
      field = &out->os_release;
      break;
    case kFeatVersion:
      field = &out->version;
      break;
    case kFeatArch:
      field = &out->arch;
      break;
    case kFeatCpuDesc:
      field = &out->cpu_desc;
      break;
    default:
      field = &out->cpuid;
      break;
  }
  return r.String(field);
}

void DecodeMetaInfo(absl::Span<const uint8_t> data, PerfFeatures* out) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i < data.size(); ++i) {
    if (data[i] != 0) continue;
    parts.push_back(ByteReader::CString(data.subspan(start, i - start)));
    start = i + 1;
  }
  for (size_t i = 0; i + 1 < parts.size(); i += 2) {
    if (!parts[i].empty()) out->simpleperf_meta[parts[i]] = parts[i + 1];
  }
}

}  // namespace

absl::Status DecodeFeature(int feature, absl::Span<const uint8_t> data,
                           uint64_t offset, const std::string& where,
                           PerfFeatures* out) {
  out->present.push_back(feature);
  FeatureReader r(feature, data, offset, where);
  switch (feature) {
    case kFeatBuildId:
      return DecodeBuildIds(r, offset, out);
    case kFeatHostname:
    case kFeatOsRelease:
    case kFeatVersion:
    case kFeatArch:
    case kFeatCpuDesc:
    case kFeatCpuId:
      return DecodeStringFeature(r, feature, out);
    case kFeatNrCpus: {
      uint32_t available = 0, online = 0;
      HWT_RETURN_IF_ERROR(r.U32(&available));
      HWT_RETURN_IF_ERROR(r.U32(&online));
      out->nr_cpus_available = available;
      out->nr_cpus_online = online;
      return absl::OkStatus();
    }
    case kFeatCmdline: {
      uint32_t nr = 0;
      HWT_RETURN_IF_ERROR(r.Count(&nr, 4));
      out->cmdline.clear();
      for (uint32_t i = 0; i < nr; ++i) {
        std::string arg;
        HWT_RETURN_IF_ERROR(r.String(&arg));
        out->cmdline.push_back(std::move(arg));
      }
      return absl::OkStatus();
    }
    case kFeatEventDesc:
      return DecodeEventDesc(r, out);
    case kFeatPmuMappings: {
      uint32_t nr = 0;
      HWT_RETURN_IF_ERROR(r.Count(&nr, 8));
      for (uint32_t i = 0; i < nr; ++i) {
        uint32_t type = 0;
        std::string name;
        HWT_RETURN_IF_ERROR(r.U32(&type));
        HWT_RETURN_IF_ERROR(r.String(&name));
        out->pmu_mappings[type] = name;
      }
      return absl::OkStatus();
    }
    case kFeatCompressed: {
      uint32_t version = 0, type = 0;
      HWT_RETURN_IF_ERROR(r.U32(&version));
      HWT_RETURN_IF_ERROR(r.U32(&type));
      out->compression_type = type;
      return absl::OkStatus();
    }
    case kFeatSimpleperfMetaInfo:
      DecodeMetaInfo(data, out);
      return absl::OkStatus();
    default:
      return absl::OkStatus();  // not needed for decoding
  }
}

}  // namespace hwt::capture::perf
