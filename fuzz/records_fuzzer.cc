// Fuzzes the records reader (capture/records_jsonl.h) against a fixed
// manifest (two buffers, upstream numbering), then the address-space
// timeline built from the accepted records (capture/address_space.h), which
// interprets EXECUTABLE/MMAP/MUNMAP/KERNEL records and resolves images.
// Seeds: the records.jsonl files of testdata/capture/bundles and records of
// every type written by RecordsToJsonl.
//
// Checks: no crash, no hang; a refusal names the file and line; accepted
// records pass ValidateRecords and survive a round trip (write, read again,
// write: the same text); the timeline builds or fails with a message.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "capture/address_space.h"
#include "capture/capture.h"
#include "capture/records_jsonl.h"
#include "fuzz/fuzz_support.h"

namespace {

using hwt::capture::Manifest;
using hwt::capture::Record;
using hwt::capture::RecordType;
using hwt::fuzz::Fail;

constexpr char kWhere[] = "fuzz.hwt/records.jsonl";
Manifest* g_manifest = nullptr;

void Initialize() {
  g_manifest = new Manifest();
  g_manifest->backend = hwt::capture::Backend::kPt;
  g_manifest->mode = hwt::capture::TraceMode::kCpu;
  g_manifest->pt.emplace();
  for (uint32_t id : {0u, 1u}) {
    hwt::capture::BufferInfo buffer;
    buffer.id = id;
    buffer.cpu = static_cast<int32_t>(id);
    buffer.file = "buffers/" + std::to_string(id) + ".bin";
    buffer.size = 0x10000;
    g_manifest->buffers.push_back(buffer);
  }
  std::vector<Record> records;
  Record exec;
  exec.type = RecordType::kExecutable;
  exec.path = "/bin/ls";
  exec.addr = 0x400000;
  exec.positions = {{0, 0x10}, {1, 0x20}};
  records.push_back(exec);
  Record mmap = exec;
  mmap.type = RecordType::kMmap;
  mmap.path = "/lib/libc.so.7";
  mmap.addr = 0x800000000;
  mmap.positions = {{0, 0x100}, {1, 0x200}};
  records.push_back(mmap);
  Record munmap = mmap;
  munmap.type = RecordType::kMunmap;
  munmap.path.clear();
  munmap.positions = {{0, 0x300}, {1, 0x300}};
  records.push_back(munmap);
  Record kernel = exec;
  kernel.type = RecordType::kKernel;
  kernel.path = "/boot/kernel/kernel";
  kernel.addr = 0xffffffff80200000;
  records.push_back(kernel);
  hwt::fuzz::WriteGeneratedSeeds(
      "records", {hwt::capture::RecordsToJsonl(
                     records, hwt::capture::RecordNumbering::kUpstream)});
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Initialize();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto records = hwt::capture::ParseRecordsJsonl(text, *g_manifest, kWhere);
  if (!records.ok()) {
    HWT_FUZZ_CHECK(
        hwt::fuzz::Contains(records.status().message(), kWhere),
        "error does not name the file: " + records.status().ToString());
    return 0;
  }
  hwt::fuzz::CheckOk(
      hwt::capture::ValidateRecords(*records, *g_manifest, kWhere),
      "ValidateRecords of accepted records");
  const std::string jsonl =
      hwt::capture::RecordsToJsonl(*records, g_manifest->record_numbering);
  auto again = hwt::capture::ParseRecordsJsonl(jsonl, *g_manifest, kWhere);
  if (!again.ok()) {
    Fail("written records are refused: " + again.status().ToString() + "\n" +
         jsonl);
  }
  if (hwt::capture::RecordsToJsonl(*again, g_manifest->record_numbering) !=
      jsonl) {
    Fail("records round trip differs:\n" + jsonl);
  }

  // Image paths are resolved under an empty sysroot: never the host's files.
  hwt::capture::InputOptions options;
  options.sysroot = hwt::fuzz::ScratchDir() + "/sysroot";
  hwt::capture::Capture capture(hwt::capture::InputKind::kBundleDirectory,
                                "fuzz.hwt", hwt::fuzz::ScratchDir(),
                                *g_manifest, std::move(*records), options,
                                std::nullopt);
  auto timeline = hwt::capture::BuildAddressSpaceTimeline(capture);
  if (!timeline.ok()) {
    HWT_FUZZ_CHECK(!timeline.status().message().empty(),
                   "timeline error without a message");
    return 0;
  }
  for (size_t b = 0; b < timeline->buffer_count(); ++b) {
    uint64_t last = 0;
    for (const auto& change : timeline->changes(b)) {
      HWT_FUZZ_CHECK(change.position >= last, "timeline changes out of order");
      last = change.position;
      if (change.kind != hwt::capture::AddressSpaceChange::Kind::kResetUser) {
        HWT_FUZZ_CHECK(change.region < timeline->regions().size(),
                       "timeline change names an unknown region");
      }
    }
  }
  return 0;
}
