// Time estimates per packet; see pt_packet_time.h. The arithmetic follows
// the Intel SDM's timing packets (TSC, TMA: CTC and fast counter at the TSC,
// MTC: 8 CTC bits shifted by the MTC frequency, CYC: cycles) and libipt's
// choices (which MTCs to ignore, how a CYC spanning MTC periods is split,
// the SKL168 workaround) so that listings match ptdump's.
#include "decoders/pt/pt_packet_time.h"

namespace hwt::pt {
namespace {

constexpr uint32_t kMtcBits = 8;
constexpr uint32_t kMtcMask = 0xff;
constexpr uint32_t kTmaCtcBits = 16;
constexpr uint32_t kTmaCtcMask = 0xffff;
constexpr uint32_t kTscBits = 56;

// CTC distance, correcting one wrap-around of the MTC's CTC bits.
int CtcDelta(uint32_t* delta, uint32_t ctc, uint32_t last_ctc,
             const pt_config& config) {
  if (ctc < last_ctc) {
    ctc += 1u << (config.mtc_freq + kMtcBits);
    if (ctc < last_ctc) return -pte_bad_packet;
  }
  *delta = ctc - last_ctc;
  return 0;
}

// CTC ticks in fast-counter (TSC) units: times CPUID.15H EBX/EAX.
int CtcToFc(uint64_t* fc, uint64_t ctc, const pt_config& config) {
  const uint32_t eax = config.cpuid_0x15_eax;
  const uint32_t ebx = config.cpuid_0x15_ebx;
  if (eax == 0 || ebx == 0) return -pte_bad_config;
  *fc = (ctc * ebx) / eax;
  return 0;
}

}  // namespace

int PtTime::Query(uint64_t* tsc) const {
  *tsc = tsc_;
  return have_tsc_ ? 0 : -pte_no_time;
}

int PtTime::UpdateTsc(const pt_packet_tsc& packet) {
  have_tsc_ = true;
  have_tma_ = false;
  have_mtc_ = false;
  tsc_ = base_ = packet.tsc;
  ctc_ = 0;
  fc_ = 0;
  // The full time: earlier losses no longer matter.
  lost_mtc_ = 0;
  lost_cyc_ = 0;
  return 0;
}

int PtTime::UpdateCbr(const pt_packet_cbr& packet) {
  if (packet.ratio == 0) return -pte_bad_packet;
  have_cbr_ = true;
  cbr_ = packet.ratio;
  return 0;
}

int PtTime::UpdateTma(const pt_packet_tma& packet, const pt_config& config) {
  if (!have_tsc_) return -pte_bad_context;
  if (have_tma_) return -pte_bad_context;  // one TMA per TSC
  if (have_mtc_) return -pte_internal;     // MTCs between TSC and TMA ignored
  const uint32_t mtc_hi = config.mtc_freq + kMtcBits;
  const uint32_t ctc_mask = (1u << mtc_hi) - 1u;
  have_tma_ = true;
  base_ -= packet.fc;
  fc_ += packet.fc;
  // When TMA holds all CTC bits an MTC carries, it counts as an MTC;
  // otherwise the next MTC supplies the missing high bits.
  if (mtc_hi <= kTmaCtcBits) have_mtc_ = true;
  ctc_ = ctc_cyc_ = packet.ctc & ctc_mask;
  return 0;
}

int PtTime::UpdateMtc(const pt_packet_mtc& packet, const pt_config& config) {
  const bool have_tsc = have_tsc_;
  const bool have_tma = have_tma_;
  const bool have_mtc = have_mtc_;
  // MTCs between TSC and TMA would look like CTC overflows.
  if (have_tsc && !have_tma) return 0;
  uint64_t base = base_;
  uint32_t last_ctc = ctc_;
  const uint32_t ctc = static_cast<uint32_t>(packet.ctc) << config.mtc_freq;
  if (fc_ != 0 || lost_cyc_ != 0 || !have_mtc) ctc_cyc_ = ctc;
  have_mtc_ = true;
  fc_ = 0;
  ctc_ = ctc;
  lost_cyc_ = 0;
  if (!have_mtc) {
    // Without a TMA we do not know where in this MTC period we started.
    if (!have_tma) return 0;
    if (last_ctc & ~kTmaCtcMask) return -pte_internal;
    // Estimate the CTC bits TMA did not give from this MTC's.
    const uint32_t ctc_lo = ctc & kTmaCtcMask;
    uint32_t ctc_hi = ctc & ~kTmaCtcMask;
    if (ctc_lo < last_ctc) {
      ctc_hi -= 1u << kTmaCtcBits;
      ctc_hi &= kMtcMask << config.mtc_freq;
    }
    last_ctc |= ctc_hi;
  }
  uint32_t ctc_delta = 0;
  int status = CtcDelta(&ctc_delta, ctc, last_ctc, config);
  if (status < 0) {
    lost_mtc_ += 1;
    return status;
  }
  uint64_t tsc = 0;
  status = CtcToFc(&tsc, ctc_delta, config);
  if (status < 0) return status;
  base += tsc;
  tsc_ = base_ = base;
  return 0;
}

int PtTime::AdjustCyc(uint64_t* cyc, const pt_config& config,
                      uint64_t fcr) const {
  // A CYC spanning several MTC periods: drop the estimated cycles of the
  // earlier periods.
  const uint32_t last_ctc = ctc_cyc_;
  const uint32_t ctc = ctc_;
  if (ctc == last_ctc) return 0;
  uint32_t ctc_delta = 0;
  int status = CtcDelta(&ctc_delta, ctc, last_ctc, config);
  if (status < 0) return status;
  uint64_t fc = 0;
  status = CtcToFc(&fc, ctc_delta, config);
  if (status < 0) return status;
  const uint64_t old_cyc = (fc << kFcrShift) / fcr;
  uint64_t total = *cyc;
  if (total < old_cyc) total = old_cyc;
  *cyc = total - old_cyc;
  return 0;
}

int PtTime::UpdateCyc(const pt_packet_cyc& packet, const pt_config& config,
                      uint64_t fcr) {
  if (fcr == 0) {
    lost_cyc_ += 1;
    return 0;
  }
  uint64_t cyc = packet.value;
  uint64_t fc = fc_;
  if (fc == 0) {
    const int status = AdjustCyc(&cyc, config, fcr);
    if (status < 0) return status;
  }
  fc += (cyc * fcr) >> kFcrShift;
  fc_ = fc;
  tsc_ = base_ + fc;
  return 0;
}

void PtTimeCalibration::Reset() { *this = PtTimeCalibration(); }

int PtTimeCalibration::Fcr(uint64_t* fcr) const {
  if (!HaveFcr()) return -pte_no_time;
  *fcr = fcr_;
  return 0;
}

void PtTimeCalibration::SetFcr(uint64_t fcr) {
  fcr_ = fcr;
  if (fcr < min_fcr_) min_fcr_ = fcr;
  if (fcr > max_fcr_) max_fcr_ = fcr;
}

int PtTimeCalibration::UpdatePsb(const pt_config& config) {
  if (config.errata.skl168) check_skl168_ = true;
  return 0;
}

int PtTimeCalibration::UpdateTsc(const pt_packet_tsc& packet) {
  // A TSC outside PSB+ may follow lost time: not used for calibration.
  tsc_ = packet.tsc;
  cyc_tsc_ = 0;
  return 0;
}

int PtTimeCalibration::HeaderTsc(const pt_packet_tsc& packet) {
  const uint64_t last_tsc = tsc_;
  const uint64_t cyc = cyc_tsc_;
  uint64_t tsc = packet.tsc;
  tsc_ = tsc;
  cyc_tsc_ = 0;
  if (last_tsc == 0 || cyc == 0) return 0;
  if (have_mtc_) return 0;  // MTC calibrates better
  if (tsc < last_tsc) {
    tsc += 1ull << kTscBits;
    if (tsc < last_tsc) return -pte_bad_packet;
  }
  const uint64_t tsc_delta = tsc - last_tsc;
  if (tsc_delta & ~(~0ull >> kFcrShift)) return -pte_internal;
  SetFcr((tsc_delta << kFcrShift) / cyc);
  return 0;
}

int PtTimeCalibration::UpdateCbr(const pt_packet_cbr& packet,
                                 const pt_config& config) {
  // A CBR outside PSB+ is a frequency change: start over.
  Reset();
  return HeaderCbr(packet, config);
}

int PtTimeCalibration::HeaderCbr(const pt_packet_cbr& packet,
                                 const pt_config& config) {
  const uint64_t p1 = config.nom_freq;
  if (p1 == 0) return 0;
  if (packet.ratio == 0) return -pte_bad_packet;
  SetFcr((p1 << kFcrShift) / packet.ratio);
  return 0;
}

int PtTimeCalibration::UpdateMtc(const pt_packet_mtc& packet,
                                 const pt_config& config) {
  const uint32_t last_ctc = ctc_;
  const bool have_mtc = have_mtc_;
  const uint64_t cyc = cyc_mtc_;
  const bool check_skl168 = check_skl168_;
  check_skl168_ = false;  // only the first MTC after PSB
  const uint32_t ctc = static_cast<uint32_t>(packet.ctc) << config.mtc_freq;
  if (!have_mtc) {
    cyc_mtc_ = 0;
    ctc_ = ctc;
    have_mtc_ = true;
    return 0;
  }
  // Without cycles, wait for the next MTC.
  if (cyc == 0) return 0;
  have_mtc_ = true;
  cyc_mtc_ = 0;
  ctc_ = ctc;
  lost_mtc_ += 1;  // until we succeed
  uint32_t ctc_delta = 0;
  int status = CtcDelta(&ctc_delta, ctc, last_ctc, config);
  if (status < 0) return status;
  uint64_t fc = 0;
  status = CtcToFc(&fc, ctc_delta, config);
  if (status < 0) return status;
  if (fc & ~(~0ull >> kFcrShift)) return -pte_internal;
  const uint64_t fcr = (fc << kFcrShift) / cyc;
  // SKL168: CYC packets right before a PSB may be lost. Skip this MTC when
  // MTCs were lost since the PSB or a wrap CYC seems to be missing.
  if (check_skl168) {
    if ((1u << config.mtc_freq) < ctc_delta) return 0;
    if (config.mtc_freq < 10 && HaveFcr()) {
      const uint64_t dfc = (fcr_ * (cyc + 0xf00)) >> kFcrShift;
      if (dfc < fc) return 0;
    }
  }
  SetFcr(fcr);
  lost_mtc_ = 0;
  return 0;
}

int PtTimeCalibration::UpdateCyc(const pt_packet_cyc& packet) {
  cyc_mtc_ += packet.value;
  cyc_tsc_ += packet.value;
  return 0;
}

int PtTimeCalibration::UpdateOvf() {
  tsc_ = 0;
  cyc_tsc_ = 0;
  cyc_mtc_ = 0;
  ctc_ = 0;
  have_mtc_ = false;
  return 0;
}

namespace {

// libipt ignores configuration errors when it applies timing packets (they
// make the time imprecise, not the decode wrong).
bool Applied(int status) { return status >= 0 || status == -pte_bad_config; }

}  // namespace

bool PtClock::Apply(const pt_packet& packet, bool header,
                    const pt_config& config) {
  // libipt's order: the calibration first, then the time.
  switch (packet.type) {
    case ppt_tsc:
      touched_ = true;
      return Applied(header ? tcal_.HeaderTsc(packet.payload.tsc)
                            : tcal_.UpdateTsc(packet.payload.tsc)) &&
             Applied(time_.UpdateTsc(packet.payload.tsc));
    case ppt_cbr:
      touched_ = true;
      return Applied(header ? tcal_.HeaderCbr(packet.payload.cbr, config)
                            : tcal_.UpdateCbr(packet.payload.cbr, config)) &&
             Applied(time_.UpdateCbr(packet.payload.cbr));
    case ppt_tma:
      touched_ = true;
      return Applied(time_.UpdateTma(packet.payload.tma, config));
    case ppt_mtc:
      touched_ = true;
      return Applied(tcal_.UpdateMtc(packet.payload.mtc, config)) &&
             Applied(time_.UpdateMtc(packet.payload.mtc, config));
    case ppt_cyc: {
      touched_ = true;
      uint64_t fcr = 0;
      if (tcal_.Fcr(&fcr) < 0) fcr = 0;  // not calibrated yet
      return Applied(tcal_.UpdateCyc(packet.payload.cyc)) &&
             Applied(time_.UpdateCyc(packet.payload.cyc, config, fcr));
    }
    default:
      return true;
  }
}

}  // namespace hwt::pt
