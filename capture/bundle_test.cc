// Tests writing, packing and opening capture bundles: write -> open round
// trips, packed tar / tar.zst / tar.gz read exactly like the directory,
// hostile archives (path traversal, absolute paths, links, devices, bombs) are
// refused without writing outside the unpack directory, failed and
// interrupted writes leave nothing behind, raw files and the other inputs
// OpenCapture recognises, and the golden bundles of testdata/capture/bundles.
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "capture/bundle_archive.h"
#include "capture/bundle_writer.h"
#include "capture/capture.h"
#include "capture/manifest_json.h"
#include "capture/records_jsonl.h"
#include "capture/testing/manifest_samples.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::capture {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kElf[] = "/usr/bin/true";
constexpr char kElfBuildId[] = "c89156ebdabf859f4ee70cb0c303004dccf1ae51";

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

std::string Read(const std::string& path) {
  auto text = ReadFileToString(path);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

std::string Pattern(size_t size, uint32_t seed) {
  std::string data(size, '\0');
  uint32_t x = seed * 2654435761u + 1;
  for (char& c : data) {
    x = x * 1103515245 + 12345;
    c = static_cast<char>(x >> 24);
  }
  return data;
}

// A bundle with everything: three CPU buffers, records of every type, one
// bundled ELF, ground truth and a memory dump among the extra files.
BundleContents FullContents() {
  BundleContents contents;
  contents.manifest = FullPtManifest();
  contents.manifest.buffers.clear();
  contents.manifest.images.clear();
  contents.manifest.memory.clear();
  for (uint32_t i = 0; i < 3; ++i) {
    BufferContents buffer;
    buffer.info.id = 7 + i;
    buffer.info.cpu = static_cast<int32_t>(i);
    buffer.info.wrapped = i == 1;
    buffer.data = Pattern(0x3000 + i, i);
    if (i == 0) {
      buffer.info.chunks.push_back({0, 0x1000, false, false, false});
      buffer.info.chunks.push_back({0x1000, 0x2000, true, false, false});
    }
    contents.buffers.push_back(std::move(buffer));
  }
  contents.records = AllRecordTypes(RecordNumbering::kCheriBsd);
  for (Record& record : contents.records) {
    for (BufferPosition& position : record.positions) {
      position.offset = std::min<uint64_t>(position.offset, 0x3000);
    }
  }
  contents.images.push_back({kElf, "/bin/true", ""});
  contents.extra_files.push_back({"truth/steps.txt", "ground truth\n"});
  contents.extra_files.push_back({"mem/vdso.bin", Pattern(0x2000, 9)});
  MemoryDump dump;
  dump.file = "mem/vdso.bin";
  dump.address = 0x7ffff7fc1000;
  dump.size = 0x2000;
  contents.manifest.memory.push_back(dump);
  return contents;
}

class BundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("hwt-bundle-test");
    ASSERT_TRUE(dir.ok());
    dir_.emplace(std::move(*dir));
    // Packed bundles unpack under $TMPDIR: keep it private to see leftovers.
    tmp_ = dir_->path() + "/tmp";
    ASSERT_EQ(mkdir(tmp_.c_str(), 0700), 0);
    const char* old = getenv("TMPDIR");
    old_tmpdir_ =
        old != nullptr ? std::optional<std::string>(old) : std::nullopt;
    setenv("TMPDIR", tmp_.c_str(), 1);
    out_ = dir_->path() + "/out";
    ASSERT_EQ(mkdir(out_.c_str(), 0755), 0);
  }
  void TearDown() override {
    if (old_tmpdir_) {
      setenv("TMPDIR", old_tmpdir_->c_str(), 1);
    } else {
      unsetenv("TMPDIR");
    }
  }

  // Checks that an opened capture holds exactly `contents`.
  void ExpectHolds(const Capture& capture, const BundleContents& contents) {
    const Manifest& m = capture.manifest();
    Manifest expected = contents.manifest;
    expected.buffers.clear();
    for (const BufferContents& b : contents.buffers) {
      BufferInfo info = b.info;
      info.file = absl::StrCat("buffers/", info.id, ".bin");
      info.size = b.data.size();
      expected.buffers.push_back(info);
    }
    expected.images = {
        {kElfBuildId, "/bin/true", absl::StrCat("images/", kElfBuildId)}};
    ExpectSameManifest(m, expected);
    ExpectSameRecords(capture.records(), contents.records);
    for (size_t i = 0; i < contents.buffers.size(); ++i) {
      auto mapped = capture.MapBuffer(i);
      ASSERT_TRUE(mapped.ok()) << mapped.status();
      EXPECT_EQ(std::string(reinterpret_cast<const char*>(mapped->data()),
                            mapped->size()),
                contents.buffers[i].data);
    }
    auto image = capture.ResolveImage("/bin/true", kElfBuildId);
    ASSERT_TRUE(image.has_value());
    EXPECT_EQ(Read(*image), Read(kElf));
    EXPECT_EQ(Read(capture.root() + "/truth/steps.txt"), "ground truth\n");
  }

  std::optional<TempDir> dir_;
  std::string tmp_;
  std::string out_;
  std::optional<std::string> old_tmpdir_;
};

TEST_F(BundleTest, WriteThenOpenDirectory) {
  BundleContents contents = FullContents();
  std::string bundle = out_ + "/x.hwt";
  ASSERT_TRUE(WriteBundle(bundle, contents).ok());
  // Only the bundle remains: no temporary directory.
  EXPECT_EQ(ListDir(out_), std::vector<std::string>{"x.hwt"});
  EXPECT_EQ(ListDir(bundle),
            (std::vector<std::string>{"buffers", "images", "manifest.json",
                                      "mem", "records.jsonl", "truth"}));
  auto capture = OpenCapture(bundle, {});
  ASSERT_TRUE(capture.ok()) << capture.status();
  EXPECT_EQ((*capture)->kind(), InputKind::kBundleDirectory);
  EXPECT_EQ((*capture)->source_path(), bundle);
  ExpectHolds(**capture, contents);
  // The records file is the specification's JSON lines.
  EXPECT_EQ(Read(bundle + "/records.jsonl"),
            RecordsToJsonl(contents.records, RecordNumbering::kCheriBsd));
}

TEST_F(BundleTest, SameBuildIdIsCopiedOnce) {
  BundleContents contents = FullContents();
  contents.images.push_back({kElf, "/rescue/true", ""});
  std::string bundle = out_ + "/x.hwt";
  ASSERT_TRUE(WriteBundle(bundle, contents).ok());
  EXPECT_EQ(ListDir(bundle + "/images"), std::vector<std::string>{kElfBuildId});
  auto capture = OpenCapture(bundle, {});
  ASSERT_TRUE(capture.ok()) << capture.status();
  ASSERT_EQ((*capture)->manifest().images.size(), 2u);
  EXPECT_EQ((*capture)->manifest().images[1].original_path, "/rescue/true");
  EXPECT_EQ((*capture)->manifest().images[1].file,
            (*capture)->manifest().images[0].file);
}

TEST_F(BundleTest, ExistingDirectoryIsKeptUnlessOverwriting) {
  std::string bundle = out_ + "/x.hwt";
  BundleContents first = FullContents();
  ASSERT_TRUE(WriteBundle(bundle, first).ok());
  BundleContents second = FullContents();
  second.buffers.resize(1);
  second.buffers[0].data = "new";
  second.buffers[0].info.chunks.clear();
  second.records.clear();
  absl::Status status = WriteBundle(bundle, second);
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(Read(bundle + "/buffers/7.bin"), first.buffers[0].data);
  ASSERT_TRUE(WriteBundle(bundle, second, /*overwrite=*/true).ok());
  EXPECT_EQ(Read(bundle + "/buffers/7.bin"), "new");
  EXPECT_FALSE(Exists(bundle + "/buffers/8.bin"));
  EXPECT_EQ(ListDir(out_), std::vector<std::string>{"x.hwt"});
  // A directory that is not a bundle is never replaced.
  std::string other = out_ + "/not-a-bundle";
  ASSERT_EQ(mkdir(other.c_str(), 0755), 0);
  ASSERT_TRUE(WriteFileAtomically(other + "/precious", "data").ok());
  status = WriteBundle(other, second, /*overwrite=*/true);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(Read(other + "/precious"), "data");
}

TEST_F(BundleTest, FailedWritesLeaveNothing) {
  std::string bundle = out_ + "/x.hwt";
  // A missing image is found while copying, after files were written.
  BundleContents missing = FullContents();
  missing.images.push_back({"/nonexistent/lib.so", "/lib/lib.so", "ab12"});
  absl::Status status = WriteBundle(bundle, missing);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("/nonexistent/lib.so"));
  EXPECT_TRUE(ListDir(out_).empty());

  // Invalid contents are refused before anything is written.
  BundleContents duplicate = FullContents();
  duplicate.buffers[1].info.id = duplicate.buffers[0].info.id;
  status = WriteBundle(bundle, duplicate);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("buffers[1].id: duplicate buffer id 7"));
  BundleContents escaping = FullContents();
  escaping.extra_files.push_back({"../escape.txt", "x"});
  status = WriteBundle(bundle, escaping);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("leaves the bundle directory"));
  BundleContents reserved = FullContents();
  reserved.extra_files.push_back({"manifest.json", "{}"});
  EXPECT_FALSE(WriteBundle(bundle, reserved).ok());
  BundleContents bad_record = FullContents();
  bad_record.records[0].positions.push_back({99, 0});
  status = WriteBundle(bundle, bad_record);
  EXPECT_THAT(std::string(status.message()), HasSubstr("no buffer with id 99"));
  BundleContents orphan_dump = FullContents();
  orphan_dump.extra_files.pop_back();
  status = WriteBundle(bundle, orphan_dump);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("memory[0].file: \"mem/vdso.bin\" is not among the "
                        "bundle's extra files"));
  BundleContents not_elf = FullContents();
  not_elf.images.push_back({"/etc/hostname", "/etc/hostname", ""});
  EXPECT_FALSE(WriteBundle(bundle, not_elf).ok());
  EXPECT_TRUE(ListDir(out_).empty());
}

TEST_F(BundleTest, InterruptedWriteLeavesNothing) {
  // The child blocks copying an "image" that is a FIFO nobody writes to, is
  // killed by SIGTERM, and must remove its temporary directory on the way.
  std::string fifo = dir_->path() + "/image.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string bundle = out_ + "/x.hwt";
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    BundleContents contents = FullContents();
    contents.images.push_back({fifo, "/lib/blocked.so", "abcd"});
    absl::Status status = WriteBundle(bundle, contents);
    _exit(status.ok() ? 0 : 1);
  }
  bool temp_seen = false;
  for (int i = 0; i < 1000 && !temp_seen; ++i) {
    for (const std::string& name : ListDir(out_)) {
      temp_seen |= absl::StartsWith(name, ".x.hwt.tmp.");
    }
    if (!temp_seen) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // Wait until the child is blocked on the FIFO (its buffers are written).
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  kill(child, SIGTERM);
  int wstatus = 0;
  ASSERT_EQ(waitpid(child, &wstatus, 0), child);
  EXPECT_TRUE(temp_seen);
  EXPECT_TRUE(WIFSIGNALED(wstatus));
  EXPECT_EQ(ListDir(out_), std::vector<std::string>{});
}

TEST_F(BundleTest, PackedBundlesReadLikeTheDirectory) {
  BundleContents contents = FullContents();
  std::string bundle = out_ + "/x.hwt";
  ASSERT_TRUE(WriteBundle(bundle, contents).ok());
  for (const char* name : {"x.hwt.tar", "x.hwt.tar.zst", "x.hwt.tgz"}) {
    SCOPED_TRACE(name);
    std::string packed = out_ + "/" + name;
    ASSERT_TRUE(PackBundle(bundle, packed).ok());
    // Same bundle, same bytes: packing is deterministic.
    std::string again = out_ + "/again-" + name;
    ASSERT_TRUE(PackBundle(bundle, again).ok());
    EXPECT_EQ(Read(packed), Read(again));
    // Detected by content, not by name.
    std::string renamed = out_ + "/capture.data";
    ASSERT_EQ(rename(packed.c_str(), renamed.c_str()), 0);
    std::string root;
    {
      auto capture = OpenCapture(renamed, {});
      ASSERT_TRUE(capture.ok()) << capture.status();
      EXPECT_EQ((*capture)->kind(), InputKind::kPackedBundle);
      EXPECT_EQ((*capture)->source_path(), renamed);
      ExpectHolds(**capture, contents);
      root = (*capture)->root();
      EXPECT_THAT(root, StartsWith(tmp_ + "/"));
      EXPECT_TRUE(Exists(root + "/manifest.json"));
    }
    // The unpacked copy goes with the Capture.
    EXPECT_FALSE(Exists(root));
    EXPECT_TRUE(ListDir(tmp_).empty());
    unlink(renamed.c_str());
    unlink(again.c_str());
  }
}

// --- Hand-built archives
// ------------------------------------------------------

struct TarEntry {
  std::string name;
  mode_t type = AE_IFREG;
  std::string data;
  std::string link;  // symlink target or hardlink source
};

void WriteTar(const std::string& path, const std::vector<TarEntry>& entries,
              bool zstd = false) {
  archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  if (zstd) archive_write_add_filter_zstd(a);
  ASSERT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK);
  for (const TarEntry& e : entries) {
    archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, e.name.c_str());
    archive_entry_set_filetype(entry, e.type);
    archive_entry_set_perm(entry, 0644);
    if (e.type == AE_IFLNK) archive_entry_set_symlink(entry, e.link.c_str());
    if (!e.link.empty() && e.type == AE_IFREG) {
      archive_entry_set_hardlink(entry, e.link.c_str());
    }
    if (e.type == AE_IFCHR) archive_entry_set_rdev(entry, makedev(1, 3));
    archive_entry_set_size(entry, e.type == AE_IFREG && e.link.empty()
                                      ? static_cast<la_int64_t>(e.data.size())
                                      : 0);
    ASSERT_EQ(archive_write_header(a, entry), ARCHIVE_OK) << e.name;
    if (e.type == AE_IFREG && e.link.empty() && !e.data.empty()) {
      archive_write_data(a, e.data.data(), e.data.size());
    }
    archive_entry_free(entry);
  }
  archive_write_close(a);
  archive_write_free(a);
}

// A valid bundle's files, for building archives around.
std::vector<TarEntry> BundleEntries(const std::string& prefix) {
  Manifest m;
  m.backend = Backend::kPt;
  BufferInfo b;
  b.file = "buffers/0.bin";
  b.size = 5;
  m.buffers.push_back(b);
  return {{prefix + "manifest.json", AE_IFREG, ManifestToJson(m)},
          {prefix + "buffers/0.bin", AE_IFREG,
           std::string("\x02\x82\x02\x82\x00", 5)}};
}

TEST_F(BundleTest, ArchiveWithManifestAtTheTop) {
  std::string packed = out_ + "/top.tar.zst";
  WriteTar(packed, BundleEntries(""), /*zstd=*/true);
  auto capture = OpenCapture(packed, {});
  ASSERT_TRUE(capture.ok()) << capture.status();
  EXPECT_EQ((*capture)->manifest().buffers[0].size, 5u);
}

TEST_F(BundleTest, HostileArchivesAreRefused) {
  // Targets that an unsafe unpacker would create, relative to the unpack
  // directory under tmp_ (tmp_/hwt-capture.XXXXXX).
  const std::string outside = dir_->path() + "/evil";
  struct Case {
    const char* label;
    std::vector<TarEntry> extra;
    const char* error;
  };
  const std::vector<Case> cases = {
      {"dot-dot",
       {{"../../evil", AE_IFREG, "x"}},
       "entry \"../../evil\": path contains \"..\"; refusing to unpack"},
      {"inner dot-dot",
       {{"x.hwt/../../../evil", AE_IFREG, "x"}},
       "entry \"x.hwt/../../../evil\": path contains \"..\""},
      {"absolute", {{outside, AE_IFREG, "x"}}, "absolute path"},
      {"symlink",
       {{"x.hwt/buffers/link", AE_IFLNK, "", outside}},
       "entry \"x.hwt/buffers/link\": symbolic link"},
      {"symlinked dir",
       {{"x.hwt/d", AE_IFLNK, "", dir_->path()},
        {"x.hwt/d/evil", AE_IFREG, "x"}},
       "symbolic link"},
      {"hardlink",
       {{"x.hwt/hard", AE_IFREG, "", "/etc/passwd"}},
       "entry \"x.hwt/hard\": hard link"},
      {"device",
       {{"x.hwt/null", AE_IFCHR, ""}},
       "device, FIFO or other special file"},
      {"fifo",
       {{"x.hwt/fifo", AE_IFIFO, ""}},
       "device, FIFO or other special file"},
      {"duplicate",
       {{"x.hwt/buffers/0.bin", AE_IFREG, "again"}},
       "entry \"x.hwt/buffers/0.bin\": the path appears twice"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    std::vector<TarEntry> entries = BundleEntries("x.hwt/");
    entries.insert(entries.end(), c.extra.begin(), c.extra.end());
    std::string packed = out_ + "/hostile.tar";
    WriteTar(packed, entries);
    auto capture = OpenCapture(packed, {});
    ASSERT_FALSE(capture.ok());
    EXPECT_EQ(capture.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(capture.status().message()),
                StartsWith(packed + ": "));
    EXPECT_THAT(std::string(capture.status().message()), HasSubstr(c.error));
    EXPECT_FALSE(Exists(outside));
    EXPECT_FALSE(Exists(tmp_ + "/evil"));
    EXPECT_FALSE(Exists(dir_->path() + "/d"));
    // The partial unpack is gone too.
    EXPECT_TRUE(ListDir(tmp_).empty());
    unlink(packed.c_str());
  }
}

TEST_F(BundleTest, UnpackLimits) {
  std::string packed = out_ + "/big.tar";
  std::vector<TarEntry> entries = BundleEntries("x.hwt/");
  entries.push_back({"x.hwt/truth/big", AE_IFREG, std::string(100000, 'a')});
  WriteTar(packed, entries);
  std::string dest = out_ + "/dest";
  auto fresh_dest = [&] {
    std::error_code ignored;
    std::filesystem::remove_all(dest, ignored);
    ASSERT_EQ(mkdir(dest.c_str(), 0755), 0);
  };
  fresh_dest();
  UnpackLimits limits;
  EXPECT_TRUE(UnpackArchive(packed, dest, limits).ok());
  fresh_dest();
  limits.max_entry_bytes = 50000;
  EXPECT_THAT(std::string(UnpackArchive(packed, dest, limits).message()),
              HasSubstr("entry \"x.hwt/truth/big\": 100000 bytes is above the "
                        "50000-byte limit"));
  fresh_dest();
  limits = UnpackLimits();
  limits.max_total_bytes = 60000;
  EXPECT_THAT(std::string(UnpackArchive(packed, dest, limits).message()),
              HasSubstr("more than 60000 bytes of unpacked data"));
  fresh_dest();
  limits = UnpackLimits();
  limits.max_entries = 2;
  EXPECT_THAT(std::string(UnpackArchive(packed, dest, limits).message()),
              HasSubstr("more than 2 entries"));
  fresh_dest();
  limits = UnpackLimits();
  limits.max_depth = 1;
  EXPECT_THAT(std::string(UnpackArchive(packed, dest, limits).message()),
              HasSubstr("path too deep"));
}

TEST_F(BundleTest, ArchiveWithoutManifest) {
  std::string packed = out_ + "/empty.tar";
  WriteTar(packed,
           {{"a/readme", AE_IFREG, "hello"}, {"b/readme", AE_IFREG, "hello"}});
  auto capture = OpenCapture(packed, {});
  ASSERT_FALSE(capture.ok());
  EXPECT_THAT(std::string(capture.status().message()),
              HasSubstr("packed bundle without manifest.json"));
  EXPECT_TRUE(ListDir(tmp_).empty());
}

// --- Raw files and other inputs
// -------------------------------------------------

TEST_F(BundleTest, RawPtFile) {
  HWT_REQUIRE_CORPUS(corpus);
  std::string file = corpus + "/libipt-pttc/apl11.pt";
  InputOptions options;
  auto cpu = ParseCpuSpec("6/92/9");
  ASSERT_TRUE(cpu.ok());
  options.cpu = *cpu;
  options.images.push_back({"/usr/bin/true", 0x400000});
  auto capture = OpenCapture(file, options);
  ASSERT_TRUE(capture.ok()) << capture.status();
  const Capture& c = **capture;
  EXPECT_EQ(c.kind(), InputKind::kRawFile);
  EXPECT_EQ(c.manifest().backend, Backend::kPt);
  EXPECT_EQ(c.manifest().mode, TraceMode::kThread);
  ASSERT_EQ(c.manifest().buffers.size(), 1u);
  EXPECT_EQ(c.BufferPath(0), file);
  EXPECT_EQ(c.manifest().buffers[0].size, Read(file).size());
  EXPECT_EQ(c.manifest().cpu.family, 6u);
  EXPECT_EQ(c.manifest().cpu.model, 92u);
  EXPECT_EQ(c.manifest().cpu.stepping, 9u);
  ASSERT_EQ(c.options().images.size(), 1u);
  EXPECT_TRUE(c.records().empty());
}

TEST_F(BundleTest, RawCoreSightFileGetsItsFormatting) {
  HWT_REQUIRE_CORPUS(corpus);
  auto formatted = OpenCapture(
      corpus + "/ricseclab-coresight/branches/trace1/cstrace.bin", {});
  ASSERT_TRUE(formatted.ok()) << formatted.status();
  const Manifest& m = (*formatted)->manifest();
  EXPECT_EQ(m.backend, Backend::kCoreSight);
  ASSERT_TRUE(m.coresight.has_value());
  EXPECT_TRUE(m.coresight->formatted);
  EXPECT_EQ(m.coresight->sink, "etr");
  ASSERT_EQ(m.coresight->sources.size(), 1u);
  EXPECT_EQ(m.coresight->sources[0].trace_id, 0x10u);
  InputOptions options;
  options.backend = Backend::kCoreSight;
  auto raw = OpenCapture(
      corpus + "/opencsd/snapshots-ete/001-ack_test/session1.bin", options);
  ASSERT_TRUE(raw.ok()) << raw.status();
  EXPECT_FALSE((*raw)->manifest().coresight->formatted);
  EXPECT_EQ((*raw)->manifest().coresight->sink, "raw");
}

TEST_F(BundleTest, RawFileProblems) {
  std::string random = out_ + "/random.bin";
  ASSERT_TRUE(WriteFileAtomically(random, Pattern(4096, 1)).ok());
  auto capture = OpenCapture(random, {});
  ASSERT_FALSE(capture.ok());
  EXPECT_EQ(capture.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(capture.status().message()),
              HasSubstr("--backend pt|coresight|spe"));
  // With --backend the bytes are taken as given.
  InputOptions options;
  options.backend = Backend::kSpe;
  auto forced = OpenCapture(random, options);
  ASSERT_TRUE(forced.ok()) << forced.status();
  EXPECT_EQ((*forced)->manifest().backend, Backend::kSpe);

  std::string empty = out_ + "/empty.bin";
  ASSERT_TRUE(WriteFileAtomically(empty, "").ok());
  EXPECT_THAT(std::string(OpenCapture(empty, {}).status().message()),
              HasSubstr("empty file"));

  // zstd data that is not a tar archive.
  std::string zst = out_ + "/trace.bin.zst";
  std::string data("\x28\xb5\x2f\xfd", 4);
  data += Pattern(1000, 2);
  ASSERT_TRUE(WriteFileAtomically(zst, data).ok());
  EXPECT_THAT(std::string(OpenCapture(zst, {}).status().message()),
              HasSubstr("zstd-compressed data but holds no tar archive"));
}

TEST_F(BundleTest, OtherInputs) {
  auto missing = OpenCapture(out_ + "/nothing.hwt", {});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(),
            out_ + "/nothing.hwt: no such file or directory");
  auto plain_dir = OpenCapture(out_, {});
  EXPECT_EQ(plain_dir.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(plain_dir.status().message()),
              HasSubstr("neither a capture bundle"));
  HWT_REQUIRE_CORPUS(corpus);
  auto snapshot = OpenCapture(corpus + "/opencsd/snapshots/TC2", {});
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_EQ((*snapshot)->kind(), InputKind::kOpenCsdSnapshot);
  EXPECT_EQ((*snapshot)->manifest().backend, Backend::kCoreSight);
}

TEST_F(BundleTest, OptionsAgainstTheManifest) {
  std::string bundle = out_ + "/x.hwt";
  ASSERT_TRUE(WriteBundle(bundle, FullContents()).ok());
  InputOptions wrong;
  wrong.backend = Backend::kSpe;
  auto mismatch = OpenCapture(bundle, wrong);
  EXPECT_THAT(std::string(mismatch.status().message()),
              HasSubstr("--backend spe contradicts the capture's backend pt"));
  // --cpu F/M/S replaces family/model/stepping and keeps CPUID 0x15.
  InputOptions cpu;
  cpu.cpu = *ParseCpuSpec("6/85/4");
  auto capture = OpenCapture(bundle, cpu);
  ASSERT_TRUE(capture.ok()) << capture.status();
  const CpuIdentity& identity = (*capture)->manifest().cpu;
  EXPECT_EQ(identity.family, 6u);
  EXPECT_EQ(identity.model, 85u);
  EXPECT_EQ(identity.stepping, 4u);
  EXPECT_EQ(identity.cpuid_15_ebx, FullPtManifest().cpu.cpuid_15_ebx);
  EXPECT_EQ(identity.nominal_frequency_hz,
            FullPtManifest().cpu.nominal_frequency_hz);
}

// --- Golden bundles
// -------------------------------------------------------------

TEST(GoldenBundleTest, ValidAndBrokenBundles) {
  const std::string dir =
      hwt::testing::SourceDir() + "/testdata/capture/bundles";
  int broken = 0;
  for (const std::string& name : ListDir(dir)) {
    if (!absl::EndsWith(name, ".hwt")) continue;
    SCOPED_TRACE(name);
    std::string base = name.substr(0, name.size() - 4);
    auto capture = OpenCapture(dir + "/" + name, {});
    auto expected = ReadFileToString(dir + "/" + base + ".error");
    if (!expected.ok()) {
      EXPECT_TRUE(capture.ok()) << capture.status();
      continue;
    }
    ++broken;
    std::string want = *expected;
    while (!want.empty() && want.back() == '\n') want.pop_back();
    ASSERT_FALSE(capture.ok());
    EXPECT_EQ(std::string(capture.status().message()), dir + "/" + want);
  }
  EXPECT_GE(broken, 4);
}

TEST(GoldenBundleTest, ValidBundleContents) {
  auto capture = OpenCapture(
      hwt::testing::SourceDir() + "/testdata/capture/bundles/valid.hwt", {});
  ASSERT_TRUE(capture.ok()) << capture.status();
  const Capture& c = **capture;
  EXPECT_EQ(c.manifest().backend, Backend::kPt);
  ASSERT_EQ(c.records().size(), 3u);
  EXPECT_EQ(c.records()[0].type, RecordType::kExecutable);
  EXPECT_EQ(c.records()[0].positions[0].offset, 0u);
  EXPECT_EQ(c.records()[1].type, RecordType::kMmap);
  EXPECT_EQ(c.records()[1].positions[0].offset, 0x20u);
  EXPECT_EQ(c.records()[2].type, RecordType::kMunmap);
  auto mapped = c.MapBuffer(0);
  ASSERT_TRUE(mapped.ok());
  EXPECT_EQ(mapped->size(), 64u);
}

}  // namespace
}  // namespace hwt::capture
