// PerfDataWriter: perf.data files built byte by byte for tests.
#include "capture/testing/perf_data_writer.h"

#include <zstd.h>

#include <cstring>

namespace hwt::capture::testing {
namespace {

constexpr uint32_t kAttrSize = 128;
constexpr uint64_t kSampleIdAll = 1ull << 18;

void Put64(std::string* out, uint64_t v) {
  out->append(reinterpret_cast<const char*>(&v), 8);
}
void Put32(std::string* out, uint32_t v) {
  out->append(reinterpret_cast<const char*>(&v), 4);
}
void Put16(std::string* out, uint16_t v) {
  out->append(reinterpret_cast<const char*>(&v), 2);
}
void PadTo8(std::string* out) {
  while (out->size() % 8 != 0) out->push_back('\0');
}
std::string Header(uint32_t type, uint16_t misc, size_t size) {
  std::string h;
  Put32(&h, type);
  Put16(&h, misc);
  Put16(&h, static_cast<uint16_t>(size));
  return h;
}
std::string FromHex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}
std::string PaddedName(const std::string& name) {
  std::string out = name;
  out.push_back('\0');
  PadTo8(&out);
  return out;
}

}  // namespace

void PerfDataWriter::AddAttr(uint32_t type, uint64_t config,
                             std::vector<uint64_t> ids, uint64_t extra_flags) {
  std::string a(kAttrSize, '\0');
  std::memcpy(&a[0], &type, 4);
  std::memcpy(&a[4], &kAttrSize, 4);
  std::memcpy(&a[8], &config, 8);
  const uint64_t sample_type = kTestSampleType;
  std::memcpy(&a[24], &sample_type, 8);
  const uint64_t flags = kSampleIdAll | extra_flags;
  std::memcpy(&a[40], &flags, 8);
  attrs_.push_back({a, std::move(ids)});
}

void PerfDataWriter::AddFeature(int feature, std::string data) {
  features_[feature] = std::move(data);
}

void PerfDataWriter::AddRecord(uint32_t type, uint16_t misc, std::string body,
                               std::string payload) {
  std::string r = Header(type, misc, 8 + body.size());
  r += body;
  r += payload;
  records_.push_back(std::move(r));
}

std::string PerfDataWriter::Trailer(uint32_t pid, uint32_t tid, uint64_t time,
                                    uint32_t cpu) {
  std::string t;
  Put32(&t, pid);
  Put32(&t, tid);
  Put64(&t, time);
  Put32(&t, cpu);
  Put32(&t, 0);
  return t;
}

void PerfDataWriter::AddMmap2(uint32_t pid, uint32_t tid, uint64_t addr,
                              uint64_t len, uint64_t pgoff,
                              const std::string& build_id_hex,
                              const std::string& filename, uint64_t time,
                              uint32_t cpu, uint32_t prot) {
  std::string b;
  Put32(&b, pid);
  Put32(&b, tid);
  Put64(&b, addr);
  Put64(&b, len);
  Put64(&b, pgoff);
  uint16_t misc = 2;  // user
  if (!build_id_hex.empty()) {
    std::string id = FromHex(build_id_hex);
    b.push_back(static_cast<char>(id.size()));
    b.append(3, '\0');
    id.resize(20, '\0');
    b += id;
    misc |= 1 << 14;
  } else {
    b.append(24, '\0');
  }
  Put32(&b, prot);
  Put32(&b, 2);  // MAP_PRIVATE
  b += PaddedName(filename);
  b += Trailer(pid, tid, time, cpu);
  AddRecord(10, misc, b);
}

void PerfDataWriter::AddComm(uint32_t pid, uint32_t tid,
                             const std::string& comm, bool exec, uint64_t time,
                             uint32_t cpu) {
  std::string b;
  Put32(&b, pid);
  Put32(&b, tid);
  b += PaddedName(comm);
  b += Trailer(pid, tid, time, cpu);
  AddRecord(3, exec ? (1 << 13) : 0, b);
}

void PerfDataWriter::AddTask(bool fork, uint32_t pid, uint32_t ppid,
                             uint32_t tid, uint32_t ptid, uint64_t time,
                             uint32_t cpu) {
  std::string b;
  Put32(&b, pid);
  Put32(&b, ppid);
  Put32(&b, tid);
  Put32(&b, ptid);
  Put64(&b, time);
  b += Trailer(pid, tid, time, cpu);
  AddRecord(fork ? 7 : 4, 0, b);
}

void PerfDataWriter::AddAux(uint64_t offset, uint64_t size, uint64_t flags,
                            uint32_t pid, uint64_t time, uint32_t cpu) {
  std::string b;
  Put64(&b, offset);
  Put64(&b, size);
  Put64(&b, flags);
  b += Trailer(pid, pid, time, cpu);
  AddRecord(11, 0, b);
}

void PerfDataWriter::AddAuxtrace(uint64_t offset, uint32_t cpu,
                                 const std::string& data) {
  std::string payload = data;
  PadTo8(&payload);  // as perf pads every payload
  std::string b;
  Put64(&b, payload.size());
  Put64(&b, offset);
  Put64(&b, 0);  // reference
  Put32(&b, cpu);
  Put32(&b, 0xffffffffu);  // tid
  Put32(&b, cpu);
  Put32(&b, 0);
  AddRecord(71, 0, b, payload);
}

void PerfDataWriter::AddPtAuxtraceInfo(uint32_t pmu_type) {
  std::string b;
  Put32(&b, 1);  // PERF_AUXTRACE_INTEL_PT
  Put32(&b, 0);
  const uint64_t words[17] = {pmu_type, 31, 1789569706, 0,  1,     0x400,
                              0x800,    3,  0,          1,  0x200, 0x3c000,
                              100,      2,  2,          12, 0};
  for (uint64_t w : words) Put64(&b, w);
  AddRecord(70, 0, b);
}

std::string PerfDataWriter::FeatureString(const std::string& text) {
  std::string s = PaddedName(text);
  while (s.size() % 64 != 0) s.push_back('\0');
  std::string out;
  Put32(&out, static_cast<uint32_t>(s.size()));
  return out + s;
}

std::string PerfDataWriter::BuildIdEntry(int32_t pid, uint16_t misc,
                                         const std::string& build_id_hex,
                                         const std::string& filename) {
  std::string body;
  Put32(&body, static_cast<uint32_t>(pid));
  std::string id = FromHex(build_id_hex);
  id.resize(20, '\0');
  body += id;
  body.append(4, '\0');
  body += PaddedName(filename);
  return Header(67, misc, 8 + body.size()) + body;
}

std::string PerfDataWriter::Records() const {
  std::string all;
  for (const std::string& r : records_) all += r;
  return all;
}

std::vector<uint64_t> PerfDataWriter::RecordOffsets() const {
  std::vector<uint64_t> offsets;
  uint64_t at = 104 + attrs_.size() * (kAttrSize + 16);
  for (const Attr& a : attrs_) at += 8 * a.ids.size();
  for (const std::string& r : records_) {
    offsets.push_back(at);
    at += r.size();
  }
  offsets.push_back(at);
  return offsets;
}

std::string PerfDataWriter::FileForm(size_t compress_chunk) const {
  // Layout: header, ids, attrs, data, feature table, feature data.
  std::string ids;
  const uint64_t ids_at = 104;
  std::vector<std::pair<uint64_t, uint64_t>> id_sections;
  for (const Attr& a : attrs_) {
    id_sections.push_back({ids_at + ids.size(), 8 * a.ids.size()});
    for (uint64_t id : a.ids) Put64(&ids, id);
  }
  std::string attrs;
  for (size_t i = 0; i < attrs_.size(); ++i) {
    attrs += attrs_[i].bytes;
    Put64(&attrs, id_sections[i].first);
    Put64(&attrs, id_sections[i].second);
  }
  std::string data = Records();
  if (compress_chunk > 0) {
    std::string packed;
    for (size_t at = 0; at < data.size(); at += compress_chunk) {
      const std::string piece = data.substr(at, compress_chunk);
      std::string z(ZSTD_compressBound(piece.size()), '\0');
      z.resize(
          ZSTD_compress(z.data(), z.size(), piece.data(), piece.size(), 1));
      PadTo8(&z);
      packed += Header(81, 0, 8 + z.size()) + z;
    }
    data = packed;
  }
  const uint64_t attrs_at = ids_at + ids.size();
  const uint64_t data_at = attrs_at + attrs.size();
  const uint64_t table_at = data_at + data.size();
  std::string table, feature_data;
  uint64_t bits[4] = {0, 0, 0, 0};
  uint64_t next = table_at + 16 * features_.size();
  for (const auto& [id, bytes] : features_) {
    bits[id / 64] |= 1ull << (id % 64);
    Put64(&table, next);
    Put64(&table, bytes.size());
    feature_data += bytes;
    next += bytes.size();
  }
  std::string out = "PERFILE2";
  Put64(&out, 104);
  Put64(&out, kAttrSize + 16);
  Put64(&out, attrs_at);
  Put64(&out, attrs.size());
  Put64(&out, data_at);
  Put64(&out, data.size());
  Put64(&out, 0);
  Put64(&out, 0);
  for (uint64_t w : bits) Put64(&out, w);
  return out + ids + attrs + data + table + feature_data;
}

std::string PerfDataWriter::PipeForm() const {
  std::string out = "PERFILE2";
  Put64(&out, 16);
  for (const Attr& a : attrs_) {
    std::string body = a.bytes;
    for (uint64_t id : a.ids) Put64(&body, id);
    out += Header(64, 0, 8 + body.size()) + body;
  }
  for (const auto& [id, bytes] : features_) {
    if (id == 2) continue;  // build-ids go at the end, as records
    std::string body;
    Put64(&body, static_cast<uint64_t>(id));
    body += bytes;
    out += Header(80, 0, 8 + body.size()) + body;
  }
  out += Records();
  auto build_ids = features_.find(2);
  if (build_ids != features_.end()) out += build_ids->second;
  return out;
}

}  // namespace hwt::capture::testing
