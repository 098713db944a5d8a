// Test helpers for the PT decoder: PT streams written with libipt's encoder
// (packet by packet, so tests can also write broken streams on purpose),
// captures built from bytes in a temporary directory, and an EventSink that
// keeps everything. Test-only (hwt_pt_testing).
#ifndef HWT_DECODERS_PT_TESTING_PT_STREAMS_H_
#define HWT_DECODERS_PT_TESTING_PT_STREAMS_H_

#include <intel-pt.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "base/file_util.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "decoders/event.h"

namespace hwt::pt::testing {

// Appends packets encoded by libipt's encoder.
class PtWriter {
 public:
  PtWriter& Packet(const pt_packet& packet);
  PtWriter& Psb() { return Simple(ppt_psb); }
  PtWriter& Psbend() { return Simple(ppt_psbend); }
  PtWriter& Pad() { return Simple(ppt_pad); }
  PtWriter& Ovf() { return Simple(ppt_ovf); }
  PtWriter& Stop() { return Simple(ppt_stop); }
  PtWriter& Fup(uint64_t ip, pt_ip_compression ipc = pt_ipc_sext_48);
  PtWriter& Tip(uint64_t ip, pt_ip_compression ipc = pt_ipc_sext_48);
  PtWriter& TipPge(uint64_t ip, pt_ip_compression ipc = pt_ipc_sext_48);
  PtWriter& TipPgd(uint64_t ip = 0, pt_ip_compression ipc = pt_ipc_suppressed);
  // "!!." = taken, taken, not taken (oldest first); up to 6 bits uses a
  // TNT-8, more a TNT-64.
  PtWriter& Tnt(std::string_view bits);
  PtWriter& ModeExec64();
  PtWriter& ModeExec32();
  PtWriter& ModeTsx(bool intx, bool abort);
  PtWriter& Pip(uint64_t cr3);
  PtWriter& Tsc(uint64_t tsc);
  PtWriter& Cbr(uint8_t ratio);
  PtWriter& Mnt(uint64_t payload);
  PtWriter& Ptw(uint64_t payload, bool ip);
  PtWriter& Vmcs(uint64_t base);
  // PSB, MODE.EXEC 64-bit, FUP ip, PSBEND: a sync point with tracing on.
  PtWriter& SyncAt(uint64_t ip);
  // Bytes that are not valid packets.
  PtWriter& Raw(std::vector<uint8_t> bytes);

  size_t size() const { return bytes_.size(); }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  PtWriter& Simple(pt_packet_type type);
  PtWriter& Ip(pt_packet_type type, uint64_t ip, pt_ip_compression ipc);

  std::vector<uint8_t> bytes_;
};

// Code bytes loaded at an address (a raw image, like ptxed --raw).
struct CodeBlob {
  uint64_t address = 0;
  std::vector<uint8_t> bytes;
};

// A PT capture over files in a temporary directory.
struct TestCapture {
  std::unique_ptr<TempDir> dir;
  std::unique_ptr<capture::Capture> capture;
  capture::AddressSpaceTimeline timeline;
  std::vector<uint32_t> regions;  // one per CodeBlob, in order

  // Adds a raw image region (file written to the directory) and returns its
  // index; not mapped anywhere yet.
  uint32_t AddCode(const CodeBlob& code);
  // Maps / unmaps a region in buffer 0 from trace position `position`.
  void Map(uint32_t region, uint64_t position);
  void Unmap(uint32_t region, uint64_t position);
};

struct TestCaptureOptions {
  capture::CpuIdentity cpu;                  // default: 6/85 (Skylake-SP)
  std::vector<capture::BufferChunk> chunks;  // empty: one chunk
};

// One buffer holding `trace`, every `code` blob mapped from position 0.
absl::StatusOr<TestCapture> MakeTestCapture(
    const std::vector<uint8_t>& trace, const std::vector<CodeBlob>& code,
    const TestCaptureOptions& options = {});

// Several buffers, each with its trace; code mapped in all of them.
absl::StatusOr<TestCapture> MakeTestCaptureBuffers(
    const std::vector<std::vector<uint8_t>>& traces,
    const std::vector<CodeBlob>& code, const TestCaptureOptions& options = {});

// Keeps every event, per stream, and the size of every batch.
class CollectingSink : public EventSink {
 public:
  void OnEvents(uint32_t stream, absl::Span<const Event> events) override;
  void OnStreamEnd(uint32_t stream) override;

  std::vector<Event> Events(uint32_t stream = 0) const;
  std::vector<Event> OfKind(EventKind kind, uint32_t stream = 0) const;
  size_t max_batch() const { return max_batch_; }
  int ends(uint32_t stream) const;

 private:
  std::vector<std::vector<Event>> events_;
  std::vector<int> ends_;
  size_t max_batch_ = 0;
};

}  // namespace hwt::pt::testing

#endif  // HWT_DECODERS_PT_TESTING_PT_STREAMS_H_
