// Decode throughput of the PT decoder against the bare libipt block decoder
// loop on the same synthetic trace: a loop-heavy program (a loop calling a
// small function with a data-dependent branch, compressed returns, an
// indirect jump every few hundred iterations, a PSB+ every ~4 KiB) whose
// trace libipt's encoder writes. Prints MiB/s, M instructions/s and
// instructions per byte for each, and our overhead over bare libipt.
//
//   pt_decode_bench [trace MiB (default 64)] [repetitions (default 3)]
//                   [only: bare|bare-ends|ours|ours-default]
// With `only`, one decoder runs (e.g. under valgrind --tool=callgrind, whose
// instruction counts do not depend on what else runs on the machine).
#include <intel-pt.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "decoders/pt/pt_decoder.h"
#include "decoders/pt/testing/pt_streams.h"

namespace hwt::pt {
namespace {

constexpr uint64_t kCodeBase = 0x400000;
constexpr uint64_t kLoop = 0x400005;

// 400000: mov ecx, 1000000
// 400005: add eax, ecx; xor edx, eax; lea esi, [rax+rdx]; imul esi, esi, 3
//         shl edx, 1; or edx, esi; sub eax, 7; mov edi, eax
//         call f
//         dec ecx
//         jnz 400005
//         jmp rax                  (back to 400005, via TIP)
// f:      test eax, 1; jz skip; add ebx, 1; skip: ret
std::vector<uint8_t> Code() {
  std::vector<uint8_t> code = {
      0xb9, 0x40, 0x42, 0x0f, 0x00,  // mov ecx, 1000000
      0x01, 0xc8,                    // add eax, ecx
      0x31, 0xc2,                    // xor edx, eax
      0x8d, 0x34, 0x10,              // lea esi, [rax+rdx]
      0x6b, 0xf6, 0x03,              // imul esi, esi, 3
      0xd1, 0xe2,                    // shl edx, 1
      0x09, 0xf2,                    // or edx, esi
      0x83, 0xe8, 0x07,              // sub eax, 7
      0x89, 0xc7,                    // mov edi, eax
  };
  const uint64_t call_at = kCodeBase + code.size();
  const uint64_t after_call = call_at + 5;
  const uint64_t f = after_call + 2 /*dec*/ + 2 /*jnz*/ + 2 /*jmp*/;
  const int32_t rel = static_cast<int32_t>(f - after_call);
  code.push_back(0xe8);
  for (int i = 0; i < 4; ++i) code.push_back((rel >> (8 * i)) & 0xff);
  code.insert(code.end(), {0xff, 0xc9});  // dec ecx
  const int8_t back =
      static_cast<int8_t>(kLoop - (kCodeBase + code.size() + 2));
  code.insert(code.end(), {0x75, static_cast<uint8_t>(back)});  // jnz loop
  code.insert(code.end(), {0xff, 0xe0});                        // jmp rax
  code.insert(code.end(), {
                              0xa8, 0x01,        // test al, 1
                              0x74, 0x03,        // jz skip
                              0x83, 0xc3, 0x01,  // add ebx, 1
                              0xc3,              // skip: ret
                          });
  return code;
}

// Instructions per loop iteration: 8 + call + f (3 or 4) + dec + jnz.
struct TraceInfo {
  std::vector<uint8_t> bytes;
  uint64_t instructions = 0;
};

class Writer {
 public:
  explicit Writer(size_t capacity) : buffer_(capacity) {
    pt_config config;
    pt_config_init(&config);
    config.begin = buffer_.data();
    config.end = buffer_.data() + buffer_.size();
    encoder_ = pt_alloc_encoder(&config);
  }
  ~Writer() { pt_free_encoder(encoder_); }

  size_t size() const {
    uint64_t offset = 0;
    pt_enc_get_offset(encoder_, &offset);
    return offset;
  }
  void Packet(const pt_packet& packet) { pt_enc_next(encoder_, &packet); }
  void Bit(bool taken) {
    tnt_ = (tnt_ << 1) | (taken ? 1 : 0);
    if (++bits_ == 47) FlushTnt();
  }
  void FlushTnt() {
    if (bits_ == 0) return;
    pt_packet packet = {};
    packet.type = bits_ <= 6 ? ppt_tnt_8 : ppt_tnt_64;
    packet.payload.tnt.bit_size = static_cast<uint8_t>(bits_);
    packet.payload.tnt.payload = tnt_;
    Packet(packet);
    bits_ = 0;
    tnt_ = 0;
  }
  void Ip(pt_packet_type type, uint64_t ip) {
    pt_packet packet = {};
    packet.type = type;
    packet.payload.ip.ipc = pt_ipc_sext_48;
    packet.payload.ip.ip = ip;
    Packet(packet);
  }
  void Sync(uint64_t ip) {
    pt_packet packet = {};
    packet.type = ppt_psb;
    Packet(packet);
    packet = {};
    packet.type = ppt_mode;
    packet.payload.mode.leaf = pt_mol_exec;
    packet.payload.mode.bits.exec.csl = 1;
    Packet(packet);
    Ip(ppt_fup, ip);
    packet = {};
    packet.type = ppt_psbend;
    Packet(packet);
  }
  std::vector<uint8_t> Bytes() const {
    return std::vector<uint8_t>(buffer_.begin(), buffer_.begin() + size());
  }

 private:
  std::vector<uint8_t> buffer_;
  pt_encoder* encoder_;
  uint64_t tnt_ = 0;
  int bits_ = 0;
};

TraceInfo MakeTrace(size_t target_bytes) {
  Writer w(target_bytes + 4096);
  std::mt19937 random(42);
  TraceInfo info;
  info.instructions = 1;  // mov ecx at the start
  w.Sync(kCodeBase);
  uint64_t last_psb = 0;
  while (w.size() + 64 < target_bytes) {
    // One run of the inner loop, then the indirect jump back.
    const int iterations = 100 + static_cast<int>(random() % 400);
    for (int i = 0; i < iterations; ++i) {
      const bool odd = random() & 1;
      w.Bit(!odd);                // jz skip (taken when even)
      w.Bit(true);                // compressed ret
      w.Bit(i + 1 < iterations);  // jnz loop
      info.instructions += 8 + 1 + (odd ? 4 : 3) + 2;
    }
    w.FlushTnt();
    w.Ip(ppt_tip, kLoop);  // jmp rax
    info.instructions += 1;
    if (w.size() - last_psb > 4096) {
      last_psb = w.size();
      w.Sync(kLoop);
    }
  }
  w.FlushTnt();
  // Stop at the next instruction of the loop.
  w.Ip(ppt_fup, kLoop);
  pt_packet pgd = {};
  pgd.type = ppt_tip_pgd;
  pgd.payload.ip.ipc = pt_ipc_suppressed;
  w.Packet(pgd);
  info.bytes = w.Bytes();
  return info;
}

// CPU seconds of this process: the machine is shared, so CPU time says
// more than wall time.
double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct Result {
  double seconds = 0;
  uint64_t instructions = 0;
  uint64_t blocks = 0;
  uint64_t events = 0;
};

// The bare libipt loop: block decoder over one file section, events drained,
// nothing else.
Result BareLibipt(const std::vector<uint8_t>& trace, const std::string& code,
                  bool end_on_call, bool end_on_jump) {
  Result result;
  const double start = CpuSeconds();
  pt_image_section_cache* iscache = pt_iscache_alloc(nullptr);
  pt_iscache_set_limit(iscache, 1ull << 30);
  const int isid =
      pt_iscache_add_file(iscache, code.c_str(), 0, UINT64_MAX, kCodeBase);
  pt_image* image = pt_image_alloc(nullptr);
  pt_image_add_cached(image, iscache, isid, nullptr);
  pt_config config;
  pt_config_init(&config);
  config.begin = const_cast<uint8_t*>(trace.data());
  config.end = const_cast<uint8_t*>(trace.data() + trace.size());
  config.flags.variant.block.end_on_call = end_on_call;
  config.flags.variant.block.end_on_jump = end_on_jump;
  pt_block_decoder* decoder = pt_blk_alloc_decoder(&config);
  pt_blk_set_image(decoder, image);
  for (int status = pt_blk_sync_forward(decoder); status >= 0;) {
    for (;;) {
      while (status & pts_event_pending) {
        pt_event event;
        status = pt_blk_event(decoder, &event, sizeof(event));
        if (status < 0) break;
        ++result.events;
      }
      if (status < 0 || (status & pts_eos)) break;
      pt_block block;
      status = pt_blk_next(decoder, &block, sizeof(block));
      result.instructions += block.ninsn;
      ++result.blocks;
      if (status < 0) break;
    }
    if (status == -pte_eos || (status >= 0 && (status & pts_eos))) break;
    status = pt_blk_sync_forward(decoder);
  }
  pt_blk_free_decoder(decoder);
  pt_image_free(image);
  pt_iscache_free(iscache);
  result.seconds = CpuSeconds() - start;
  return result;
}

// Counts what arrives, as a cheap consumer would.
class CountingSink : public EventSink {
 public:
  void OnEvents(uint32_t, absl::Span<const Event> events) override {
    for (const Event& e : events) {
      if (e.kind == EventKind::kBlock) {
        instructions_ += e.ninsn;
        ++blocks_;
      }
    }
    events_ += events.size();
  }
  uint64_t instructions_ = 0, blocks_ = 0, events_ = 0;
};

Result Ours(testing::TestCapture& test, bool end_on_call, bool end_on_jump) {
  Result result;
  const double start = CpuSeconds();
  PtDecoderOptions options;
  options.end_on_call = end_on_call;
  options.end_on_jump = end_on_jump;
  if (const char* batch = getenv("HWT_BENCH_BATCH")) {
    options.batch_size = std::strtoul(batch, nullptr, 10);
  }
  auto decoder = PtDecoder::Create(*test.capture, test.timeline, options);
  CountingSink sink;
  if (!decoder.ok() || !(*decoder)->Decode(sink).ok()) {
    fprintf(stderr, "decode failed\n");
    exit(1);
  }
  result.seconds = CpuSeconds() - start;
  result.instructions = sink.instructions_;
  result.blocks = sink.blocks_;
  result.events = sink.events_;
  const StreamStats& stats = (*decoder)->stats()[0];
  if (stats.errors != 0 || stats.instructions != sink.instructions_) {
    fprintf(stderr, "unexpected decode errors: %lu\n", stats.errors);
    exit(1);
  }
  return result;
}

int Main(int argc, char** argv) {
  const size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 64;
  const int repetitions = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::string only = argc > 3 ? argv[3] : "";
  const TraceInfo trace = MakeTrace(mib << 20);
  auto test = testing::MakeTestCapture(trace.bytes, {{kCodeBase, Code()}});
  if (!test.ok()) {
    fprintf(stderr, "%s\n", std::string(test.status().message()).c_str());
    return 1;
  }
  const std::string code_file = test->timeline.images()[0].file;
  const double trace_mib = trace.bytes.size() / 1048576.0;
  printf("trace: %.1f MiB, %lu instructions (%.1f per byte)\n", trace_mib,
         trace.instructions,
         static_cast<double>(trace.instructions) / trace.bytes.size());
  printf("%-44s %9s %9s %10s %9s\n", "decoder (best of N)", "cpu s", "MiB/s",
         "Minsn/s", "blocks");
  auto report = [&](const char* name, auto run) {
    if (!only.empty() && only != name) return 0.0;
    Result best;
    best.seconds = 1e30;
    for (int i = 0; i < repetitions; ++i) {
      Result r = run();
      if (r.seconds < best.seconds) best = r;
    }
    if (best.instructions != trace.instructions) {
      fprintf(stderr, "%s: %lu instructions, expected %lu\n", name,
              best.instructions, trace.instructions);
    }
    printf("%-44s %9.3f %9.1f %10.1f %9lu\n", name, best.seconds,
           trace_mib / best.seconds, best.instructions / best.seconds / 1e6,
           best.blocks);
    return best.seconds;
  };
  const double bare = report(
      "bare", [&] { return BareLibipt(trace.bytes, code_file, false, false); });
  const double ours_default_flags =
      report("ours-default", [&] { return Ours(*test, false, false); });
  const double bare_ends = report("bare-ends", [&] {
    return BareLibipt(trace.bytes, code_file, true, true);
  });
  const double ours = report("ours", [&] { return Ours(*test, true, true); });
  if (!only.empty()) return 0;
  printf(
      "bare, bare-ends: libipt's block decoder loop with default flags, with "
      "end_on_call+end_on_jump\nours-default, ours: PtDecoder with the same "
      "flags (ours = PtDecoder's defaults)\n");
  printf(
      "overhead of event production: %+.0f%% (same flags: %+.0f%%), "
      "end_on_call+end_on_jump in libipt: %+.0f%%\n",
      100.0 * (ours / bare - 1), 100.0 * (ours_default_flags / bare - 1),
      100.0 * (bare_ends / bare - 1));
  printf("  with end_on_call+end_on_jump on both sides: %+.0f%%\n",
         100.0 * (ours / bare_ends - 1));
  return 0;
}

}  // namespace
}  // namespace hwt::pt

int main(int argc, char** argv) { return hwt::pt::Main(argc, argv); }
