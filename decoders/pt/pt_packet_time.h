// Time estimates per packet for the packet listing (ptdump --time/--tcal):
// the TSC estimated from TSC, TMA, MTC and CYC packets and the calibration
// (fast-counter : cycles ratio) from MTC/TSC/CBR, computed as libipt's time
// tracking does (libipt's pt_time/pt_tcal are internal to libipt and not
// exported by libipt.so, so the algorithm is implemented here, following
// Intel PT's timing rules and libipt's choices so listings match ptdump).
#ifndef HWT_DECODERS_PT_PT_PACKET_TIME_H_
#define HWT_DECODERS_PT_PT_PACKET_TIME_H_

#include <intel-pt.h>

#include <cstdint>

namespace hwt::pt {

// The fcr fixed point: fcr values are scaled by 2^kFcrShift.
inline constexpr int kFcrShift = 8;

// The estimated TSC.
class PtTime {
 public:
  void Reset() { *this = PtTime(); }
  // The TSC estimate; -pte_no_time (with *tsc still set) before any TSC.
  int Query(uint64_t* tsc) const;
  int UpdateTsc(const pt_packet_tsc& packet);
  int UpdateCbr(const pt_packet_cbr& packet);
  int UpdateTma(const pt_packet_tma& packet, const pt_config& config);
  int UpdateMtc(const pt_packet_mtc& packet, const pt_config& config);
  // `fcr` from PtTimeCalibration::Fcr (0 when not calibrated).
  int UpdateCyc(const pt_packet_cyc& packet, const pt_config& config,
                uint64_t fcr);

 private:
  int AdjustCyc(uint64_t* cyc, const pt_config& config, uint64_t fcr) const;

  friend bool operator==(const PtTime&, const PtTime&) = default;

  uint64_t tsc_ = 0;      // the current estimate
  uint64_t base_ = 0;     // the estimate at the last TSC/MTC
  uint64_t fc_ = 0;       // fast counter since base_
  uint32_t ctc_ = 0;      // CTC at the last MTC (or TMA)
  uint32_t ctc_cyc_ = 0;  // CTC of the last MTC period CYC counted from
  uint32_t lost_mtc_ = 0;
  uint32_t lost_cyc_ = 0;
  uint8_t cbr_ = 0;
  bool have_tsc_ = false;
  bool have_cbr_ = false;
  bool have_tma_ = false;
  bool have_mtc_ = false;
};

// The fast-counter : cycles calibration.
class PtTimeCalibration {
 public:
  void Reset();
  // The current ratio (scaled by 2^kFcrShift); -pte_no_time if none yet.
  int Fcr(uint64_t* fcr) const;
  int UpdatePsb(const pt_config& config);
  int UpdateTsc(const pt_packet_tsc& packet);  // outside PSB+
  int HeaderTsc(const pt_packet_tsc& packet);  // inside PSB+
  int UpdateCbr(const pt_packet_cbr& packet, const pt_config& config);
  int HeaderCbr(const pt_packet_cbr& packet, const pt_config& config);
  int UpdateMtc(const pt_packet_mtc& packet, const pt_config& config);
  int UpdateCyc(const pt_packet_cyc& packet);
  int UpdateOvf();

 private:
  bool HaveFcr() const { return min_fcr_ <= max_fcr_; }
  void SetFcr(uint64_t fcr);

  friend bool operator==(const PtTimeCalibration&,
                         const PtTimeCalibration&) = default;

  uint64_t fcr_ = 0;
  uint64_t min_fcr_ = UINT64_MAX;
  uint64_t max_fcr_ = 0;
  uint64_t tsc_ = 0;      // the last TSC
  uint64_t cyc_tsc_ = 0;  // cycles since the last TSC
  uint64_t cyc_mtc_ = 0;  // cycles since the last MTC
  uint32_t ctc_ = 0;      // CTC at the last MTC
  uint32_t lost_mtc_ = 0;
  bool have_mtc_ = false;
  bool check_skl168_ = false;
};

// The time of libipt's query decoder as it reads a trace in order, from a
// sync point on: what pt_blk_time() and the events' times come from. The
// fast walker keeps one so that its blocks and events carry libipt's times.
class PtClock {
 public:
  void Reset() { *this = PtClock(); }
  // A PSB packet (calibration: SKL168).
  void Psb(const pt_config& config) { tcal_.UpdatePsb(config); }
  // Applies a TSC, CBR, TMA, MTC or CYC packet (`header`: inside PSB+), as
  // libipt's query decoder does; other packets are ignored. False when
  // libipt would report an error there (the clock is then unreliable).
  bool Apply(const pt_packet& packet, bool header, const pt_config& config);
  // An overflow: libipt starts the calibration over.
  void Overflow() { tcal_.Reset(); }
  // Whether a timing packet moved the clock since the last Reset().
  bool touched() const { return touched_; }
  // Whether both give every packet from here on the same time: libipt's
  // time and calibration state is the same.
  bool SameStateAs(const PtClock& other) const {
    return time_ == other.time_ && tcal_ == other.tcal_;
  }
  // The time now; 0 before the first TSC (libipt reports none then).
  uint64_t Now() const {
    uint64_t tsc = 0;
    return time_.Query(&tsc) >= 0 ? tsc : 0;
  }

 private:
  PtTime time_;
  PtTimeCalibration tcal_;
  bool touched_ = false;
};

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_PACKET_TIME_H_
