// Separate debug files: a stripped program must symbolize exactly like the
// unstripped one once its debug file (made with objcopy --only-keep-debug)
// is found by build-id or by .gnu_debuglink in each standard place; stale
// files (wrong CRC or build-id) must be refused.
#include <sys/stat.h>

#include <filesystem>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "symbolizer/debug_file_finder.h"
#include "symbolizer/symbolizer.h"
#include "symbolizer/testing/binutils_truth.h"
#include "symbolizer/testing/test_programs.h"

namespace hwt::symbolizer {
namespace {

namespace st = ::hwt::symbolizer::testing;
namespace fs = std::filesystem;

// The programs: with build-id (`full`) and without (`full_nobid`), their
// debug files and stripped copies, the latter with a .gnu_debuglink.
struct Programs {
  std::string full, debug, stripped;
  std::string full_nobid, debug_nobid, stripped_link;
  std::string build_id;
  std::string error;
};

bool Step(const std::vector<std::string>& argv, std::string* error) {
  return st::Run(argv, nullptr, error);
}

const Programs& GetPrograms() {
  static const Programs programs = [] {
    Programs p;
    const std::string dir = st::BuildDir();
    p.full = st::BuildProgram("dbg_full", "inline_prog.c",
                              {"-g", "-O2", "-Wl,--build-id"}, &p.error);
    p.full_nobid =
        st::BuildProgram("dbg_nobid", "inline_prog.c",
                         {"-g", "-O2", "-Wl,--build-id=none"}, &p.error);
    if (p.full.empty() || p.full_nobid.empty()) return p;
    p.debug = dir + "/dbg_full.debug";
    p.stripped = dir + "/dbg_full.stripped";
    p.debug_nobid = dir + "/inline_prog.debug";
    p.stripped_link = dir + "/dbg_nobid.stripped";
    if (!Step({"objcopy", "--only-keep-debug", p.full, p.debug}, &p.error) ||
        !Step({"strip", "--strip-all", "-o", p.stripped, p.full}, &p.error) ||
        !Step({"objcopy", "--only-keep-debug", p.full_nobid, p.debug_nobid},
              &p.error) ||
        !Step({"strip", "--strip-all", "-o", p.stripped_link, p.full_nobid},
              &p.error) ||
        !Step({"objcopy", "--add-gnu-debuglink=" + p.debug_nobid,
               p.stripped_link},
              &p.error)) {
      p.full.clear();
      return p;
    }
    std::string notes;
    st::Run({"readelf", "-n", p.full}, &notes);
    const size_t at = notes.find("Build ID: ");
    if (at != std::string::npos) {
      p.build_id = notes.substr(at + 10, 40);
    }
    return p;
  }();
  return programs;
}

#define REQUIRE_PROGRAMS(p)                \
  const Programs& p = GetPrograms();       \
  ASSERT_FALSE(p.full.empty()) << p.error; \
  ASSERT_EQ(p.build_id.size(), 40u) << p.full

// A fresh directory under the build dir.
std::string NewDir(const std::string& name) {
  const std::string dir = st::BuildDir() + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void Place(const std::string& from, const std::string& to) {
  fs::create_directories(fs::path(to).parent_path());
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

SymbolizerOptions Options(const std::string& sysroot,
                          std::vector<std::string> debug_dirs = {}) {
  SymbolizerOptions options;
  options.sysroot = sysroot;
  options.debug_dirs = std::move(debug_dirs);
  return options;
}

// `stripped` (with its debug file found) symbolizes like `full`.
void ExpectSameAsUnstripped(Symbolizer& with_debug, const std::string& full) {
  auto reference = Symbolizer::Create(Options(st::BuildDir() + "/none"));
  ASSERT_TRUE(reference->AddImage(1, full, "/usr/bin/inline_prog").ok());
  uint64_t text = 0, text_size = 0;
  for (const st::RefSection& s : st::ReadSections(full)) {
    if (s.name == ".text") {
      text = s.addr;
      text_size = s.size;
    }
  }
  ASSERT_GT(text_size, 0u);
  for (uint64_t a = text; a < text + text_size; ++a) {
    const FunctionSymbol* want = reference->FunctionFor(1, a);
    const FunctionSymbol* got = with_debug.FunctionFor(1, a);
    ASSERT_EQ(want == nullptr, got == nullptr) << absl::StrFormat("0x%x", a);
    if (want == nullptr) continue;
    ASSERT_EQ(got->raw_name, want->raw_name) << absl::StrFormat("0x%x", a);
    ASSERT_EQ(got->start, want->start);
    ASSERT_EQ(got->size, want->size);
  }
  for (const char* function : {"compute", "hash_args", "main"}) {
    for (uint64_t a : st::InstructionAddresses(full, function)) {
      const std::vector<Frame>& want = reference->Symbolize(1, a);
      const std::vector<Frame>& got = with_debug.Symbolize(1, a);
      ASSERT_EQ(got.size(), want.size()) << absl::StrFormat("0x%x", a);
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].function, want[i].function);
        EXPECT_EQ(got[i].file, want[i].file);
        EXPECT_EQ(got[i].line, want[i].line);
      }
    }
  }
}

TEST(DebugFileTest, StrippedWithoutDebugFileHasDynsymOnly) {
  REQUIRE_PROGRAMS(p);
  auto symbolizer = Symbolizer::Create(Options(NewDir("empty_root")));
  ASSERT_TRUE(symbolizer->AddImage(1, p.stripped, "/usr/bin/inline_prog").ok());
  const ImageInfo* info = symbolizer->GetImageInfo(1);
  EXPECT_EQ(info->debug_file, "");
  EXPECT_NE(info->symbol_source, ImageInfo::SymbolSource::kSymtab);
  EXPECT_NE(info->symbol_source, ImageInfo::SymbolSource::kDebugFileSymtab);
  EXPECT_FALSE(info->has_dwarf);
  EXPECT_EQ(info->build_id, p.build_id);
}

TEST(DebugFileTest, FoundByBuildIdUnderSysroot) {
  REQUIRE_PROGRAMS(p);
  const std::string root = NewDir("root_build_id");
  const std::string where =
      absl::StrFormat("%s/usr/lib/debug/.build-id/%s/%s.debug", root,
                      p.build_id.substr(0, 2), p.build_id.substr(2));
  Place(p.debug, where);
  auto symbolizer = Symbolizer::Create(Options(root));
  ASSERT_TRUE(symbolizer->AddImage(1, p.stripped, "/usr/bin/inline_prog").ok());
  const ImageInfo* info = symbolizer->GetImageInfo(1);
  EXPECT_EQ(info->debug_file, where);
  EXPECT_EQ(info->symbol_source, ImageInfo::SymbolSource::kDebugFileSymtab);
  EXPECT_TRUE(info->has_dwarf);
  ExpectSameAsUnstripped(*symbolizer, p.full);
}

TEST(DebugFileTest, FoundByBuildIdInExtraDebugDir) {
  REQUIRE_PROGRAMS(p);
  const std::string dir = NewDir("extra_debug_dir");
  const std::string where =
      absl::StrFormat("%s/.build-id/%s/%s.debug", dir, p.build_id.substr(0, 2),
                      p.build_id.substr(2));
  Place(p.debug, where);
  auto symbolizer = Symbolizer::Create(Options(NewDir("empty_root2"), {dir}));
  ASSERT_TRUE(symbolizer->AddImage(1, p.stripped, "/usr/bin/inline_prog").ok());
  EXPECT_EQ(symbolizer->GetImageInfo(1)->debug_file, where);
  ExpectSameAsUnstripped(*symbolizer, p.full);
}

// Where the .gnu_debuglink file is put, relative to a case directory D that
// holds the image as D/app/inline_prog (seen as /opt/app/inline_prog).
struct LinkCase {
  const char* name;
  const char* place;  // relative to D
  bool sysroot;       // D is the sysroot
  bool debug_dir;     // D/dd is an extra debug dir
};

class DebugLinkTest : public ::testing::TestWithParam<LinkCase> {};

TEST_P(DebugLinkTest, FoundAndUsed) {
  REQUIRE_PROGRAMS(p);
  const LinkCase& c = GetParam();
  const std::string d = NewDir(std::string("link_") + c.name);
  const std::string image = d + "/app/inline_prog";
  Place(p.stripped_link, image);
  const std::string where = d + "/" + c.place;
  Place(p.debug_nobid, where);
  SymbolizerOptions options = Options(c.sysroot ? d : st::BuildDir() + "/none");
  if (c.debug_dir) options.debug_dirs.push_back(d + "/dd");
  auto symbolizer = Symbolizer::Create(options);
  ASSERT_TRUE(symbolizer->AddImage(1, image, "/opt/app/inline_prog").ok());
  const ImageInfo* info = symbolizer->GetImageInfo(1);
  EXPECT_EQ(info->build_id, "");
  EXPECT_EQ(fs::weakly_canonical(info->debug_file),
            fs::weakly_canonical(where));
  EXPECT_EQ(info->symbol_source, ImageInfo::SymbolSource::kDebugFileSymtab);
  ExpectSameAsUnstripped(*symbolizer, p.full_nobid);
}

INSTANTIATE_TEST_SUITE_P(
    Places, DebugLinkTest,
    ::testing::Values(
        LinkCase{"dot_debug", "app/.debug/inline_prog.debug", false, false},
        LinkCase{"same_dir", "app/inline_prog.debug", false, false},
        LinkCase{"global_dir", "usr/lib/debug/opt/app/inline_prog.debug", true,
                 false},
        LinkCase{"debug_dir_tree", "dd/opt/app/inline_prog.debug", false, true},
        LinkCase{"debug_dir_flat", "dd/inline_prog.debug", false, true}),
    [](const ::testing::TestParamInfo<LinkCase>& info) {
      return std::string(info.param.name);
    });

TEST(DebugFileTest, DebugLinkWithWrongCrcIsRefused) {
  REQUIRE_PROGRAMS(p);
  const std::string d = NewDir("link_bad_crc");
  const std::string image = d + "/app/inline_prog";
  Place(p.stripped_link, image);
  // Right name, wrong contents: the build-id program's debug file.
  Place(p.debug, d + "/app/.debug/inline_prog.debug");
  std::vector<std::string> rejected;
  DebugFileQuery query;
  query.image_file = image;
  query.display_path = "/opt/app/inline_prog";
  {
    auto elf = ElfImage::Open(image);
    ASSERT_TRUE(elf.ok());
    query.debug_link = (*elf)->debug_link();
  }
  ASSERT_TRUE(query.debug_link.has_value());
  EXPECT_EQ(query.debug_link->file, "inline_prog.debug");
  EXPECT_FALSE(FindDebugFile(query, {st::BuildDir() + "/none", {}}, &rejected)
                   .has_value());
  ASSERT_EQ(rejected.size(), 1u);
  EXPECT_THAT(rejected[0], ::testing::HasSubstr("CRC32"));

  auto symbolizer = Symbolizer::Create(Options(st::BuildDir() + "/none"));
  ASSERT_TRUE(symbolizer->AddImage(1, image, "/opt/app/inline_prog").ok());
  EXPECT_EQ(symbolizer->GetImageInfo(1)->debug_file, "");
  EXPECT_FALSE(symbolizer->GetImageInfo(1)->has_dwarf);
}

TEST(DebugFileTest, BuildIdMismatchIsRefused) {
  REQUIRE_PROGRAMS(p);
  const std::string root = NewDir("root_wrong_id");
  // The other program's debug file (no build-id) at this build-id's path.
  Place(p.debug_nobid,
        absl::StrFormat("%s/usr/lib/debug/.build-id/%s/%s.debug", root,
                        p.build_id.substr(0, 2), p.build_id.substr(2)));
  auto symbolizer = Symbolizer::Create(Options(root));
  ASSERT_TRUE(symbolizer->AddImage(1, p.stripped, "/usr/bin/inline_prog").ok());
  EXPECT_EQ(symbolizer->GetImageInfo(1)->debug_file, "");
}

TEST(DebugFileTest, DebugFileSymbolsOffKeepsDynsymButUsesDwarf) {
  REQUIRE_PROGRAMS(p);
  const std::string root = NewDir("root_no_debug_symbols");
  Place(p.debug,
        absl::StrFormat("%s/usr/lib/debug/.build-id/%s/%s.debug", root,
                        p.build_id.substr(0, 2), p.build_id.substr(2)));
  SymbolizerOptions options = Options(root);
  options.debug_file_symbols = false;
  auto symbolizer = Symbolizer::Create(options);
  ASSERT_TRUE(symbolizer->AddImage(1, p.stripped, "/usr/bin/inline_prog").ok());
  const ImageInfo* info = symbolizer->GetImageInfo(1);
  EXPECT_NE(info->debug_file, "");
  EXPECT_TRUE(info->has_dwarf);
  EXPECT_NE(info->symbol_source, ImageInfo::SymbolSource::kDebugFileSymtab);
  // compute is not exported: unknown to the symbol tables, known to DWARF.
  const std::vector<uint64_t> addresses =
      st::InstructionAddresses(p.full, "compute");
  ASSERT_FALSE(addresses.empty());
  EXPECT_EQ(symbolizer->FunctionFor(1, addresses[0]), nullptr);
  const std::vector<Frame>& frames = symbolizer->Symbolize(1, addresses[0]);
  EXPECT_EQ(frames.back().function,
            absl::StrFormat("[inline_prog+0x%x]", addresses[0]));
  EXPECT_GT(frames.back().line, 0u);
}

TEST(DebugFileTest, CandidateOrder) {
  DebugFileQuery query;
  query.image_file = "/x/app/prog";
  query.display_path = "/opt/app/prog";
  query.build_id = "abcdef";
  query.debug_link = ElfDebugLink{"prog.debug", 0};
  EXPECT_THAT(
      DebugFileCandidates(query, {"/sr", {"/dd"}}),
      ::testing::ElementsAre(
          "/sr/usr/lib/debug/.build-id/ab/cdef.debug",
          "/dd/.build-id/ab/cdef.debug", "/sr/usr/lib/debug/opt/app/prog.debug",
          "/sr/usr/lib/debug/x/app/prog.debug", "/dd/opt/app/prog.debug",
          "/dd/x/app/prog.debug", "/x/app/.debug/prog.debug",
          "/x/app/prog.debug", "/sr/opt/app/.debug/prog.debug",
          "/sr/opt/app/prog.debug", "/dd/prog.debug"));
  query.debug_link.reset();
  EXPECT_THAT(DebugFileCandidates(query, {"", {}}),
              ::testing::ElementsAre("/usr/lib/debug/.build-id/ab/cdef.debug"));
}

}  // namespace
}  // namespace hwt::symbolizer
