// The fast path's flow walker (issue 6): follows one PSB segment of a PT
// chunk through the block cache (pt_block_cache.h), taking TNT bits, TIPs,
// TIP.PGE/PGD and return compression the way libipt's block decoder does,
// and counts the instructions that ran. It reads packets with libipt's packet
// decoder but decodes no instruction on the hot path. Asynchronous events
// (FUP + TIP: interrupts, exceptions; FUP + TIP.PGD: tracing stopped there)
// are followed too. Anything it does not model exactly (overflow, mode
// changes while tracing, paging, TSX, power events, PTWRITE, a FUP with
// anything else or at a branch, errors of any kind, a flow that loops
// without trace) makes it give the segment up, and the caller decodes that
// segment with libipt instead (pt_fast_count.h).
//
// A segment ends where the next PSB's FUP says the flow is: instructions
// before that address belong to this segment, the rest to the next one, so
// consecutive segments neither overlap nor leave a gap. The last segment of
// a chunk ends with its last packet, as libipt's does.
#ifndef HWT_DECODERS_PT_PT_FAST_WALKER_H_
#define HWT_DECODERS_PT_PT_FAST_WALKER_H_

#include <intel-pt.h>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "decoders/event.h"
#include "decoders/pt/pt_block_cache.h"
#include "decoders/pt/pt_packet_time.h"

namespace hwt::pt {

// What a PSB+ says about the flow.
struct PsbState {
  bool usable = false;  // parsed, and nothing in it that the walker gives up on
  bool enabled = false;  // it has a FUP: tracing is on at `ip`
  uint64_t ip = 0;
  Isa isa = Isa::kX86_64;
  bool has_isa = false;  // it has a MODE.Exec
  uint64_t end = 0;      // offset after the PSBEND (chunk-relative)
  // It has timing packets (TSC, TMA, CBR, MTC, CYC), in `timing_packets`
  // (in order), or PIP/VMCS (libipt reports those as events, which the
  // walker's event mode does not make).
  bool timing = false;
  bool context = false;
  std::vector<pt_packet> timing_packets;
  // Its CBR (core:bus ratio), which libipt reports as a status event after
  // the last block before the PSB.
  std::optional<uint8_t> cbr;
};

// The last IP that compressed IP packets update.
struct LastIp {
  uint64_t last = 0;
  // Updates from an IP packet; false when it has no IP (suppressed).
  bool Update(const pt_packet_ip& packet, uint64_t* ip);
};

class FastWalker {
 public:
  explicit FastWalker(FastBlockCache* cache) : cache_(cache) {}

  // Event mode (records != null): Walk() also appends the blocks and events
  // that libipt's decoder reports for the segment, with chunk-relative
  // offsets, and gives up on what it cannot report as libipt does (timing
  // packets, blocks that run into another region). Plain events, so that
  // the caller can hand a walk's records to a sink as they are.
  void set_records(std::vector<Event>* records) { records_ = records; }
  // Whether a record is a block that ends in a conditional branch (its
  // outcome in branch): the walker gives no other block these kinds.
  static bool IsCondBlock(const Event& record) {
    return record.kind == EventKind::kBlock &&
           (record.branch == BranchKind::kCondTaken ||
            record.branch == BranchKind::kCondNotTaken);
  }
  // Event mode with timing: the walker keeps `clock` (libipt's time, which
  // the caller sets up where a walk starts) as it reads packets, and gives
  // its blocks and events libipt's times. Without a clock it gives up on
  // timing packets in event mode.
  void set_clock(PtClock* clock) { clock_ = clock; }
  // Applies the PSB+ `psb` to the clock (a walk into it or from it on).
  bool ClockThroughPsb(const PsbState& psb);

  // Whether tracing is on where the last Walk() ended.
  bool enabled() const { return enabled_; }

  // What the trace's configuration lets the walker follow. With IP filter
  // ranges a TIP.PGD may also come from a direct branch leaving a range
  // (without its IP on SKL014 parts), and SKD022 parts put a FUP before the
  // TIP.PGD of a VM entry (at a VMLAUNCH/VMRESUME): those are left to
  // libipt.
  void Configure(const pt_config& config);

  // Reads the PSB+ at chunk offset `psb`.
  PsbState ReadPsbPlus(pt_packet_decoder* decoder, uint64_t psb);

  // Starts over at a PSB, as libipt does after synchronising there: the
  // return-compression stack is empty.
  void Restart(const PsbState& psb);

  // Walks the packets in [psb.end, end) after Restart() or a previous
  // successful Walk() (then `psb` is the one that Walk() ended at), and then
  // to the flow position of `next` (the PSB at `end`; nullptr at the end of
  // the chunk). Returns the number of instructions, or nullopt when the
  // segment must be decoded by libipt; then the walker's state is undefined
  // until the next Restart().
  std::optional<uint64_t> Walk(pt_packet_decoder* decoder, const PsbState& psb,
                               uint64_t end, const PsbState* next);

 private:
  // Follows direct jumps and calls from the current block to the block whose
  // end needs trace; nullptr when the flow loops without trace.
  FastBlock* Settle();
  bool TakeTnt(uint64_t bits, int count);
  bool TakeTip(uint64_t ip);
  bool TakeDisable();
  // TIP.PGE: tracing starts at `ip`.
  void TakeEnable(uint64_t ip);
  // Walks from the end of a segment at `end` to the flow position of the
  // next PSB; false when the walker cannot go on there.
  bool EnterNext(const PsbState& next, uint64_t end);
  // Walks to `ip` without trace (the flow position of a PSB).
  bool WalkTo(uint64_t ip);
  // Walks to the `ip` of an asynchronous event (a FUP); false also when the
  // instruction there is a branch.
  bool WalkToAsync(uint64_t ip);
  void EmitBlock(const FastBlock* block, BranchKind branch);
  // The first `ninsn` instructions of `block`, the last at `last`; the flow
  // stops before `next` (an event or a PSB binds there).
  void EmitPartial(const FastBlock* block, uint32_t ninsn, uint64_t last,
                   uint64_t next);
  // `time`: the clock when libipt made the event (0: none).
  void EmitEvent(EventKind kind, uint64_t ip, uint32_t code,
                 uint64_t next_ip = 0, uint64_t time = 0);
  uint64_t Now() const { return clock_ != nullptr ? clock_->Now() : 0; }
  // Event mode: a timing packet; false when the walker cannot follow it.
  bool TakeTiming(const pt_packet& packet);
  void Push(uint64_t ip) {
    returns_[(return_head_ + return_size_) % kReturnDepth] = ip;
    if (return_size_ < kReturnDepth) {
      ++return_size_;
    } else {
      return_head_ = (return_head_ + 1) % kReturnDepth;  // drop the oldest
    }
  }

  static constexpr size_t kReturnDepth = 64;  // libipt's and the CPU's

  FastBlockCache* cache_;
  PtClock* clock_ = nullptr;
  pt_config config_{};
  // libipt's time of a block: the time at its last query (of a TNT or TIP
  // packet, or of an event), pt_blk_time().
  uint64_t query_time_ = 0;
  uint64_t tnt_time_ = 0;  // the clock at the TNT packet being followed
  uint64_t fup_time_ = 0;  // the clock at the pending FUP
  // The block whose query emptied libipt's TNT cache (it took the last bit
  // of a TNT packet, or a TIP), while no flow packet came after it: libipt
  // fetches an event that comes next at that block's end, which gives the
  // block the event's time (kNoBlock: none).
  static constexpr size_t kNoBlock = static_cast<size_t>(-1);
  size_t trailing_ = kNoBlock;
  void MarkTrailing() {
    if (records_ != nullptr) trailing_ = records_->size() - 1;
  }
  // An event at `time` that libipt fetches when it comes to it.
  void FetchEvent(uint64_t time) {
    query_time_ = time;
    if (trailing_ != kNoBlock) (*records_)[trailing_].time = time;
    trailing_ = kNoBlock;
  }
  bool follow_disables_ = true;  // TIP.PGD
  bool skd022_ = false;
  bool enabled_ = false;
  Isa isa_ = Isa::kX86_64;
  FastBlock* block_ = nullptr;  // where the flow is (enabled_)
  uint64_t count_ = 0;          // instructions of the current Walk()
  std::vector<Event>* records_ = nullptr;
  uint64_t packet_offset_ = 0;         // of the packet being followed
  bool failed_ = false;                // event mode: something libipt reports
                                       // differently
  std::optional<Isa> pending_exec_;    // MODE.exec before a TIP.PGE
  std::optional<uint64_t> resume_ip_;  // where the flow stood at a disable
                                       // (kept through a PSB, as libipt does)
  LastIp last_ip_;
  std::array<uint64_t, kReturnDepth> returns_{};
  size_t return_head_ = 0;
  size_t return_size_ = 0;
};

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_FAST_WALKER_H_
