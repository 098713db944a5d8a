// Fuzzes packed bundles: the input is a file given to a tool (a tar, tar.zst
// or tar.gz archive, or anything else). UnpackArchive runs on it directly, in
// a box directory, then OpenCapture opens it as every tool does (unpack into
// a temporary directory, manifest, records, file checks), followed by the
// address-space timeline and the buffer maps. Seeds: testdata's valid bundle
// packed as tar and tar.zst, and hand-made hostile archives (links, "..",
// absolute paths, duplicates, devices).
//
// Checks: no crash, no hang; unpacking never writes outside its target
// directory and never creates links or special files; temporary directories
// are gone once the capture is destroyed; refusals name the archive;
// an opened capture's buffers have the sizes its manifest states.
#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "capture/bundle_archive.h"
#include "capture/capture.h"
#include "fuzz/capture_checks.h"
#include "fuzz/fuzz_support.h"

namespace {

using hwt::fuzz::Fail;
namespace fs = std::filesystem;

std::string* g_input = nullptr;
std::string* g_box = nullptr;
std::string* g_tmp = nullptr;

struct Entry {
  std::string path;
  mode_t type = AE_IFREG;
  std::string data;
  std::string link;  // symlink target or hard link
};

// A tar archive (ustar, no padding) holding `entries`.
std::string MakeTar(const std::vector<Entry>& entries) {
  std::string out;
  archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  archive_write_set_bytes_in_last_block(a, 1);
  archive_write_open(
      a, &out, nullptr,
      [](archive*, void* client, const void* data, size_t size) -> la_ssize_t {
        static_cast<std::string*>(client)->append(
            static_cast<const char*>(data), size);
        return static_cast<la_ssize_t>(size);
      },
      nullptr);
  for (const Entry& e : entries) {
    archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, e.path.c_str());
    archive_entry_set_filetype(entry, e.type);
    archive_entry_set_perm(entry, 0644);
    if (e.type == AE_IFLNK) archive_entry_set_symlink(entry, e.link.c_str());
    if (e.type == AE_IFREG && !e.link.empty()) {
      archive_entry_set_hardlink(entry, e.link.c_str());
    }
    archive_entry_set_size(entry, static_cast<la_int64_t>(e.data.size()));
    archive_write_header(a, entry);
    if (!e.data.empty()) archive_write_data(a, e.data.data(), e.data.size());
    archive_entry_free(entry);
  }
  archive_write_close(a);
  archive_write_free(a);
  return out;
}

void Initialize() {
  const std::string scratch = hwt::fuzz::ScratchDir();
  g_input = new std::string(scratch + "/input.tar");
  g_box = new std::string(scratch + "/box");
  g_tmp = new std::string(scratch + "/tmp");
  fs::create_directories(*g_tmp);
  // OpenCapture unpacks below $TMPDIR: watch that directory.
  setenv("TMPDIR", g_tmp->c_str(), 1);

  std::vector<std::string> seeds;
  const std::string valid =
      hwt::fuzz::SourceDir() + "/testdata/capture/bundles/valid.hwt";
  for (auto kind :
       {hwt::capture::ArchiveKind::kTar, hwt::capture::ArchiveKind::kZstd}) {
    const std::string packed = scratch + "/seed.tar";
    hwt::fuzz::CheckOk(
        hwt::capture::PackDirectory(valid, "valid.hwt", packed, kind),
        "PackDirectory");
    std::string bytes;
    if (!hwt::fuzz::ReadFile(packed, &bytes)) Fail("cannot read " + packed);
    seeds.push_back(bytes);
  }
  std::string manifest;
  hwt::fuzz::ReadFile(valid + "/manifest.json", &manifest);
  std::string buffer;
  hwt::fuzz::ReadFile(valid + "/buffers/0.bin", &buffer);
  const std::vector<std::vector<Entry>> hostile = {
      {{"x.hwt/", AE_IFDIR},
       {"x.hwt/manifest.json", AE_IFREG, manifest},
       {"x.hwt/buffers", AE_IFLNK, "", "/tmp"}},
      {{"x.hwt/manifest.json", AE_IFREG, manifest},
       {"x.hwt/buffers/0.bin", AE_IFREG, "", "/etc/passwd"}},
      {{"../escape.txt", AE_IFREG, "x"}},
      {{"/tmp/absolute.txt", AE_IFREG, "x"}},
      {{"x.hwt/a/../../escape.txt", AE_IFREG, "x"}},
      {{"x.hwt/manifest.json", AE_IFREG, manifest},
       {"x.hwt/manifest.json", AE_IFREG, manifest}},
      {{"x.hwt/fifo", AE_IFIFO}},
      {{"x.hwt/manifest.json", AE_IFREG, manifest},
       {"x.hwt/buffers/0.bin", AE_IFREG, buffer.substr(0, buffer.size() / 2)}},
      {{"manifest.json", AE_IFREG, manifest},
       {"buffers/0.bin", AE_IFREG, buffer}},
  };
  for (const auto& entries : hostile) seeds.push_back(MakeTar(entries));
  hwt::fuzz::WriteGeneratedSeeds("packed", seeds);
}

// Every path below `dir`, checked: directories and regular files only.
void CheckTree(const std::string& dir) {
  std::error_code error;
  for (fs::recursive_directory_iterator it(dir, error), end;
       !error && it != end; it.increment(error)) {
    struct stat st;
    const std::string path = it->path().string();
    if (lstat(path.c_str(), &st) != 0) Fail("cannot lstat " + path);
    if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
      Fail("unpacking created a link or special file: " + path);
    }
  }
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end;
       it.increment(error)) {
    names.push_back(it->path().filename().string());
  }
  return names;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Initialize();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hwt::fuzz::WriteFileOrDie(*g_input, absl::MakeConstSpan(data, size));

  // 1. Unpack into box/dest: nothing may appear in box but dest.
  fs::remove_all(*g_box);
  fs::create_directories(*g_box + "/dest");
  hwt::capture::UnpackLimits limits;
  limits.max_total_bytes = 1 << 20;
  limits.max_entry_bytes = 1 << 20;
  limits.max_entries = 1000;
  absl::Status unpacked =
      hwt::capture::UnpackArchive(*g_input, *g_box + "/dest", limits);
  const std::vector<std::string> in_box = ListDir(*g_box);
  if (in_box.size() != 1 || in_box[0] != "dest") {
    Fail("unpacking wrote outside its target directory: " +
         (in_box.empty() ? std::string("dest vanished") : in_box.back()));
  }
  CheckTree(*g_box + "/dest");
  if (!unpacked.ok()) {
    HWT_FUZZ_CHECK(hwt::fuzz::Contains(unpacked.message(), *g_input),
                   "UnpackArchive error does not name the archive: " +
                       unpacked.ToString());
  }
  fs::remove_all(*g_box);

  // 2. Open it as a tool would (image paths resolved under an empty sysroot,
  // never the host's files).
  {
    hwt::capture::InputOptions options;
    options.sysroot = *g_box;
    hwt::fuzz::CheckOpensAsATool(*g_input, options, "archive");
  }
  if (!ListDir(*g_tmp).empty()) {
    Fail("temporary files left behind: " + ListDir(*g_tmp)[0]);
  }
  return 0;
}
