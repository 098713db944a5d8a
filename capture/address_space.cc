// Builds the address-space timeline from a capture's records, memory dumps and
// --image options; see address_space.h and docs/capture-format.md for the
// position rules.
#include "capture/address_space.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "capture/elf_file.h"
#include "capture/raw_memory.h"

namespace hwt::capture {
namespace {

constexpr uint16_t kEtRel = 1;
constexpr uint16_t kEtExec = 2;
constexpr uint16_t kEtDyn = 3;
constexpr uint64_t kPageMask = 0xfff;

// Builds the timeline record by record. Images are deduplicated by
// (recorded path, resolved file); ELF headers are read once per file.
class TimelineBuilder {
 public:
  explicit TimelineBuilder(const Capture& capture) : capture_(capture) {
    timeline_.SetBufferCount(capture.manifest().buffers.size());
    last_position_.assign(capture.manifest().buffers.size(), 0);
  }

  absl::Status AddStaticImages() {
    // The capture's own memory dumps first: a newer mapping hides what it
    // overlaps, so an --image the user gives names (and supplies the code
    // of) the dumped memory it covers.
    for (const MemoryDump& dump : capture_.manifest().memory) {
      HWT_RETURN_IF_ERROR(AddMemoryDump(dump, /*persistent=*/false));
    }
    std::vector<std::string> recorded_ids;
    for (const Record& record : capture_.records()) {
      if (!record.build_id.empty()) recorded_ids.push_back(record.build_id);
    }
    for (const ImageSpec& spec : capture_.options().images) {
      HWT_ASSIGN_OR_RETURN(auto raw_memory, RawMemoryOfImage(spec));
      if (raw_memory) {
        // Raw memory stays mapped for the whole trace, like an ELF --image.
        for (const MemoryDump& dump : *raw_memory) {
          HWT_RETURN_IF_ERROR(AddMemoryDump(dump, /*persistent=*/true));
        }
        continue;
      }
      if (!spec.has_bias && !recorded_ids.empty()) {
        // An image a recorded mapping names by build-id serves that
        // mapping (Capture::ResolveImage), not a second one at bias 0.
        auto elf = ReadElfFile(spec.path);
        if (elf.ok() && std::any_of(recorded_ids.begin(), recorded_ids.end(),
                                    [&](const std::string& id) {
                                      return BuildIdsMatch(id, elf->build_id);
                                    })) {
          continue;
        }
      }
      HWT_ASSIGN_OR_RETURN(
          auto mapped, MapElf(spec.path, spec.path, spec.bias, /*kernel=*/false,
                              /*warn_missing=*/true));
      for (uint32_t region : mapped) {
        persistent_images_.insert(timeline_.regions()[region].image);
      }
      for (size_t b = 0; b < last_position_.size(); ++b) {
        for (uint32_t region : mapped) Change(b, kMap, 0, region);
      }
      WarnWhereDumpsDiffer(spec.path, mapped);
    }
    return absl::OkStatus();
  }

  // An --image over dumped memory: the image's bytes are decoded there; say
  // so where the dump holds other bytes (code patched or loaded elsewhere).
  void WarnWhereDumpsDiffer(const std::string& path,
                            const std::vector<uint32_t>& mapped) {
    const std::vector<Region>& regions = timeline_.regions();
    for (uint32_t r : mapped) {
      const Region& elf = regions[r];
      for (uint32_t d = 0; d < regions.size(); ++d) {
        const Region& dump = regions[d];
        const Image& image = timeline_.images()[dump.image];
        if (image.is_elf || image.file.empty() || dump.end <= elf.start ||
            elf.end <= dump.start) {
          continue;
        }
        const uint64_t start = std::max(elf.start, dump.start);
        const uint64_t end =
            std::min({elf.end, dump.end, elf.start + elf.file_size,
                      dump.start + dump.file_size});
        if (end <= start) continue;
        auto elf_file = MappedFile::Open(timeline_.images()[elf.image].file);
        auto dump_file = MappedFile::Open(image.file);
        if (!elf_file.ok() || !dump_file.ok()) continue;
        const uint64_t elf_at = elf.file_offset + (start - elf.start);
        const uint64_t dump_at = dump.file_offset + (start - dump.start);
        if (elf_at + (end - start) > elf_file->size() ||
            dump_at + (end - start) > dump_file->size()) {
          continue;
        }
        const uint8_t* a = elf_file->bytes().data() + elf_at;
        const uint8_t* b = dump_file->bytes().data() + dump_at;
        const auto [ea, eb] = std::mismatch(a, a + (end - start), b);
        if (ea == a + (end - start)) continue;
        timeline_.AddWarning(absl::StrFormat(
            "--image %s and memory dump %s differ at 0x%x: the image's bytes "
            "are decoded there",
            path, image.recorded_path, start + (ea - a)));
      }
    }
  }

  // Maps one memory dump (a manifest `memory` entry, or raw memory given as
  // --image) for every buffer from the start.
  absl::Status AddMemoryDump(const MemoryDump& dump, bool persistent) {
    std::string file = dump.file;
    if (!file.empty() && file[0] != '/') file = capture_.root() + "/" + file;
    Image image;
    image.recorded_path = dump.file;
    image.is_elf = false;
    auto mapped = MappedFile::Open(file);
    if (!mapped.ok()) {
      timeline_.AddWarning(absl::StrFormat(
          "memory dump %s not readable (%s): 0x%x cannot be decoded", dump.file,
          mapped.status().message(), dump.address));
      return absl::OkStatus();
    }
    image.file = file;
    uint64_t size = dump.size;
    if (dump.file_offset > mapped->size()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: memory dump offset 0x%x is beyond the end of the file (%u "
          "bytes)",
          file, dump.file_offset, mapped->size()));
    }
    uint64_t available = mapped->size() - dump.file_offset;
    if (size == 0 || size > available) size = available;
    if (size == 0) return absl::OkStatus();
    // A dump of an ELF file (OpenCSD snapshots name the program and its
    // libraries) is that ELF loaded at a bias: its addresses then name
    // ELF vaddrs that symbols and DWARF know.
    uint64_t bias = 0;
    const absl::Span<const uint8_t> bytes = mapped->bytes();
    if (LooksLikeElf(bytes)) {
      auto elf = ParseElf(bytes, file);
      if (elf.ok()) {
        for (const ElfSegment& seg : elf->segments) {
          if (seg.type == 1 /*PT_LOAD*/ && seg.offset <= dump.file_offset &&
              dump.file_offset < seg.offset + seg.filesz) {
            image.is_elf = true;
            image.build_id = elf->build_id;
            bias = dump.address - (seg.vaddr + dump.file_offset - seg.offset);
            break;
          }
        }
        if (!image.is_elf && dump.file_offset == 0) {
          // The whole ELF file named as raw memory (a common mistake in
          // hand-made snapshots: the firmware's .out "at 0x0"): its header
          // is not code, so load it by its segments at their addresses.
          return AddElfFileDump(dump, file);
        }
      }
    }
    const bool elf_dump = image.is_elf;
    uint32_t image_id = timeline_.AddImage(std::move(image));
    // Unlike images from records, a dump stays mapped across EXECUTABLE
    // records.
    if (elf_dump || persistent) persistent_images_.insert(image_id);
    Region region;
    region.image = image_id;
    region.start = dump.address;
    region.end = dump.address + size;
    region.file_offset = dump.file_offset;
    region.file_size = size;
    region.bias = bias;
    region.space = dump.space;
    uint32_t region_id = timeline_.AddRegion(region);
    for (size_t b = 0; b < last_position_.size(); ++b) {
      Change(b, kMap, 0, region_id);
    }
    return absl::OkStatus();
  }

  // A memory dump that is a whole ELF file: mapped as that ELF at its own
  // addresses, for every buffer from the start, with a warning that says so.
  absl::Status AddElfFileDump(const MemoryDump& dump, const std::string& file) {
    HWT_ASSIGN_OR_RETURN(auto mapped,
                         MapElf(dump.file, file, /*bias=*/0, /*kernel=*/false,
                                /*warn_missing=*/false));
    timeline_.AddWarning(absl::StrFormat(
        "memory dump %s at 0x%x is an ELF file, not a memory image: loaded by "
        "its PT_LOAD segments at their own addresses instead",
        dump.file, dump.address));
    for (uint32_t region : mapped) {
      persistent_images_.insert(timeline_.regions()[region].image);
    }
    for (size_t b = 0; b < last_position_.size(); ++b) {
      for (uint32_t region : mapped) Change(b, kMap, 0, region);
    }
    return absl::OkStatus();
  }

  absl::Status AddRecord(const Record& record) {
    if (IsPerfRecordType(record.type) || record.pgoff.has_value()) {
      return AddPerfRecord(record);
    }
    // Position of this record for every buffer.
    std::vector<uint64_t> position = last_position_;
    for (const BufferPosition& p : record.positions) {
      for (size_t b = 0; b < capture_.manifest().buffers.size(); ++b) {
        if (capture_.manifest().buffers[b].id == p.buffer_id) {
          position[b] = std::max(p.offset, last_position_[b]);
        }
      }
    }
    switch (record.type) {
      case RecordType::kExecutable:
        HWT_RETURN_IF_ERROR(AddExecutable(record, position));
        break;
      case RecordType::kInterp: {
        HWT_ASSIGN_OR_RETURN(auto regions,
                             MapRecordedElf(record.path, record.addr, false));
        MapEverywhere(regions, position);
        break;
      }
      case RecordType::kMmap: {
        HWT_ASSIGN_OR_RETURN(auto regions, MapMmap(record));
        // Hoisted back to the previous record: a free range cannot have
        // executed code before the mapping appeared.
        MapEverywhere(regions, last_position_);
        break;
      }
      case RecordType::kMunmap:
        Unmap(record, position);
        break;
      case RecordType::kKernel: {
        HWT_ASSIGN_OR_RETURN(auto regions, MapKernel(record));
        MapEverywhere(regions, position);
        break;
      }
      case RecordType::kThreadCreate:
      case RecordType::kThreadSetName:
      case RecordType::kBuffer:
      default:  // perf sideband: AddPerfRecord
        break;
    }
    last_position_ = position;
    return absl::OkStatus();
  }

  AddressSpaceTimeline Finish() {
    WarnMissingPerfImages();
    for (uint32_t image : persistent_images_) {
      timeline_.MarkPersistent(image);
    }
    // pending_ only grows when a change is recorded: a capture with no
    // mapping at all has none.
    pending_.resize(std::max(pending_.size(), last_position_.size()));
    for (size_t b = 0; b < last_position_.size(); ++b) {
      auto& changes = pending_[b];
      std::stable_sort(
          changes.begin(), changes.end(),
          [](const AddressSpaceChange& a, const AddressSpaceChange& c) {
            return a.position < c.position;
          });
      for (const auto& change : changes) timeline_.AddChange(b, change);
    }
    return std::move(timeline_);
  }

 private:
  static constexpr auto kMap = AddressSpaceChange::Kind::kMap;
  static constexpr auto kUnmap = AddressSpaceChange::Kind::kUnmap;
  static constexpr auto kReset = AddressSpaceChange::Kind::kResetUser;

  void Change(size_t buffer, AddressSpaceChange::Kind kind, uint64_t position,
              uint32_t region) {
    if (pending_.size() <= buffer) pending_.resize(buffer + 1);
    AddressSpaceChange change;
    change.kind = kind;
    change.position = position;
    change.region = region;
    pending_[buffer].push_back(change);
    if (kind == kMap) {
      user_mapped_.insert(region);
    } else if (kind == kUnmap) {
      user_mapped_.erase(region);
    }
  }

  void MapEverywhere(const std::vector<uint32_t>& regions,
                     const std::vector<uint64_t>& position) {
    for (size_t b = 0; b < position.size(); ++b) {
      for (uint32_t region : regions) Change(b, kMap, position[b], region);
    }
  }

  absl::Status AddExecutable(const Record& record,
                             const std::vector<uint64_t>& position) {
    for (size_t b = 0; b < position.size(); ++b) {
      Change(b, kReset, position[b], 0);
    }
    user_mapped_.clear();
    HWT_ASSIGN_OR_RETURN(auto regions,
                         MapRecordedElf(record.path, record.addr, false));
    MapEverywhere(regions, position);
    if (record.baseaddr != 0) {
      // The interpreter named by the program's PT_INTERP, at rtld's base.
      std::string interp;
      auto it = elf_by_recorded_path_.find(record.path);
      if (it != elf_by_recorded_path_.end()) interp = it->second.interpreter;
      if (interp.empty()) {
        timeline_.AddWarning(absl::StrFormat(
            "%s: exec record has an interpreter base 0x%x but the program's "
            "PT_INTERP is unknown: the interpreter is not mapped",
            record.path, record.baseaddr));
      } else {
        HWT_ASSIGN_OR_RETURN(auto interp_regions,
                             MapRecordedElf(interp, record.baseaddr, false));
        MapEverywhere(interp_regions, position);
      }
    }
    return absl::OkStatus();
  }

  // Linux perf sideband (docs/capture-format.md, "Records from perf.data"):
  // positions are exact as imported (mappings early, unmappings late), and
  // mappings are tracked per process so that an exec or exit drops only
  // that process's images.
  absl::Status AddPerfRecord(const Record& record) {
    std::vector<uint64_t> position(last_position_.size(), 0);
    const auto& buffers = capture_.manifest().buffers;
    for (const BufferPosition& p : record.positions) {
      for (size_t b = 0; b < buffers.size(); ++b) {
        if (buffers[b].id == p.buffer_id) position[b] = p.offset;
      }
    }
    const int32_t pid = record.pid.value_or(-1);
    switch (record.type) {
      case RecordType::kMmap: {
        if (!(record.flags & kRecordFlagExecutable)) break;
        HWT_ASSIGN_OR_RETURN(auto regions, MapPerfMmap(record));
        for (uint32_t region : regions) {
          if (!pid_regions_[pid].insert(region).second) continue;
          if (perf_refs_[region]++ == 0) {
            for (size_t b = 0; b < position.size(); ++b) {
              Change(b, kMap, position[b], region);
            }
          }
        }
        break;
      }
      case RecordType::kKernel: {
        HWT_ASSIGN_OR_RETURN(auto regions, MapPerfKernel(record));
        MapEverywhere(regions, position);
        break;
      }
      case RecordType::kComm:
        if (record.flags & kRecordFlagExec) DropProcess(pid, position);
        break;
      case RecordType::kFork:
        if (record.other_pid && *record.other_pid != pid) {
          for (uint32_t region : pid_regions_[*record.other_pid]) {
            if (pid_regions_[pid].insert(region).second) ++perf_refs_[region];
          }
        }
        break;
      case RecordType::kExit:
        if (record.tid && *record.tid == pid) DropProcess(pid, position);
        break;
      default:
        break;
    }
    return absl::OkStatus();
  }

  void DropProcess(int32_t pid, const std::vector<uint64_t>& position) {
    auto it = pid_regions_.find(pid);
    if (it == pid_regions_.end()) return;
    for (uint32_t region : it->second) {
      if (--perf_refs_[region] > 0) continue;
      for (size_t b = 0; b < position.size(); ++b) {
        Change(b, kUnmap, position[b], region);
      }
    }
    pid_regions_.erase(it);
  }

  // A perf MMAP/MMAP2: `addr` maps file offset `pgoff`, so the load bias is
  // exact for the executable segment the mapping covers.
  absl::StatusOr<std::vector<uint32_t>> MapPerfMmap(const Record& record) {
    const ElfInfo* elf = nullptr;
    std::string file;
    if (!ResolvePerfImage(record, /*kernel=*/false, &file, &elf)) {
      return std::vector<uint32_t>{};
    }
    const uint64_t pgoff = *record.pgoff;
    for (const ElfSegment& seg : elf->ExecutableLoads()) {
      if (seg.offset + std::max<uint64_t>(seg.filesz, 1) <= pgoff ||
          seg.offset >= pgoff + std::max<uint64_t>(record.length, 1)) {
        continue;
      }
      const uint64_t bias = record.addr - pgoff + seg.offset - seg.vaddr;
      return MapElf(record.path, file, bias, false, false);
    }
    timeline_.AddWarning(absl::StrFormat(
        "%s: the executable mapping 0x%x-0x%x (file offset 0x%x) covers no "
        "executable segment of %s: nothing mapped",
        record.path, record.addr, record.addr + record.length, pgoff, file));
    return std::vector<uint32_t>{};
  }

  // A perf kernel map: [kernel.kallsyms] (vmlinux, found by build-id) at its
  // run-time text address, or a kernel module.
  absl::StatusOr<std::vector<uint32_t>> MapPerfKernel(const Record& record) {
    const ElfInfo* elf = nullptr;
    std::string file;
    if (!ResolvePerfImage(record, /*kernel=*/true, &file, &elf)) {
      return std::vector<uint32_t>{};
    }
    if (elf->type == kEtRel) {
      timeline_.AddWarning(absl::StrFormat(
          "%s: relocatable kernel modules (ET_REL) cannot be mapped from "
          "program headers: 0x%x-0x%x cannot be decoded",
          record.path, record.addr, record.addr + record.length));
      return std::vector<uint32_t>{};
    }
    auto loads = elf->ExecutableLoads();
    if (loads.empty()) return std::vector<uint32_t>{};
    const uint64_t bias = record.addr - (loads.front().vaddr & ~kPageMask);
    return MapElf(record.path, file, bias, /*kernel=*/true, false);
  }

  // Finds and reads the image of a perf map; false (with the miss reported
  // once) when there is none or it is not a readable ELF file.
  bool ResolvePerfImage(const Record& record, bool kernel, std::string* file,
                        const ElfInfo** elf) {
    std::vector<std::string> tried;
    auto found = capture_.ResolveImage(record.path, record.build_id, &tried);
    if (!found) {
      WarnMissingRange(record, kernel, tried);
      return false;
    }
    auto loaded = LoadElf(record.path, *found);
    if (!loaded.ok()) {
      if (warned_missing_.insert(*found).second) {
        timeline_.AddWarning(
            absl::StrFormat("%s: %s: 0x%x-0x%x cannot be decoded", record.path,
                            loaded.status().message(), record.addr,
                            record.addr + record.length));
      }
      return false;
    }
    *file = *found;
    *elf = *loaded;
    return true;
  }

  void WarnMissingRange(const Record& record, bool kernel,
                        const std::vector<std::string>& tried) {
    if (!warned_missing_.insert(record.path + "\n" + record.build_id).second) {
      return;
    }
    std::string what = record.path;
    if (!record.build_id.empty()) {
      absl::StrAppend(&what, " (build-id ", record.build_id, ")");
    }
    absl::StrAppendFormat(&what, " at 0x%x-0x%x", record.addr,
                          record.addr + record.length);
    (kernel ? missing_kernel_ : missing_user_).push_back(what);
    if (!kernel && missing_user_.size() == 1 && !tried.empty()) {
      missing_tried_ = tried.back();
    }
  }

  // Images of perf maps that were not found, reported once each: one line
  // per image when there are few, else one line for all (a perf.data file
  // maps every library of every traced process; the decode reports the
  // addresses the trace actually needed).
  void WarnMissingPerfImages() {
    if (missing_user_.size() <= 3) {
      for (const std::string& what : missing_user_) {
        timeline_.AddWarning(absl::StrFormat(
            "image %s not found%s: code there cannot be decoded", what,
            missing_tried_.empty() ? "" : " (" + missing_tried_ + ")"));
      }
    } else {
      timeline_.AddWarning(absl::StrFormat(
          "%u mapped images not found (give them with --image, matched by "
          "build-id, or --sysroot/--symfs): %s, ...: code there cannot be "
          "decoded",
          missing_user_.size(),
          absl::StrJoin(missing_user_.begin(), missing_user_.begin() + 3,
                        ", ")));
    }
    if (missing_kernel_.empty()) return;
    const size_t shown = std::min<size_t>(missing_kernel_.size(), 3);
    timeline_.AddWarning(absl::StrFormat(
        "%u kernel image%s not found (give vmlinux or modules with --image, "
        "matched by build-id): %s%s: kernel code there cannot be decoded",
        missing_kernel_.size(), missing_kernel_.size() == 1 ? "" : "s",
        absl::StrJoin(missing_kernel_.begin(), missing_kernel_.begin() + shown,
                      ", "),
        missing_kernel_.size() > shown ? ", ..." : ""));
  }

  absl::StatusOr<std::vector<uint32_t>> MapMmap(const Record& record) {
    // MMAP's addr is the start of the executable mapping: the page of the
    // first executable PT_LOAD segment.
    auto file = capture_.ResolveImage(record.path, "");
    if (!file) {
      WarnMissing(record.path, record.addr, 0);
      return std::vector<uint32_t>{};
    }
    HWT_ASSIGN_OR_RETURN(const ElfInfo* elf, LoadElf(record.path, *file));
    auto loads = elf->ExecutableLoads();
    if (loads.empty()) return std::vector<uint32_t>{};
    uint64_t bias = record.addr - (loads.front().vaddr & ~kPageMask);
    return MapElf(record.path, *file, bias, false, false);
  }

  absl::StatusOr<std::vector<uint32_t>> MapKernel(const Record& record) {
    auto file = capture_.ResolveImage(record.path, "");
    if (!file) {
      WarnMissing(record.path, record.addr, 0);
      return std::vector<uint32_t>{};
    }
    HWT_ASSIGN_OR_RETURN(const ElfInfo* elf, LoadElf(record.path, *file));
    uint64_t bias = 0;
    if (elf->type == kEtDyn) {
      bias = record.addr - elf->LowestLoadAddress();
    } else if (elf->type == kEtRel) {
      timeline_.AddWarning(absl::StrFormat(
          "%s: relocatable kernel modules (ET_REL) cannot be mapped from "
          "program headers: 0x%x cannot be decoded",
          record.path, record.addr));
      return std::vector<uint32_t>{};
    }
    return MapElf(record.path, *file, bias, /*kernel=*/true, false);
  }

  // Maps an ELF named in a record at load bias `bias`.
  absl::StatusOr<std::vector<uint32_t>> MapRecordedElf(
      const std::string& recorded_path, uint64_t bias, bool kernel) {
    auto file = capture_.ResolveImage(recorded_path, "");
    if (!file) {
      WarnMissing(recorded_path, bias, 0);
      return std::vector<uint32_t>{};
    }
    return MapElf(recorded_path, *file, bias, kernel, false);
  }

  absl::StatusOr<std::vector<uint32_t>> MapElf(const std::string& recorded,
                                               const std::string& file,
                                               uint64_t bias, bool kernel,
                                               bool warn_missing) {
    auto elf = LoadElf(recorded, file);
    if (!elf.ok()) {
      if (warn_missing && absl::IsNotFound(elf.status())) {
        return absl::NotFoundError(
            absl::StrFormat("--image %s: no such file", file));
      }
      return elf.status();
    }
    uint32_t image_id = ImageFor(recorded, file, (*elf)->build_id, kernel);
    std::vector<uint32_t> regions;
    for (const ElfSegment& seg : (*elf)->ExecutableLoads()) {
      // Found by fuzz/elf_file_fuzzer: a segment that, loaded at this bias,
      // ends beyond the top of the address space.
      if (seg.vaddr + bias < bias ||
          seg.memsz > ~uint64_t{0} - (seg.vaddr + bias)) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: PT_LOAD segment at 0x%x (memsz 0x%x) loaded at bias 0x%x "
            "wraps around the address space",
            file, seg.vaddr, seg.memsz, bias));
      }
      Region region;
      region.image = image_id;
      region.start = seg.vaddr + bias;
      region.end = region.start + seg.memsz;
      region.file_offset = seg.offset;
      region.file_size = seg.filesz;
      region.bias = bias;
      region.executable = true;
      auto key = std::make_tuple(image_id, region.start, region.end);
      auto it = region_ids_.find(key);
      if (it != region_ids_.end()) {
        regions.push_back(it->second);
        continue;
      }
      uint32_t id = timeline_.AddRegion(region);
      region_ids_[key] = id;
      regions.push_back(id);
    }
    if (regions.empty() && (*elf)->type == 1) {
      // ET_REL (a kernel module .ko): the module loader places its sections,
      // so there are no program headers to map it by.
      timeline_.AddWarning(absl::StrFormat(
          "%s: relocatable ELF (ET_REL, e.g. an unlinked kernel module) has "
          "no PT_LOAD segments and is not supported: nothing mapped",
          file));
    } else if (regions.empty()) {
      timeline_.AddWarning(absl::StrFormat(
          "%s: no executable PT_LOAD segment: nothing mapped", file));
    }
    return regions;
  }

  absl::StatusOr<const ElfInfo*> LoadElf(const std::string& recorded,
                                         const std::string& file) {
    auto it = elf_by_file_.find(file);
    if (it == elf_by_file_.end()) {
      HWT_ASSIGN_OR_RETURN(ElfInfo info, ReadElfFile(file));
      it = elf_by_file_.emplace(file, std::move(info)).first;
    }
    elf_by_recorded_path_[recorded] = it->second;
    return &it->second;
  }

  uint32_t ImageFor(const std::string& recorded, const std::string& file,
                    const std::string& build_id, bool kernel) {
    auto key = std::make_pair(recorded, file);
    auto it = image_ids_.find(key);
    if (it != image_ids_.end()) return it->second;
    Image image;
    image.recorded_path = recorded;
    image.file = file;
    image.build_id = build_id;
    image.kernel = kernel;
    uint32_t id = timeline_.AddImage(std::move(image));
    image_ids_[key] = id;
    return id;
  }

  void Unmap(const Record& record, const std::vector<uint64_t>& position) {
    if (record.addr == 0) {
      if (!warned_munmap_) {
        timeline_.AddWarning(
            "munmap records carry no address (the kernel's copy-out loses "
            "it): unmapped ranges stay mapped");
        warned_munmap_ = true;
      }
      return;
    }
    // Remove every mapped region of the image instance containing addr.
    std::vector<uint32_t> victims;
    for (uint32_t id : user_mapped_) {
      const Region& r = timeline_.regions()[id];
      if (record.addr >= r.start && record.addr < r.end) {
        for (uint32_t other : user_mapped_) {
          const Region& o = timeline_.regions()[other];
          if (o.image == r.image && o.bias == r.bias) victims.push_back(other);
        }
      }
    }
    std::sort(victims.begin(), victims.end());
    victims.erase(std::unique(victims.begin(), victims.end()), victims.end());
    for (size_t b = 0; b < position.size(); ++b) {
      for (uint32_t id : victims) Change(b, kUnmap, position[b], id);
    }
  }

  void WarnMissing(const std::string& path, uint64_t addr, uint64_t end) {
    if (!warned_missing_.insert(path).second) return;
    std::string tried = capture_.options().sysroot.empty()
                            ? path
                            : capture_.options().sysroot + path;
    timeline_.AddWarning(absl::StrFormat(
        "image %s not found (tried the bundle's images and %s): code mapped "
        "at 0x%x cannot be decoded",
        path, tried, addr));
  }

  const Capture& capture_;
  AddressSpaceTimeline timeline_;
  std::vector<uint64_t> last_position_;
  std::vector<std::vector<AddressSpaceChange>> pending_;
  std::map<std::string, ElfInfo> elf_by_file_;
  std::map<std::string, ElfInfo> elf_by_recorded_path_;
  std::map<std::pair<std::string, std::string>, uint32_t> image_ids_;
  std::map<std::tuple<uint32_t, uint64_t, uint64_t>, uint32_t> region_ids_;
  std::set<uint32_t> user_mapped_;
  std::set<std::string> warned_missing_;
  std::set<uint32_t> persistent_images_;
  bool warned_munmap_ = false;
  // perf records: regions per process, and how many processes map each.
  std::map<int32_t, std::set<uint32_t>> pid_regions_;
  std::map<uint32_t, int> perf_refs_;
  std::vector<std::string> missing_kernel_;
  std::vector<std::string> missing_user_;
  std::string missing_tried_;
};

}  // namespace

uint32_t AddressSpaceTimeline::AddImage(Image image) {
  images_.push_back(std::move(image));
  return static_cast<uint32_t>(images_.size() - 1);
}

uint32_t AddressSpaceTimeline::AddRegion(Region region) {
  regions_.push_back(region);
  return static_cast<uint32_t>(regions_.size() - 1);
}

void AddressSpaceTimeline::AddChange(size_t buffer_index,
                                     AddressSpaceChange change) {
  if (changes_.size() <= buffer_index) changes_.resize(buffer_index + 1);
  changes_[buffer_index].push_back(change);
}

void AddressSpaceTimeline::AddWarning(std::string warning) {
  warnings_.push_back(std::move(warning));
}

bool AddressSpaceTimeline::RemovedByReset(uint32_t region) const {
  const Image& image = images_[regions_[region].image];
  return image.is_elf && !image.kernel && !image.persistent;
}

std::vector<uint32_t> AddressSpaceTimeline::RegionsAt(size_t buffer_index,
                                                      uint64_t position) const {
  std::vector<uint32_t> mapped;
  if (buffer_index >= changes_.size()) return mapped;
  for (const AddressSpaceChange& change : changes_[buffer_index]) {
    if (change.position > position) break;
    switch (change.kind) {
      case AddressSpaceChange::Kind::kMap:
        if (std::find(mapped.begin(), mapped.end(), change.region) ==
            mapped.end()) {
          mapped.push_back(change.region);
        }
        break;
      case AddressSpaceChange::Kind::kUnmap:
        mapped.erase(std::remove(mapped.begin(), mapped.end(), change.region),
                     mapped.end());
        break;
      case AddressSpaceChange::Kind::kResetUser:
        mapped.erase(
            std::remove_if(mapped.begin(), mapped.end(),
                           [this](uint32_t id) { return RemovedByReset(id); }),
            mapped.end());
        break;
    }
  }
  return mapped;
}

absl::StatusOr<AddressSpaceTimeline> BuildAddressSpaceTimeline(
    const Capture& capture) {
  TimelineBuilder builder(capture);
  HWT_RETURN_IF_ERROR(builder.AddStaticImages());
  for (const Record& record : capture.records()) {
    HWT_RETURN_IF_ERROR(builder.AddRecord(record));
  }
  return builder.Finish();
}

}  // namespace hwt::capture
