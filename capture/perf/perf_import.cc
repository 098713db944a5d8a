// The perf.data parser; see perf_import.h. A visitor over the tokenizer's
// output collects attributes, features, sideband, AUX records and AUX data;
// Finish() turns them into the manifest, the buffers and the records.
#include "capture/perf/perf_import.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "capture/perf/perf_aux_areas.h"
#include "capture/perf/perf_auxtrace_info.h"
#include "capture/perf/perf_format.h"
#include "capture/perf/perf_records.h"
#include "capture/perf/perf_sideband.h"

namespace hwt::capture::perf {
namespace {

constexpr size_t kMaxErrorWarnings = 20;
constexpr uint32_t kNoCpu = 0xffffffffu;

class Importer : public PerfVisitor {
 public:
  Importer(const std::string& where, const std::string& buffer_dir)
      : where_(where), areas_(buffer_dir) {}

  absl::Status OnAttr(const PerfAttr& attr) override {
    attrs_.push_back(attr);
    sample_ids_.AddAttr(attr);
    return absl::OkStatus();
  }

  absl::Status OnFeature(int feature, absl::Span<const uint8_t> data,
                         uint64_t offset) override {
    absl::Status status =
        DecodeFeature(feature, data, offset, where_, &out_.features);
    if (!status.ok()) out_.warnings.push_back(std::string(status.message()));
    return absl::OkStatus();
  }

  absl::Status OnRecord(const RawRecord& r) override {
    ++out_.record_counts[RecordTypeName(r.type)];
    const uint64_t seq = seq_++;
    switch (r.type) {
      case kRecordAuxtraceInfo:
        return OnAuxtraceInfo(r);
      case kRecordAuxtrace: {
        HWT_ASSIGN_OR_RETURN(AuxtraceRecord a, DecodeAuxtrace(r, where_));
        any_auxtrace_ = true;
        per_cpu_ = a.cpu != kNoCpu;
        return areas_.AddData(a, r.payload, setup_ && setup_->snapshot, where_);
      }
      case kRecordTimeConv: {
        HWT_ASSIGN_OR_RETURN(TimeConvRecord t, DecodeTimeConv(r, where_));
        time_conv_ = t;
        return absl::OkStatus();
      }
      case kRecordIdIndex: {
        HWT_ASSIGN_OR_RETURN(auto entries, DecodeIdIndex(r, where_));
        for (const IdIndexEntry& e : entries) id_index_[e.id] = e;
        return absl::OkStatus();
      }
      case kRecordSample:
        return absl::OkStatus();
      default:
        break;
    }
    const SampleId sample = sample_ids_.Trailer(r.body);
    HWT_ASSIGN_OR_RETURN(std::optional<Record> record,
                         SidebandRecord(r, sample, where_));
    if (!record) return absl::OkStatus();
    if (record->time) any_time_ = true;
    if (record->type == RecordType::kAux) {
      aux_marks_.push_back({pending_.size(), sample});
    }
    NoteProblems(*record, r);
    PendingRecord pending;
    pending.seq = seq;
    pending.late = PlacedLate(*record);
    pending.record = std::move(*record);
    pending_.push_back(std::move(pending));
    return absl::OkStatus();
  }

  absl::StatusOr<PerfImport> Finish(TokenizeSummary summary);

 private:
  struct PendingMark {
    size_t index;  // into pending_
    SampleId sample;
  };

  absl::Status OnAuxtraceInfo(const RawRecord& r) {
    HWT_ASSIGN_OR_RETURN(AuxtraceInfoRecord info,
                         DecodeAuxtraceInfo(r, where_));
    if (setup_) {
      out_.warnings.push_back(absl::StrFormat(
          "%s: %s: a second AUXTRACE_INFO record: only the first is used",
          where_, DescribeOffset(r.offset)));
      return absl::OkStatus();
    }
    HWT_ASSIGN_OR_RETURN(AuxtraceSetup setup,
                         DecodeAuxtraceSetup(info, r.offset, where_));
    setup_ = std::move(setup);
    return absl::OkStatus();
  }

  void NoteProblems(const Record& record, const RawRecord& r) {
    if (record.type == RecordType::kLost && record.path.empty()) {
      lost_records_ += record.value;
      ++lost_events_;
    } else if (record.type == RecordType::kAuxtraceError) {
      if (++auxtrace_errors_ <= kMaxErrorWarnings) {
        out_.warnings.push_back(absl::StrFormat(
            "%s: %s: AUXTRACE_ERROR on cpu %d (type %u, code %u, ip 0x%x): "
            "%s",
            where_, DescribeOffset(r.offset), record.cpu.value_or(-1),
            record.flags, record.value, record.addr, record.path));
      }
    }
  }

  const PerfAttr* AuxAttr() const {
    for (const PerfAttr& attr : attrs_) {
      if (setup_ && attr.type == setup_->pmu_type) return &attr;
    }
    return nullptr;
  }

  AuxKey KeyForMark(const PendingMark& mark) const;
  void BuildManifest(const std::vector<PlacedBuffer>& buffers);
  void CompleteCoreSight(const std::vector<PlacedBuffer>& buffers);
  void SummariseProblems();

  const std::string& where_;
  AuxAreas areas_;
  PerfImport out_;
  std::vector<PerfAttr> attrs_;
  SampleIdReader sample_ids_;
  std::optional<AuxtraceSetup> setup_;
  std::optional<TimeConvRecord> time_conv_;
  std::map<uint64_t, IdIndexEntry> id_index_;
  std::vector<PendingRecord> pending_;
  std::vector<PendingMark> aux_marks_;
  uint64_t seq_ = 0;
  bool any_time_ = false;
  bool any_auxtrace_ = false;
  bool per_cpu_ = true;
  uint64_t lost_records_ = 0;
  uint64_t lost_events_ = 0;
  uint64_t auxtrace_errors_ = 0;
};

// Which AUX area an AUX record reports on: its CPU in per-CPU mode, its
// thread in per-thread mode (from its sample_id, or the ID_INDEX entry of
// its event id).
AuxKey Importer::KeyForMark(const PendingMark& mark) const {
  AuxKey key;
  key.per_cpu = per_cpu_;
  std::optional<uint64_t> cpu, tid;
  if (mark.sample.cpu) cpu = *mark.sample.cpu;
  if (mark.sample.tid) tid = *mark.sample.tid;
  if (mark.sample.id) {
    auto it = id_index_.find(*mark.sample.id);
    if (it != id_index_.end()) {
      if (!cpu && it->second.cpu != kNoCpu) cpu = it->second.cpu;
      if (!tid) tid = it->second.tid;
    }
  }
  if (!any_auxtrace_ && !cpu) key.per_cpu = false;
  key.value =
      static_cast<int32_t>(key.per_cpu ? cpu.value_or(0) : tid.value_or(0));
  return key;
}

void Importer::CompleteCoreSight(const std::vector<PlacedBuffer>& buffers) {
  CoreSightConfig& cs = *out_.manifest.coresight;
  bool raw = false;
  for (const auto& [key, area] : areas_.areas()) {
    for (const AuxMark& m : area.marks) {
      if (m.aux.flags & kAuxFlagCoreSightRaw) raw = true;
    }
  }
  // Trace IDs the kernel assigned at run time (AUX_OUTPUT_HW_ID, per CPU).
  std::map<int32_t, uint32_t> hw_ids;
  for (const PendingRecord& p : pending_) {
    if (p.record.type == RecordType::kAuxOutputHwId && p.record.cpu) {
      hw_ids[*p.record.cpu] = static_cast<uint32_t>(p.record.value & 0x7f);
    }
  }
  for (size_t i = 0; i < cs.sources.size(); ++i) {
    CoreSightSource& s = cs.sources[i];
    auto it = s.cpu ? hw_ids.find(*s.cpu) : hw_ids.end();
    if (it != hw_ids.end() &&
        (setup_->trace_id_unused[i] || s.trace_id != it->second)) {
      s.trace_id = it->second;
      s.registers[s.architecture == "etmv3" || s.architecture == "ptm"
                      ? "ETMTRACEIDR"
                      : "TRCTRACEIDR"] = it->second;
    }
  }
  if (raw) {
    // Unformatted (TRBE): each CPU's buffer holds that CPU's trace only.
    cs.sink = "trbe";
    cs.formatted = false;
    std::vector<CoreSightSource> kept;
    for (CoreSightSource& s : cs.sources) {
      for (size_t b = 0; b < buffers.size(); ++b) {
        const AuxKey& key = buffers[b].area->key;
        if (key.per_cpu && s.cpu && key.value == *s.cpu) {
          s.buffer = static_cast<uint32_t>(b);
          kept.push_back(s);
        }
      }
    }
    cs.sources = std::move(kept);
  } else {
    cs.sink = "etr";
    cs.formatted = true;
    // perf's ETR driver inserts barrier packets (four FSYNCs) where it
    // stitches the buffer; simpleperf's decoder does not look for them.
    cs.reset_on_4x_fsync = !out_.simpleperf;
  }
}

void Importer::BuildManifest(const std::vector<PlacedBuffer>& buffers) {
  Manifest& m = out_.manifest;
  const PerfFeatures& f = out_.features;
  m.cpu = CpuFromFeatures(f);
  if (setup_) ApplyAuxtraceSetup(*setup_, AuxAttr(), &m);
  if (m.backend == Backend::kCoreSight) CompleteCoreSight(buffers);
  m.mode = per_cpu_ ? TraceMode::kCpu : TraceMode::kThread;
  m.command = absl::StrJoin(f.cmdline, " ");
  m.hostname = f.hostname;
  m.os = absl::StrJoin({f.os_release, f.arch}, " ");
  if (m.os == " ") m.os.clear();
  auto sp = f.simpleperf_meta.find("simpleperf_version");
  m.recorder = sp != f.simpleperf_meta.end()
                   ? "simpleperf " + sp->second
                   : (f.version.empty() ? "perf" : "perf " + f.version);
  m.recorder += " (perf.data)";
  for (const PendingRecord& p : pending_) {
    if (p.record.type == RecordType::kItraceStart && p.record.pid) {
      m.pid = *p.record.pid;
      break;
    }
  }
  for (const PlacedBuffer& b : buffers) {
    m.buffers.push_back(areas_.Buffer(*b.area, b.id));
  }
}

void Importer::SummariseProblems() {
  if (lost_events_ > 0) {
    out_.warnings.push_back(absl::StrFormat(
        "%s: perf lost %u records in %u LOST records (its ring buffer was "
        "full): mappings, task and switch events may be missing",
        where_, lost_records_, lost_events_));
  }
  if (auxtrace_errors_ > kMaxErrorWarnings) {
    out_.warnings.push_back(
        absl::StrFormat("%s: %u more AUXTRACE_ERROR records", where_,
                        auxtrace_errors_ - kMaxErrorWarnings));
  }
}

absl::StatusOr<PerfImport> Importer::Finish(TokenizeSummary summary) {
  out_.tokenize = std::move(summary);
  out_.has_aux = setup_.has_value();
  out_.simpleperf = !out_.features.simpleperf_meta.empty();
  for (std::string& w : out_.tokenize.warnings) out_.warnings.push_back(w);
  // Every ordering key must be of one kind: times when records carry them.
  for (PendingRecord& p : pending_) {
    p.order = any_time_ ? p.record.time.value_or(0) : p.seq;
  }
  for (const PendingMark& mark : aux_marks_) {
    const PendingRecord& record = pending_[mark.index];
    AuxRecord aux{record.record.addr, record.record.value, record.record.flags};
    areas_.AddMark(KeyForMark(mark), record.order, aux);
  }
  std::vector<std::string> lost;
  HWT_RETURN_IF_ERROR(areas_.Finish(&lost));
  for (std::string& message : lost) {
    out_.warnings.push_back(absl::StrCat(where_, ": ", message));
  }
  std::vector<PlacedBuffer> buffers;
  uint32_t next_id = 0;
  for (const auto& [key, area] : areas_.areas()) {
    if (area.segments.empty()) continue;  // no data: reported as lost
    buffers.push_back(
        {&area, key.per_cpu ? static_cast<uint32_t>(key.value) : next_id});
    ++next_id;
  }
  BuildManifest(buffers);
  AttachBuildIds(out_.features.build_ids, &pending_);
  out_.records = PlaceSideband(std::move(pending_), buffers);
  SummariseProblems();
  return std::move(out_);
}

}  // namespace

absl::StatusOr<PerfImport> ImportPerfData(absl::Span<const uint8_t> bytes,
                                          const std::string& where,
                                          const std::string& buffer_dir) {
  Importer importer(where, buffer_dir);
  HWT_ASSIGN_OR_RETURN(TokenizeSummary summary,
                       TokenizePerfData(bytes, where, &importer));
  return importer.Finish(std::move(summary));
}

absl::StatusOr<std::unique_ptr<Capture>> OpenPerfData(
    const std::string& path, const InputOptions& options) {
  HWT_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  HWT_ASSIGN_OR_RETURN(TempDir temp, TempDir::Create("hwt-perf"));
  HWT_ASSIGN_OR_RETURN(PerfImport import,
                       ImportPerfData(file.bytes(), path, temp.path()));
  if (!import.has_aux) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: perf.data without AUX area trace (no AUXTRACE_INFO record: it "
        "was recorded with counter or software events only): nothing to "
        "decode; record with -e intel_pt//, cs_etm// or arm_spe//",
        path));
  }
  if (options.backend && *options.backend != import.manifest.backend) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: --backend %s contradicts the perf.data trace (%s)", path,
        BackendName(*options.backend), BackendName(import.manifest.backend)));
  }
  InputOptions merged = options;
  if (merged.cpu)
    merged.cpu = MergeCpuIdentity(import.manifest.cpu, *merged.cpu);
  const std::string root = temp.path();
  auto capture = std::make_unique<Capture>(
      InputKind::kPerfData, path, root, std::move(import.manifest),
      std::move(import.records), std::move(merged), std::move(temp));
  capture->set_import_warnings(std::move(import.warnings));
  return capture;
}

}  // namespace hwt::capture::perf
