// Test helpers for the capture format; see manifest_samples.h.
#include "capture/testing/manifest_samples.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace hwt::capture {

Manifest FullPtManifest() {
  Manifest m;
  m.backend = Backend::kPt;
  m.mode = TraceMode::kCpu;
  m.record_numbering = RecordNumbering::kCheriBsd;
  m.pid = 0x123456789;
  m.command = "make -j8 \"quoted\" \\ \xc3\xa9";
  m.hostname = "host";
  m.labels = {{"branch", "main"}, {"run", "nightly \"2026-12-01\""}};
  m.minor_version = 1;  // labels are 1.1
  m.os = "FreeBSD 15.0-RELEASE amd64";
  m.created = "2026-11-30T08:00:00Z";
  m.recorder = "test";
  m.cpu.arch = "x86_64";
  m.cpu.vendor = "GenuineIntel";
  m.cpu.family = 0x10e;
  m.cpu.model = 0x8e;
  m.cpu.stepping = 0xa;
  m.cpu.cpuid_15_eax = 2;
  m.cpu.cpuid_15_ebx = 0xfffffffe;
  m.cpu.cpuid_15_ecx = 24000000;
  m.cpu.nominal_frequency_hz = 0x20000000001;  // above 2^41: needs hex
  m.cpu.midr = 0x410fd0c0;
  PtConfig& pt = m.pt.emplace();
  pt.rtit_ctl = 0x8000000000002109;
  pt.cr3_filter = 0x1234f000;
  pt.address_filters.push_back({0x401000, 0x401fff, 1});
  pt.address_filters.push_back({0xffffffff80000000, 0xffffffffffffffff, 2});
  pt.mtc_freq = 9;
  pt.cyc_thresh = 15;
  pt.psb_freq = 5;
  for (uint32_t i = 0; i < 3; ++i) {
    BufferInfo b;
    b.id = 7 + i;
    b.cpu = static_cast<int32_t>(i);
    if (i == 2) b.thread = 11;
    b.file = absl::StrCat("buffers/", b.id, ".bin");
    b.size = (uint64_t{1} << 36) + i;
    b.wrapped = i == 1;
    b.data_lost = i == 2;
    if (i == 0) {
      b.chunks.push_back({0, 0x1000, false, true, false});
      b.chunks.push_back({0x1000, 0x2000, true, false, true});
      b.chunks.push_back({0x4000, 0x10, true, true, true});
    }
    m.buffers.push_back(b);
  }
  m.images.push_back({"00ff", "/bin/a", "images/00ff"});
  m.images.push_back({"", "/lib/no-id.so", "images/no-build-id/1-no-id.so"});
  MemoryDump dump;
  dump.file = "mem/k.bin";
  dump.address = 0xffffffff80200000;
  dump.file_offset = 0x40;
  dump.size = 0x1000;
  dump.space = MemorySpace::kEL2S;
  m.memory.push_back(dump);
  dump.space = MemorySpace::kSecure;
  dump.size = 0;
  m.memory.push_back(dump);
  return m;
}

Manifest FullCoreSightManifest() {
  Manifest m;
  m.backend = Backend::kCoreSight;
  m.mode = TraceMode::kThread;
  m.pid = 77;
  m.cpu.arch = "aarch64";
  m.cpu.vendor = "ARM";
  m.cpu.midr = 0x410fd083;
  CoreSightConfig& cs = m.coresight.emplace();
  cs.sink = "tpiu";
  cs.formatted = true;
  cs.has_fsyncs = true;
  cs.has_hsyncs = true;
  cs.reset_on_4x_fsync = true;
  CoreSightSource etm;
  etm.trace_id = 0x10;
  etm.cpu = 0;
  etm.architecture = "etmv4";
  etm.core_profile = "A";
  etm.registers = {{"TRCIDR0", 0x28000ea1},
                   {"TRCCONFIGR", 0x10c1},
                   {"TRCTRACEIDR", 0x10},
                   {"TRCDEVARCH", 0xffffffffffffffff}};
  CoreSightSource ete;
  ete.trace_id = 0x6f;
  ete.thread = 3;
  ete.architecture = "ete";
  ete.core_profile = "M";
  cs.sources = {etm, ete};
  BufferInfo b;
  b.id = 0;
  b.thread = 0;
  b.file = "buffers/etr.bin";
  b.size = 0x100000;
  m.buffers.push_back(b);
  return m;
}

Manifest FullSpeManifest() {
  Manifest m;
  m.backend = Backend::kSpe;
  m.mode = TraceMode::kCpu;
  m.cpu.arch = "aarch64";
  m.cpu.midr = 0x413fd0c1;
  SpeConfig& spe = m.spe.emplace();
  spe.interval = 4096;
  spe.level = 2;
  spe.ctx_field = 1;
  BufferInfo b;
  b.id = 3;
  b.cpu = 3;
  b.file = "buffers/3.bin";
  b.size = 0x4000;
  b.chunks.push_back({0, 0x2000, false, true, false});
  b.chunks.push_back({0x2000, 0x1f00, false, false, true});
  m.buffers.push_back(b);
  return m;
}

std::vector<Record> AllRecordTypes(RecordNumbering numbering) {
  std::vector<Record> records;
  Record r;
  r.type = RecordType::kExecutable;
  r.path = "/usr/bin/true";
  r.addr = 0x555555554000;
  r.baseaddr = 0x7ffff7fc3000;
  r.positions = {{7, 0}, {8, 0x10}};
  records.push_back(r);
  r = Record();
  if (numbering == RecordNumbering::kCheriBsd) {
    r.type = RecordType::kInterp;
    r.path = "/libexec/ld-elf.so.1";
    r.addr = 0x7ffff7fc3000;
    records.push_back(r);
    r = Record();
  }
  r.type = RecordType::kMmap;
  r.path = "/lib/libc.so.7";
  r.addr = 0x800200000;
  r.positions = {{7, 0x2000}};
  records.push_back(r);
  r = Record();
  r.type = RecordType::kMunmap;
  r.positions = {{7, 0x3000}, {9, 0x40}};
  records.push_back(r);
  r = Record();
  r.type = RecordType::kKernel;
  r.path = "/boot/kernel/kernel";
  r.addr = 0xffffffff80200000;
  records.push_back(r);
  r = Record();
  r.type = RecordType::kThreadCreate;
  r.thread_id = 3;
  r.positions = {{9, 0x80}};
  records.push_back(r);
  r = Record();
  r.type = RecordType::kThreadSetName;
  r.thread_id = 2147483647;
  records.push_back(r);
  if (numbering == RecordNumbering::kUpstream) {
    r = Record();
    r.type = RecordType::kBuffer;
    r.buf_id = 8;
    r.curpage = 15;
    r.buf_offset = 0xff0;
    r.positions = {{8, 0xfff0}};
    records.push_back(r);
  }
  return records;
}

void ExpectSameManifest(const Manifest& a, const Manifest& e) {
  EXPECT_EQ(a.major_version, e.major_version);
  EXPECT_EQ(a.minor_version, e.minor_version);
  EXPECT_EQ(a.labels, e.labels);
  EXPECT_EQ(a.backend, e.backend);
  EXPECT_EQ(a.mode, e.mode);
  EXPECT_EQ(a.record_numbering, e.record_numbering);
  EXPECT_EQ(a.pid, e.pid);
  EXPECT_EQ(a.command, e.command);
  EXPECT_EQ(a.hostname, e.hostname);
  EXPECT_EQ(a.os, e.os);
  EXPECT_EQ(a.created, e.created);
  EXPECT_EQ(a.recorder, e.recorder);
  EXPECT_EQ(a.cpu.arch, e.cpu.arch);
  EXPECT_EQ(a.cpu.vendor, e.cpu.vendor);
  EXPECT_EQ(a.cpu.family, e.cpu.family);
  EXPECT_EQ(a.cpu.model, e.cpu.model);
  EXPECT_EQ(a.cpu.stepping, e.cpu.stepping);
  EXPECT_EQ(a.cpu.cpuid_15_eax, e.cpu.cpuid_15_eax);
  EXPECT_EQ(a.cpu.cpuid_15_ebx, e.cpu.cpuid_15_ebx);
  EXPECT_EQ(a.cpu.cpuid_15_ecx, e.cpu.cpuid_15_ecx);
  EXPECT_EQ(a.cpu.nominal_frequency_hz, e.cpu.nominal_frequency_hz);
  EXPECT_EQ(a.cpu.midr, e.cpu.midr);
  ASSERT_EQ(a.pt.has_value(), e.pt.has_value());
  if (e.pt) {
    EXPECT_EQ(a.pt->rtit_ctl, e.pt->rtit_ctl);
    EXPECT_EQ(a.pt->cr3_filter, e.pt->cr3_filter);
    ASSERT_EQ(a.pt->address_filters.size(), e.pt->address_filters.size());
    for (size_t i = 0; i < e.pt->address_filters.size(); ++i) {
      EXPECT_EQ(a.pt->address_filters[i].start, e.pt->address_filters[i].start);
      EXPECT_EQ(a.pt->address_filters[i].end, e.pt->address_filters[i].end);
      EXPECT_EQ(a.pt->address_filters[i].config,
                e.pt->address_filters[i].config);
    }
    EXPECT_EQ(a.pt->mtc_freq, e.pt->mtc_freq);
    EXPECT_EQ(a.pt->cyc_thresh, e.pt->cyc_thresh);
    EXPECT_EQ(a.pt->psb_freq, e.pt->psb_freq);
  }
  ASSERT_EQ(a.coresight.has_value(), e.coresight.has_value());
  if (e.coresight) {
    const CoreSightConfig& ac = *a.coresight;
    const CoreSightConfig& ec = *e.coresight;
    EXPECT_EQ(ac.sink, ec.sink);
    EXPECT_EQ(ac.formatted, ec.formatted);
    EXPECT_EQ(ac.has_fsyncs, ec.has_fsyncs);
    EXPECT_EQ(ac.has_hsyncs, ec.has_hsyncs);
    EXPECT_EQ(ac.reset_on_4x_fsync, ec.reset_on_4x_fsync);
    ASSERT_EQ(ac.sources.size(), ec.sources.size());
    for (size_t i = 0; i < ec.sources.size(); ++i) {
      EXPECT_EQ(ac.sources[i].trace_id, ec.sources[i].trace_id);
      EXPECT_EQ(ac.sources[i].cpu, ec.sources[i].cpu);
      EXPECT_EQ(ac.sources[i].thread, ec.sources[i].thread);
      EXPECT_EQ(ac.sources[i].architecture, ec.sources[i].architecture);
      EXPECT_EQ(ac.sources[i].core_profile, ec.sources[i].core_profile);
      EXPECT_EQ(ac.sources[i].registers, ec.sources[i].registers);
    }
  }
  ASSERT_EQ(a.spe.has_value(), e.spe.has_value());
  if (e.spe) {
    EXPECT_EQ(a.spe->interval, e.spe->interval);
    EXPECT_EQ(a.spe->level, e.spe->level);
    EXPECT_EQ(a.spe->ctx_field, e.spe->ctx_field);
  }
  ASSERT_EQ(a.buffers.size(), e.buffers.size());
  for (size_t i = 0; i < e.buffers.size(); ++i) {
    SCOPED_TRACE(absl::StrCat("buffers[", i, "]"));
    const BufferInfo& ab = a.buffers[i];
    const BufferInfo& eb = e.buffers[i];
    EXPECT_EQ(ab.id, eb.id);
    EXPECT_EQ(ab.cpu, eb.cpu);
    EXPECT_EQ(ab.thread, eb.thread);
    EXPECT_EQ(ab.file, eb.file);
    EXPECT_EQ(ab.size, eb.size);
    EXPECT_EQ(ab.wrapped, eb.wrapped);
    EXPECT_EQ(ab.data_lost, eb.data_lost);
    ASSERT_EQ(ab.chunks.size(), eb.chunks.size());
    for (size_t c = 0; c < eb.chunks.size(); ++c) {
      EXPECT_EQ(ab.chunks[c].offset, eb.chunks[c].offset);
      EXPECT_EQ(ab.chunks[c].size, eb.chunks[c].size);
      EXPECT_EQ(ab.chunks[c].data_lost_before, eb.chunks[c].data_lost_before);
      EXPECT_EQ(ab.chunks[c].partial_record, eb.chunks[c].partial_record);
      EXPECT_EQ(ab.chunks[c].final, eb.chunks[c].final);
    }
  }
  ASSERT_EQ(a.images.size(), e.images.size());
  for (size_t i = 0; i < e.images.size(); ++i) {
    EXPECT_EQ(a.images[i].build_id, e.images[i].build_id);
    EXPECT_EQ(a.images[i].original_path, e.images[i].original_path);
    EXPECT_EQ(a.images[i].file, e.images[i].file);
  }
  ASSERT_EQ(a.memory.size(), e.memory.size());
  for (size_t i = 0; i < e.memory.size(); ++i) {
    EXPECT_EQ(a.memory[i].file, e.memory[i].file);
    EXPECT_EQ(a.memory[i].address, e.memory[i].address);
    EXPECT_EQ(a.memory[i].file_offset, e.memory[i].file_offset);
    EXPECT_EQ(a.memory[i].size, e.memory[i].size);
    EXPECT_EQ(a.memory[i].space, e.memory[i].space);
  }
}

void ExpectSameRecords(const std::vector<Record>& a,
                       const std::vector<Record>& e) {
  ASSERT_EQ(a.size(), e.size());
  for (size_t i = 0; i < e.size(); ++i) {
    SCOPED_TRACE(absl::StrCat("record ", i));
    EXPECT_EQ(a[i].type, e[i].type);
    EXPECT_EQ(a[i].path, e[i].path);
    EXPECT_EQ(a[i].addr, e[i].addr);
    EXPECT_EQ(a[i].baseaddr, e[i].baseaddr);
    EXPECT_EQ(a[i].thread_id, e[i].thread_id);
    EXPECT_EQ(a[i].buf_id, e[i].buf_id);
    EXPECT_EQ(a[i].curpage, e[i].curpage);
    EXPECT_EQ(a[i].buf_offset, e[i].buf_offset);
    ASSERT_EQ(a[i].positions.size(), e[i].positions.size());
    for (size_t p = 0; p < e[i].positions.size(); ++p) {
      EXPECT_EQ(a[i].positions[p].buffer_id, e[i].positions[p].buffer_id);
      EXPECT_EQ(a[i].positions[p].offset, e[i].positions[p].offset);
    }
  }
}

}  // namespace hwt::capture
