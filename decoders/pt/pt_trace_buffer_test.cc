// The guard against libipt 2.0.5's read past the end of a trace that stops in
// or right after a PSB (ring-buffer snapshots). Traces are placed so that
// they end exactly at a page boundary followed by an inaccessible page: a
// read past the end faults, under ASan or not.
#include "decoders/pt/pt_trace_buffer.h"

#include <intel-pt.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "decoders/pt/pt_decoder.h"
#include "decoders/pt/pt_packet_lister.h"
#include "decoders/pt/pt_sync.h"
#include "decoders/pt/testing/pt_streams.h"
#include "gtest/gtest.h"

namespace hwt::pt {
namespace {

using ::hwt::pt::testing::CollectingSink;
using ::hwt::pt::testing::PtWriter;

// Bytes that end at a page boundary with an inaccessible page after them.
class GuardedBytes {
 public:
  explicit GuardedBytes(const std::vector<uint8_t>& bytes) {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t data_pages = (bytes.size() + page_ - 1) / page_ + 1;
    size_ = (data_pages + 1) * page_;
    base_ = static_cast<uint8_t*>(mmap(nullptr, size_, PROT_READ | PROT_WRITE,
                                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    EXPECT_NE(base_, MAP_FAILED);
    uint8_t* guard = base_ + data_pages * page_;
    EXPECT_EQ(mprotect(guard, page_, PROT_NONE), 0);
    data_ = guard - bytes.size();
    if (!bytes.empty()) std::memcpy(data_, bytes.data(), bytes.size());
    length_ = bytes.size();
  }
  ~GuardedBytes() { munmap(base_, size_); }

  uint8_t* data() const { return data_; }
  size_t size() const { return length_; }

 private:
  size_t page_ = 0;
  size_t size_ = 0;
  uint8_t* base_ = nullptr;
  uint8_t* data_ = nullptr;
  size_t length_ = 0;
};

// A trace with a complete PSB+ and flow, then a last PSB cut after
// `psb_bytes` bytes (16 = complete).
std::vector<uint8_t> TraceEndingInPsb(size_t psb_bytes) {
  PtWriter w;
  w.SyncAt(0x1000).Fup(0x1002).TipPgd().Pad().Pad().Pad();
  std::vector<uint8_t> trace = w.bytes();
  PtWriter psb;
  psb.Psb();
  trace.insert(trace.end(), psb.bytes().begin(),
               psb.bytes().begin() + psb_bytes);
  return trace;
}

// Every sync point libipt's packet decoder finds searching forward.
int CountSyncs(uint8_t* begin, uint8_t* end) {
  pt_config config;
  pt_config_init(&config);
  config.begin = begin;
  config.end = end;
  pt_packet_decoder* decoder = pt_pkt_alloc_decoder(&config);
  int syncs = 0;
  while (pt_pkt_sync_forward(decoder) >= 0) ++syncs;
  pt_pkt_free_decoder(decoder);
  return syncs;
}

bool LibiptHasTheBug() {
  const pt_version v = pt_library_version();
  return v.major < 2 || (v.major == 2 && v.minor == 0 && v.patch < 6);
}

TEST(PtTraceBufferTest, EndsAtRiskOnlyWhenAlignedPsbPayloadEndsTheBuffer) {
  for (size_t psb_bytes = 0; psb_bytes <= kPsbSize; ++psb_bytes) {
    GuardedBytes bytes(TraceEndingInPsb(psb_bytes));
    // The end is page aligned; the 8 bytes before it are PSB payload once at
    // least 8 bytes of the PSB are there.
    EXPECT_EQ(PtTraceBuffer::EndsAtRisk(bytes.data(), bytes.size()),
              psb_bytes >= 8)
        << psb_bytes;
    // One byte less: the end is not 8-byte aligned, no risk.
    EXPECT_FALSE(PtTraceBuffer::EndsAtRisk(bytes.data(), bytes.size() - 1));
  }
}

TEST(PtTraceBufferDeathTest, Libipt205ReadsPastTheEndWithoutTheGuard) {
  if (!LibiptHasTheBug()) GTEST_SKIP() << "libipt >= 2.0.6 has the fix";
  // Shows that the test set-up catches the bug the guard is for.
  GuardedBytes bytes(TraceEndingInPsb(kPsbSize));
  EXPECT_DEATH(CountSyncs(bytes.data(), bytes.data() + bytes.size()), "");
}

TEST(PtTraceBufferTest, GuardedBufferNeverReadsPastTheEnd) {
  for (size_t psb_bytes = 0; psb_bytes <= kPsbSize; ++psb_bytes) {
    GuardedBytes bytes(TraceEndingInPsb(psb_bytes));
    PtTraceBuffer buffer(bytes.data(), bytes.size());
    EXPECT_EQ(buffer.copied(), psb_bytes >= 8) << psb_bytes;
    EXPECT_EQ(std::memcmp(buffer.begin(), bytes.data(), bytes.size()), 0);
    // libipt's own forward search, the path with the bug: the first PSB,
    // plus the last one when it is complete.
    EXPECT_EQ(CountSyncs(buffer.begin(), buffer.end()),
              psb_bytes == kPsbSize ? 2 : 1)
        << psb_bytes;
  }
}

TEST(PtTraceBufferTest, DecoderAndListerOnTracesCutInTheLastPsb) {
  for (size_t psb_bytes = 0; psb_bytes <= kPsbSize; ++psb_bytes) {
    const std::vector<uint8_t> trace = TraceEndingInPsb(psb_bytes);
    GuardedBytes bytes(trace);
    auto test =
        testing::MakeTestCapture(trace, {{0x1000, {0x90, 0x90, 0x90, 0x90}}});
    ASSERT_TRUE(test.ok());

    PtRunContext run;
    run.timeline = &test->timeline;
    BuildPtConfig(test->capture->manifest(), PtDecoderOptions(), &run);
    run.sections = std::make_unique<PtSectionCache>(test->timeline);
    run.files = std::make_shared<ImageFileCache>();
    CollectingSink sink;
    PtStreamDecoder stream(run, 0, 0, &sink);
    stream.DecodeChunk(bytes.data(), bytes.size(), 0, false);
    stream.Finish();
    const StreamStats& stats = stream.stats();
    EXPECT_EQ(stats.trace_bytes, trace.size());
    EXPECT_EQ(stats.trace_bytes, stats.bytes_decoded + stats.bytes_lost);
    // Decoding goes on from the first PSB; the last one ends the trace.
    EXPECT_EQ(sink.OfKind(EventKind::kSync).size(), 1u) << psb_bytes;
    EXPECT_EQ(sink.OfKind(EventKind::kBlock).size(), 1u) << psb_bytes;

    StreamStats list_stats;
    int packets = 0;
    ListPtPackets(
        run.config, bytes.data(), bytes.size(), 0, PtdumpOptions(),
        [&](uint64_t, std::string_view text) {
          if (text[0] != '[') ++packets;
        },
        &list_stats);
    EXPECT_EQ(list_stats.trace_bytes,
              list_stats.bytes_decoded + list_stats.bytes_lost);
    // psb mode.exec fup psbend fup tip.pgd pad pad pad [psb]
    EXPECT_EQ(packets, psb_bytes == kPsbSize ? 10 : 9) << psb_bytes;
  }
}

}  // namespace
}  // namespace hwt::pt
