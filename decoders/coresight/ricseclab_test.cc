// Real ETMv4 user-space captures from RICSecLab's coresight-decoder test
// data: `branches` (every A64 branch kind) and `fib`, four traces each, with
// the ELF images at the load addresses of traceN/decoderargs.txt (mapped as
// --image FILE@BIAS does) and the ETM registers of branches/*.ini.
//  - branches: every edge of expected_edge_coverage.out is taken, and main
//    calls, in order, exactly the functions its `bl` instructions name
//    (names and addresses from nm), each returning to the call site;
//  - fib: main is entered once and returns once, calls nothing, its loop
//    branch is taken 9 times, and all four traces cover the same edges.
#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/str_format.h"
#include "base/testing/test_env.h"
#include "capture/opencsd_snapshot.h"
#include "decoders/coresight/testing/snapshot_decode.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::coresight {
namespace {

struct LoadedImage {
  std::string file;
  uint64_t start = 0;
  uint64_t end = 0;
};

// "<trace> <trcid> <nimg> {file start end}*"
std::vector<LoadedImage> ReadDecoderArgs(const std::string& path) {
  std::ifstream in(path);
  std::string trace, trcid;
  int count = 0;
  in >> trace >> trcid >> count;
  std::vector<LoadedImage> images(count);
  for (LoadedImage& image : images) {
    std::string start, end;
    in >> image.file >> start >> end;
    image.start = std::stoull(start, nullptr, 16);
    image.end = std::stoull(end, nullptr, 16);
  }
  return images;
}

// Symbol name -> address (nm, defined text symbols).
std::map<std::string, uint64_t> TextSymbols(const std::string& elf) {
  auto nm = hwt::testing::RunCommand({"nm", "--defined-only", elf});
  EXPECT_EQ(nm.exit_code, 0) << nm.err;
  std::map<std::string, uint64_t> symbols;
  std::istringstream in(nm.out);
  std::string address, type, name;
  while (in >> address >> type >> name) {
    if (type == "T" || type == "t") {
      symbols[name] = std::stoull(address, nullptr, 16);
    }
  }
  return symbols;
}

std::string SymbolAt(const std::map<std::string, uint64_t>& symbols,
                     uint64_t offset) {
  for (const auto& [name, address] : symbols) {
    if (address == offset) return name;
  }
  return absl::StrFormat("0x%x", offset);
}

// The functions main's `bl` instructions name, in order (from the objdump
// the corpus ships with the program).
std::vector<std::string> CallsInMain(const std::string& objdump) {
  std::ifstream in(objdump);
  std::string line;
  bool in_main = false;
  std::vector<std::string> calls;
  while (std::getline(in, line)) {
    if (line.find("<main>:") != std::string::npos) {
      in_main = true;
      continue;
    }
    if (in_main && line.empty()) break;
    size_t bl = line.find("\tbl\t");
    if (in_main && bl != std::string::npos) {
      size_t open = line.find('<', bl);
      size_t close = line.find('>', open);
      calls.push_back(line.substr(open + 1, close - open - 1));
    }
  }
  return calls;
}

struct TraceResult {
  std::unique_ptr<testing::Decoded> decoded;
  std::vector<Event> blocks;  // trace ID 0x10
  uint64_t base = 0;          // the program's load address
  uint64_t size = 0;
  uint64_t missing_images = 0;
};

TraceResult DecodeTrace(const std::string& corpus, const std::string& program,
                        int trace) {
  TraceResult result;
  const std::string root = corpus + "/ricseclab-coresight";
  // The ETM registers (and trace ID) come from the branches snapshot.
  auto snapshot = capture::OpenOpenCsdSnapshot(root + "/branches", {});
  EXPECT_TRUE(snapshot.ok()) << snapshot.status();
  if (!snapshot.ok()) return result;
  const std::string dir =
      absl::StrFormat("%s/%s/trace%d", root, program, trace);
  capture::Manifest m = (*snapshot)->manifest();
  m.memory.clear();
  m.buffers[0].file = dir + "/cstrace.bin";
  auto data = ReadFileToString(m.buffers[0].file);
  EXPECT_TRUE(data.ok());
  m.buffers[0].size = data.ok() ? data->size() : 0;
  capture::InputOptions options;
  for (const LoadedImage& image : ReadDecoderArgs(dir + "/decoderargs.txt")) {
    // ld.so and libc are shipped once, next to `branches`.
    std::string path = image.file == program
                           ? root + "/" + program + "/" + program
                           : root + "/branches/" + image.file;
    options.images.push_back({path, image.start});
    if (image.file == program) {
      result.base = image.start;
      result.size = image.end - image.start;
    }
  }
  auto capture = std::make_unique<capture::Capture>(
      capture::InputKind::kRawFile, dir, dir, std::move(m),
      std::vector<capture::Record>{}, std::move(options), std::nullopt);
  auto decoded = testing::DecodeCapture(std::move(capture), {});
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  if (!decoded.ok()) return result;
  result.decoded = std::move(*decoded);
  int stream = result.decoded->StreamOf(0x10);
  EXPECT_GE(stream, 0);
  if (stream < 0) return result;
  result.blocks = result.decoded->Blocks(stream);
  for (const DecodeErrorInfo& e :
       result.decoded->decoder->stats()[stream].error_list) {
    if (e.reason == GapReason::kMissingImage) ++result.missing_images;
  }
  return result;
}

// Edges between consecutive blocks inside the program, as offsets.
std::set<std::pair<uint64_t, uint64_t>> ProgramEdges(const TraceResult& r) {
  std::set<std::pair<uint64_t, uint64_t>> edges;
  auto inside = [&](uint64_t a) { return a >= r.base && a < r.base + r.size; };
  for (size_t i = 1; i < r.blocks.size(); ++i) {
    uint64_t from = r.blocks[i - 1].ip;
    uint64_t to = r.blocks[i].ip;
    if (inside(from) && inside(to)) {
      edges.insert({from - r.base, to - r.base});
    }
  }
  return edges;
}

TEST(RicseclabTest, BranchesTrace1MatchesTheSnapshotDecode) {
  HWT_REQUIRE_CORPUS(corpus);
  // The README: the snapshot wrapping trace1 (raw dumps of the three
  // images) decodes to 15053 ranges with no missing memory. The ELF
  // mappings from decoderargs.txt must give exactly the same ranges.
  auto snapshot =
      testing::DecodeSnapshot(corpus + "/ricseclab-coresight/branches");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  auto from_dumps = (*snapshot)->Blocks((*snapshot)->StreamOf(0x10));
  EXPECT_EQ(from_dumps.size(), 15053u);
  TraceResult elf = DecodeTrace(corpus, "branches", 1);
  ASSERT_EQ(elf.blocks.size(), from_dumps.size());
  for (size_t i = 0; i < elf.blocks.size(); ++i) {
    ASSERT_EQ(testing::RangeOf(elf.blocks[i]), testing::RangeOf(from_dumps[i]))
        << i;
  }
  EXPECT_EQ(elf.missing_images, 0u);
  // Blocks name the timeline region (an ELF segment) they ran in.
  for (const Event& b : elf.blocks) ASSERT_NE(b.region, 0u);
}

TEST(RicseclabTest, BranchesCoverTheExpectedEdges) {
  HWT_REQUIRE_CORPUS(corpus);
  const std::string root = corpus + "/ricseclab-coresight/branches";
  std::vector<std::pair<uint64_t, uint64_t>> expected;
  {
    std::ifstream in(root + "/expected_edge_coverage.out");
    std::string from, from_image, arrow, to, to_image;
    while (in >> from >> from_image >> arrow >> to >> to_image) {
      ASSERT_EQ(from_image, "[0]");
      ASSERT_EQ(to_image, "[0]");
      expected.push_back(
          {std::stoull(from, nullptr, 16), std::stoull(to, nullptr, 16)});
    }
  }
  ASSERT_EQ(expected.size(), 42u);
  for (int trace = 1; trace <= 4; ++trace) {
    TraceResult r = DecodeTrace(corpus, "branches", trace);
    ASSERT_FALSE(r.blocks.empty()) << "trace" << trace;
    EXPECT_EQ(r.missing_images, 0u) << "trace" << trace;
    auto edges = ProgramEdges(r);
    size_t present = 0;
    for (const auto& e : expected) {
      EXPECT_TRUE(edges.count(e) != 0)
          << "trace" << trace << ": edge 0x" << std::hex << e.first << " -> 0x"
          << e.second << " not taken";
      present += edges.count(e);
    }
    std::cout << "[ EDGES ] branches trace" << trace << ": " << r.blocks.size()
              << " blocks, " << edges.size()
              << " distinct edges in the program, " << present << " of "
              << expected.size() << " expected edges present\n";
  }
}

TEST(RicseclabTest, BranchesMainCallsWhatTheSourceCalls) {
  HWT_REQUIRE_CORPUS(corpus);
  const std::string root = corpus + "/ricseclab-coresight/branches";
  auto symbols = TextSymbols(root + "/branches");
  ASSERT_TRUE(symbols.count("main"));
  std::vector<std::string> want = CallsInMain(root + "/branches.objdump");
  ASSERT_EQ(want.size(), 11u);
  uint64_t main_start = symbols["main"];
  uint64_t main_end = 0x940;  // main's last instruction (ret) is 0x93c
  for (int trace = 1; trace <= 4; ++trace) {
    TraceResult r = DecodeTrace(corpus, "branches", trace);
    std::vector<std::string> called;
    std::vector<uint64_t> return_addresses;
    for (size_t i = 0; i + 1 < r.blocks.size(); ++i) {
      const Event& b = r.blocks[i];
      uint64_t last = b.last_ip - r.base;
      if (last < main_start || last >= main_end) continue;
      if (!IsCall(b.branch)) continue;
      called.push_back(SymbolAt(symbols, r.blocks[i + 1].ip - r.base));
      return_addresses.push_back(b.next_ip);
    }
    EXPECT_EQ(called, want) << "trace" << trace;
    // Every call comes back: a return whose next block starts at the
    // instruction after the call.
    size_t returned = 0;
    for (size_t i = 0; i + 1 < r.blocks.size(); ++i) {
      if (r.blocks[i].branch != BranchKind::kReturn) continue;
      if (std::find(return_addresses.begin(), return_addresses.end(),
                    r.blocks[i + 1].ip) != return_addresses.end()) {
        ++returned;
      }
    }
    EXPECT_EQ(returned, want.size()) << "trace" << trace;
  }
}

TEST(RicseclabTest, FibMainLoopsAndTracesAgree) {
  HWT_REQUIRE_CORPUS(corpus);
  const std::string root = corpus + "/ricseclab-coresight/fib";
  auto symbols = TextSymbols(root + "/fib");
  ASSERT_TRUE(symbols.count("main"));
  const uint64_t main_start = symbols["main"];
  const uint64_t main_ret = 0x8b0, loop_branch = 0x87c;  // fib.objdump
  EXPECT_TRUE(CallsInMain(root + "/fib.objdump") ==
              std::vector<std::string>{"__stack_chk_fail@plt"});
  std::optional<std::set<std::pair<uint64_t, uint64_t>>> first_edges;
  for (int trace = 1; trace <= 4; ++trace) {
    TraceResult r = DecodeTrace(corpus, "fib", trace);
    ASSERT_FALSE(r.blocks.empty()) << "trace" << trace;
    EXPECT_EQ(r.missing_images, 0u) << "trace" << trace;
    int entered = 0, returned = 0, loop_taken = 0, loop_not_taken = 0;
    int calls_from_main = 0;
    for (size_t i = 0; i < r.blocks.size(); ++i) {
      const Event& b = r.blocks[i];
      if (b.ip == r.base + main_start && i > 0 &&
          IsCall(r.blocks[i - 1].branch)) {
        ++entered;
      }
      uint64_t last = b.last_ip - r.base;
      if (last == main_ret && b.branch == BranchKind::kReturn) ++returned;
      if (last == loop_branch) {
        if (b.branch == BranchKind::kCondTaken) ++loop_taken;
        if (b.branch == BranchKind::kCondNotTaken) ++loop_not_taken;
      }
      if (last >= main_start && last < main_ret && IsCall(b.branch)) {
        ++calls_from_main;
      }
    }
    EXPECT_EQ(entered, 1) << "trace" << trace;
    EXPECT_EQ(returned, 1) << "trace" << trace;
    EXPECT_EQ(calls_from_main, 0) << "trace" << trace;
    // for (i = 2; i <= 10; i++): the b.le back edge is taken 9 times.
    EXPECT_EQ(loop_taken, 9) << "trace" << trace;
    EXPECT_EQ(loop_not_taken, 1) << "trace" << trace;
    auto edges = ProgramEdges(r);
    if (!first_edges) {
      first_edges = edges;
      EXPECT_GT(edges.size(), 5u);
    } else {
      EXPECT_EQ(edges, *first_edges) << "trace" << trace;
    }
  }
}

}  // namespace
}  // namespace hwt::coresight
