// Test helpers for the PT decoder; see pt_streams.h.
#include "decoders/pt/testing/pt_streams.h"

#include <cstring>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"

namespace hwt::pt::testing {
namespace {

// A packet of `type` with every payload field zero.
pt_packet Blank(pt_packet_type type) {
  pt_packet packet;
  std::memset(&packet, 0, sizeof(packet));
  packet.type = type;
  return packet;
}

}  // namespace

PtWriter& PtWriter::Packet(const pt_packet& packet) {
  uint8_t scratch[64];
  pt_config config;
  pt_config_init(&config);
  config.begin = scratch;
  config.end = scratch + sizeof(scratch);
  pt_encoder* encoder = pt_alloc_encoder(&config);
  const int size = pt_enc_next(encoder, &packet);
  pt_free_encoder(encoder);
  if (size > 0) bytes_.insert(bytes_.end(), scratch, scratch + size);
  return *this;
}

PtWriter& PtWriter::Simple(pt_packet_type type) { return Packet(Blank(type)); }

PtWriter& PtWriter::Ip(pt_packet_type type, uint64_t ip,
                       pt_ip_compression ipc) {
  pt_packet packet = Blank(type);
  packet.payload.ip.ipc = ipc;
  packet.payload.ip.ip = ip;
  return Packet(packet);
}

PtWriter& PtWriter::Fup(uint64_t ip, pt_ip_compression ipc) {
  return Ip(ppt_fup, ip, ipc);
}
PtWriter& PtWriter::Tip(uint64_t ip, pt_ip_compression ipc) {
  return Ip(ppt_tip, ip, ipc);
}
PtWriter& PtWriter::TipPge(uint64_t ip, pt_ip_compression ipc) {
  return Ip(ppt_tip_pge, ip, ipc);
}
PtWriter& PtWriter::TipPgd(uint64_t ip, pt_ip_compression ipc) {
  return Ip(ppt_tip_pgd, ip, ipc);
}

PtWriter& PtWriter::Tnt(std::string_view bits) {
  pt_packet packet = Blank(bits.size() <= 6 ? ppt_tnt_8 : ppt_tnt_64);
  packet.payload.tnt.bit_size = static_cast<uint8_t>(bits.size());
  for (char bit : bits) {
    packet.payload.tnt.payload =
        (packet.payload.tnt.payload << 1) | (bit == '!' ? 1 : 0);
  }
  return Packet(packet);
}

PtWriter& PtWriter::ModeExec64() {
  pt_packet packet = Blank(ppt_mode);
  packet.payload.mode.leaf = pt_mol_exec;
  packet.payload.mode.bits.exec.csl = 1;
  return Packet(packet);
}

PtWriter& PtWriter::ModeExec32() {
  pt_packet packet = Blank(ppt_mode);
  packet.payload.mode.leaf = pt_mol_exec;
  packet.payload.mode.bits.exec.csd = 1;
  return Packet(packet);
}

PtWriter& PtWriter::ModeTsx(bool intx, bool abort) {
  pt_packet packet = Blank(ppt_mode);
  packet.payload.mode.leaf = pt_mol_tsx;
  packet.payload.mode.bits.tsx.intx = intx;
  packet.payload.mode.bits.tsx.abrt = abort;
  return Packet(packet);
}

PtWriter& PtWriter::Pip(uint64_t cr3) {
  pt_packet packet = Blank(ppt_pip);
  packet.payload.pip.cr3 = cr3;
  return Packet(packet);
}

PtWriter& PtWriter::Tsc(uint64_t tsc) {
  pt_packet packet = Blank(ppt_tsc);
  packet.payload.tsc.tsc = tsc;
  return Packet(packet);
}

PtWriter& PtWriter::Cbr(uint8_t ratio) {
  pt_packet packet = Blank(ppt_cbr);
  packet.payload.cbr.ratio = ratio;
  return Packet(packet);
}

PtWriter& PtWriter::Mnt(uint64_t payload) {
  pt_packet packet = Blank(ppt_mnt);
  packet.payload.mnt.payload = payload;
  return Packet(packet);
}

PtWriter& PtWriter::Ptw(uint64_t payload, bool ip) {
  pt_packet packet = Blank(ppt_ptw);
  packet.payload.ptw.plc = 1;  // 8 bytes
  packet.payload.ptw.payload = payload;
  packet.payload.ptw.ip = ip;
  return Packet(packet);
}

PtWriter& PtWriter::Vmcs(uint64_t base) {
  pt_packet packet = Blank(ppt_vmcs);
  packet.payload.vmcs.base = base;
  return Packet(packet);
}

PtWriter& PtWriter::SyncAt(uint64_t ip) {
  return Psb().ModeExec64().Fup(ip).Psbend();
}

PtWriter& PtWriter::Raw(std::vector<uint8_t> bytes) {
  bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  return *this;
}

uint32_t TestCapture::AddCode(const CodeBlob& code) {
  const std::string file =
      absl::StrFormat("%s/code-%u.bin", dir->path(), regions.size());
  (void)WriteFileAtomically(
      file, std::string_view(reinterpret_cast<const char*>(code.bytes.data()),
                             code.bytes.size()));
  capture::Image image;
  image.recorded_path = file;
  image.file = file;
  image.is_elf = false;
  capture::Region region;
  region.image = timeline.AddImage(image);
  region.start = code.address;
  region.end = code.address + code.bytes.size();
  region.file_offset = 0;
  region.file_size = code.bytes.size();
  const uint32_t id = timeline.AddRegion(region);
  regions.push_back(id);
  return id;
}

void TestCapture::Map(uint32_t region, uint64_t position) {
  capture::AddressSpaceChange change;
  change.kind = capture::AddressSpaceChange::Kind::kMap;
  change.position = position;
  change.region = region;
  for (size_t b = 0; b < capture->manifest().buffers.size(); ++b) {
    timeline.AddChange(b, change);
  }
}

void TestCapture::Unmap(uint32_t region, uint64_t position) {
  capture::AddressSpaceChange change;
  change.kind = capture::AddressSpaceChange::Kind::kUnmap;
  change.position = position;
  change.region = region;
  for (size_t b = 0; b < capture->manifest().buffers.size(); ++b) {
    timeline.AddChange(b, change);
  }
}

absl::StatusOr<TestCapture> MakeTestCaptureBuffers(
    const std::vector<std::vector<uint8_t>>& traces,
    const std::vector<CodeBlob>& code, const TestCaptureOptions& options) {
  TestCapture result;
  HWT_ASSIGN_OR_RETURN(TempDir dir, TempDir::Create("hwt-pt-test"));
  result.dir = std::make_unique<TempDir>(std::move(dir));
  capture::Manifest manifest;
  manifest.backend = capture::Backend::kPt;
  manifest.cpu = options.cpu;
  if (!manifest.cpu.has_x86_model()) {
    manifest.cpu.vendor = "GenuineIntel";
    manifest.cpu.family = 6;
    manifest.cpu.model = 85;
  }
  for (size_t i = 0; i < traces.size(); ++i) {
    capture::BufferInfo buffer;
    buffer.id = static_cast<uint32_t>(i);
    buffer.thread = static_cast<int32_t>(i);
    buffer.file = absl::StrFormat("trace-%u.pt", i);
    buffer.size = traces[i].size();
    buffer.chunks = options.chunks;
    HWT_RETURN_IF_ERROR(WriteFileAtomically(
        result.dir->path() + "/" + buffer.file,
        std::string_view(reinterpret_cast<const char*>(traces[i].data()),
                         traces[i].size())));
    manifest.buffers.push_back(buffer);
  }
  result.capture = std::make_unique<capture::Capture>(
      capture::InputKind::kBundleDirectory, result.dir->path(),
      result.dir->path(), std::move(manifest), std::vector<capture::Record>{},
      capture::InputOptions{}, std::nullopt);
  result.timeline.SetBufferCount(traces.size());
  for (const CodeBlob& blob : code) result.Map(result.AddCode(blob), 0);
  return result;
}

absl::StatusOr<TestCapture> MakeTestCapture(const std::vector<uint8_t>& trace,
                                            const std::vector<CodeBlob>& code,
                                            const TestCaptureOptions& options) {
  return MakeTestCaptureBuffers({trace}, code, options);
}

void CollectingSink::OnEvents(uint32_t stream, absl::Span<const Event> events) {
  if (events_.size() <= stream) events_.resize(stream + 1);
  events_[stream].insert(events_[stream].end(), events.begin(), events.end());
  max_batch_ = std::max(max_batch_, events.size());
}

void CollectingSink::OnStreamEnd(uint32_t stream) {
  if (ends_.size() <= stream) ends_.resize(stream + 1);
  ++ends_[stream];
}

std::vector<Event> CollectingSink::Events(uint32_t stream) const {
  return stream < events_.size() ? events_[stream] : std::vector<Event>{};
}

std::vector<Event> CollectingSink::OfKind(EventKind kind,
                                          uint32_t stream) const {
  std::vector<Event> out;
  for (const Event& e : Events(stream)) {
    if (e.kind == kind) out.push_back(e);
  }
  return out;
}

int CollectingSink::ends(uint32_t stream) const {
  return stream < ends_.size() ? ends_[stream] : 0;
}

}  // namespace hwt::pt::testing
