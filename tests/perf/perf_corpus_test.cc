// perf.data captures from the corpus through the whole pipeline, against
// third parties:
// - Intel PT (perf 4.14, file and pipe forms): every packet hwt-decode lists
//   equals the packet decode of Linux perf itself (`perf report -D`, its own
//   decoder, independent of libipt): offset, kind and payload.
// - CoreSight ETMv4 (simpleperf): the range and branch counts of the decoded
//   etm_test_loop equal simpleperf's own perf_inject.data for the same trace.
// - The other simpleperf captures give clear reports of what is missing.
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "analysis/branches.h"
#include "analysis/capture_profile.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "capture/elf_file.h"
#include "capture/perf/perf_format.h"
#include "capture/perf/perf_tokenizer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt {
namespace {

using ::hwt::testing::CommandResult;
using ::hwt::testing::RunCommand;
using ::hwt::testing::ToolPath;
using ::testing::HasSubstr;

bool HavePerf() { return RunCommand({"perf", "--version"}, 30).exit_code == 0; }

// One packet, as "OFFSET KIND PAYLOAD" with both listings' payloads in one
// spelling (PAD is left out: perf folds padding into the packet before it).
using Packets = std::map<int, std::vector<std::string>>;  // by stream

std::string Hex(uint64_t v) { return absl::StrFormat("%x", v); }

std::string TntBits(const std::string& marks) {
  std::string out;
  for (char c : marks) out += c == '!' ? 'T' : 'N';
  return out;
}

// The low bits of an IP that a packet with IP compression `ipc` carries.
std::string IpBits(int ipc, const std::string& ip_hex) {
  static const int kDigits[] = {0, 4, 8, 12, 12, 0, 16};
  if (ipc <= 0 || ipc > 6 || kDigits[ipc] == 0) return "none";
  std::string digits = ip_hex.substr(ip_hex.size() - kDigits[ipc]);
  uint64_t v = 0;
  absl::SimpleHexAtoi(digits, &v);
  return Hex(v);
}

// hwt-decode --packets lines: "[S] OFFSET  kind  payload".
Packets OurPackets(const std::string& listing) {
  static const std::regex line(R"(^\[(\d+)\] ([0-9a-f]+)  (\S+)\s*(.*)$)");
  static const std::map<std::string, std::string> kKinds = {
      {"psb", "PSB"},
      {"psbend", "PSBEND"},
      {"tnt.8", "TNT"},
      {"tnt.64", "TNT"},
      {"tip", "TIP"},
      {"tip.pge", "TIP.PGE"},
      {"tip.pgd", "TIP.PGD"},
      {"fup", "FUP"},
      {"mode.exec", "MODE.Exec"},
      {"mode.tsx", "MODE.TSX"},
      {"pip", "PIP"},
      {"tsc", "TSC"},
      {"cbr", "CBR"},
      {"tma", "TMA"},
      {"mtc", "MTC"},
      {"cyc", "CYC"},
      {"ovf", "OVF"},
      {"stop", "TraceSTOP"},
      {"ptw", "PTWRITE"}};
  Packets out;
  for (absl::string_view text : absl::StrSplit(listing, '\n')) {
    std::smatch m;
    const std::string s(text);
    if (!std::regex_match(s, m, line) || m[3] == "pad") continue;
    const auto kind = kKinds.find(m[3].str());
    std::string name = kind == kKinds.end() ? m[3].str() : kind->second;
    std::string payload = m[4].str();
    std::vector<std::string> f =
        absl::StrSplit(payload, ' ', absl::SkipEmpty());
    if (name == "TNT") {
      payload = TntBits(payload);
    } else if (name.rfind("TIP", 0) == 0 || name == "FUP") {
      const int ipc = f.empty() ? 0 : f[0][0] - '0';
      payload = IpBits(ipc, f.size() > 1 ? f[1] : "");
    } else if (name == "PIP") {
      uint64_t cr3 = 0;
      absl::SimpleHexAtoi(f.at(0), &cr3);
      payload = Hex(cr3 >> 5);
    } else if (name == "TMA") {
      payload = absl::StrJoin(absl::StrSplit(payload, ", "), " ");
    } else if (name == "TSC" || name == "CBR" || name == "MTC" ||
               name == "CYC") {
      payload = f.empty() ? "" : f[0];
    } else {
      payload = "";
    }
    uint64_t offset = 0;
    absl::SimpleHexAtoi(m[2].str(), &offset);
    out[std::stoi(m[1].str())].push_back(
        absl::StrFormat("%x %s %s", offset, name, payload));
  }
  return out;
}

// perf report -D: "PERF_RECORD_AUXTRACE size: ... offset: O ... cpu: C",
// then ".  OFFSET:  BYTES  KIND payload" lines. `streams` maps a CPU to our
// stream number.
void PerfPackets(const std::string& dump, const std::map<int, int>& streams,
                 Packets* out) {
  static const std::regex header(
      R"(PERF_RECORD_AUXTRACE size: (0x[0-9a-f]+)\s+offset: (0x[0-9a-f]+|0) .*cpu: (-?\d+))");
  static const std::regex line(
      R"(^\.  ([0-9a-f]{8}):  (?:[0-9a-f]{2} )+\s*([A-Z][A-Za-z.]*)\s*(.*)$)");
  int stream = -1;
  uint64_t base = 0;
  for (absl::string_view text : absl::StrSplit(dump, '\n')) {
    const std::string s(text);
    std::smatch m;
    if (std::regex_search(s, m, header)) {
      base = std::stoull(m[2].str(), nullptr, 16);
      auto it = streams.find(std::stoi(m[3].str()));
      stream = it == streams.end() ? -1 : it->second;
      continue;
    }
    if (stream < 0 || !std::regex_match(s, m, line) || m[2] == "PAD") continue;
    const std::string name = m[2].str();
    std::string payload = m[3].str();
    std::vector<std::string> f =
        absl::StrSplit(payload, ' ', absl::SkipEmpty());
    auto value = [](const std::string& t) {
      return Hex(std::stoull(t, nullptr, 16));
    };
    if (name == "TNT") {
      payload = f.empty() ? "" : f[0];
    } else if (name.rfind("TIP", 0) == 0 || name == "FUP") {
      payload = (f.empty() || f[0] == "no") ? "none" : value(f[0]);
    } else if (name == "TMA") {
      payload = value(f.at(1)) + " " + value(f.at(3));
    } else if (name == "PIP" || name == "TSC" || name == "CBR" ||
               name == "MTC" || name == "CYC") {
      payload = f.empty() ? "" : value(f[0]);
    } else {
      payload = "";
    }
    const uint64_t offset = base + std::stoull(m[1].str(), nullptr, 16);
    (*out)[stream].push_back(
        absl::StrFormat("%x %s %s", offset, name, payload));
  }
}

// Each AUXTRACE record of a pipe-form file alone in a stream of its own:
// perf 6.1 reads a pipe's first AUXTRACE payload right and loses its place
// after it, so each payload is dumped from a stream where it is the first.
std::vector<std::string> OneAuxtraceEach(const std::string& bytes) {
  struct Spans : capture::perf::PerfVisitor {
    absl::Status OnAttr(const capture::perf::PerfAttr&) override {
      return absl::OkStatus();
    }
    absl::Status OnFeature(int, absl::Span<const uint8_t>, uint64_t) override {
      return absl::OkStatus();
    }
    absl::Status OnRecord(const capture::perf::RawRecord& r) override {
      if (r.type == capture::perf::kRecordAuxtrace) {
        cuts.push_back({r.offset.file, r.size + r.payload.size()});
      }
      return absl::OkStatus();
    }
    std::vector<std::pair<uint64_t, uint64_t>> cuts;
  } spans;
  EXPECT_TRUE(
      capture::perf::TokenizePerfData(
          absl::Span<const uint8_t>(
              reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
          "pipe", &spans)
          .ok());
  std::vector<std::string> streams;
  for (size_t keep = 0; keep < spans.cuts.size(); ++keep) {
    std::string out;
    uint64_t at = 0;
    for (size_t i = 0; i < spans.cuts.size(); ++i) {
      if (i == keep) continue;
      out += bytes.substr(at, spans.cuts[i].first - at);
      at = spans.cuts[i].first + spans.cuts[i].second;
    }
    streams.push_back(out + bytes.substr(at));
  }
  return streams;
}

void ExpectPacketsEqualPerf(const std::string& path, bool pipe) {
  CommandResult ours =
      RunCommand({ToolPath("hwt-decode"), "--packets", "-q", path}, 300);
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  Packets mine = OurPackets(ours.out);
  // Our streams are the buffers in CPU order; the corpus uses CPUs 0 and 3.
  const std::map<int, int> streams = {{0, 0}, {3, 1}};
  Packets theirs;
  std::vector<std::string> inputs = {path};
  auto dir = TempDir::Create("perf-packets-test");
  ASSERT_TRUE(dir.ok());
  if (pipe) {
    auto bytes = ReadFileToString(path);
    ASSERT_TRUE(bytes.ok());
    inputs.clear();
    for (const std::string& stream : OneAuxtraceEach(*bytes)) {
      const std::string file =
          absl::StrFormat("%s/one%u.data", dir->path(), inputs.size());
      ASSERT_TRUE(WriteFileAtomically(file, stream).ok());
      inputs.push_back(file);
    }
  }
  for (const std::string& input : inputs) {
    CommandResult dump = RunCommand(
        {"sh", "-c",
         pipe ? "cat \"$1\" | perf report -D -i -" : "perf report -D -i \"$1\"",
         "sh", input},
        300);
    PerfPackets(dump.out, streams, &theirs);
  }
  ASSERT_EQ(mine.size(), 2u);
  ASSERT_EQ(theirs.size(), 2u);
  for (const auto& [stream, packets] : theirs) {
    ASSERT_EQ(mine[stream].size(), packets.size()) << "stream " << stream;
    size_t differ = 0;
    for (size_t i = 0; i < packets.size(); ++i) {
      if (mine[stream][i] != packets[i] && differ++ < 5) {
        ADD_FAILURE() << "stream " << stream << " packet " << i << ": ours '"
                      << mine[stream][i] << "', perf '" << packets[i] << "'";
      }
    }
    EXPECT_EQ(differ, 0u);
    EXPECT_GT(packets.size(), 1000u);
  }
}

TEST(PerfCorpusTest, QuipperPtPacketsEqualPerfsOwnDecodeFileForm) {
  HWT_REQUIRE_CORPUS(corpus);
  if (!HavePerf()) GTEST_SKIP() << "perf (linux-perf) not installed";
  ExpectPacketsEqualPerf(corpus + "/quipper-intel-pt/perf.data.intel_pt-4.14",
                         false);
}

TEST(PerfCorpusTest, QuipperPtPacketsEqualPerfsOwnDecodePipeForm) {
  HWT_REQUIRE_CORPUS(corpus);
  if (!HavePerf()) GTEST_SKIP() << "perf (linux-perf) not installed";
  ExpectPacketsEqualPerf(
      corpus + "/quipper-intel-pt/perf.data.piped.intel_pt-4.14", true);
}

class NoFunctions : public analysis::FunctionResolver {
 public:
  std::optional<analysis::FunctionRange> FunctionAt(uint32_t,
                                                    uint64_t) override {
    return std::nullopt;
  }
};

// simpleperf's AutoFDO text: ranges, addresses, branches, then the binary.
struct Inject {
  std::map<std::string, uint64_t> ranges;    // "1000-1004"
  std::map<std::string, uint64_t> branches;  // "1004->100c"
  std::string build_id;
};

Inject ReadInject(const std::string& text) {
  Inject out;
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  size_t i = 0;
  auto section = [&](std::map<std::string, uint64_t>* into) {
    const size_t n = std::stoul(lines.at(i++));
    for (size_t k = 0; k < n; ++k, ++i) {
      std::vector<std::string> kv = absl::StrSplit(lines.at(i), ':');
      (*into)[kv.at(0)] = std::stoull(kv.at(1));
    }
  };
  section(&out.ranges);
  std::map<std::string, uint64_t> addresses;
  section(&addresses);
  section(&out.branches);
  for (; i < lines.size(); ++i) {
    if (lines[i].rfind("// build_id: 0x", 0) == 0) {
      out.build_id = lines[i].substr(15);
    }
  }
  return out;
}

TEST(PerfCorpusTest, SimpleperfEtmCountsEqualPerfInject) {
  HWT_REQUIRE_CORPUS(corpus);
  const std::string dir = corpus + "/simpleperf-etm/";
  capture::InputOptions options;
  auto image = capture::ParseImageSpec(dir + "etm_test_loop");  // no bias
  ASSERT_TRUE(image.ok());
  options.images.push_back(*image);
  auto capture = capture::OpenCapture(dir + "perf_etm.data", options);
  ASSERT_TRUE(capture.ok()) << capture.status();
  auto timeline = capture::BuildAddressSpaceTimeline(**capture);
  ASSERT_TRUE(timeline.ok()) << timeline.status();
  uint32_t loop = analysis::kNoImage;
  for (uint32_t i = 0; i < timeline->images().size(); ++i) {
    if (timeline->images()[i].recorded_path ==
        "/data/local/tmp/etm_test_loop") {
      loop = i;
    }
  }
  ASSERT_NE(loop, analysis::kNoImage) << "etm_test_loop matched by build-id";
  NoFunctions none;
  auto profile = analysis::ProfileCapture(**capture, *timeline, none);
  ASSERT_TRUE(profile.ok()) << profile.status();
  std::map<std::string, uint64_t> ranges, branches;
  for (const analysis::RangeCount& r :
       analysis::RangeCounts(profile->profile)) {
    if (r.image == loop) ranges[Hex(r.begin) + "-" + Hex(r.end)] += r.count;
  }
  for (const analysis::BranchEdge& b :
       analysis::TakenBranchCounts(profile->profile)) {
    if (b.from_image != loop) continue;
    // simpleperf records no target for indirect branches (returns, BR/BLR).
    const bool indirect = b.kind == BranchKind::kJumpIndirect ||
                          b.kind == BranchKind::kCallIndirect ||
                          b.kind == BranchKind::kReturn;
    const uint64_t to = indirect || b.to_image != loop ? 0 : b.to;
    branches[Hex(b.from) + "->" + Hex(to)] += b.count;
  }
  auto text = ReadFileToString(dir + "perf_inject.data");
  ASSERT_TRUE(text.ok());
  Inject inject = ReadInject(*text);
  EXPECT_EQ(ranges, inject.ranges);
  EXPECT_EQ(branches, inject.branches);
  EXPECT_EQ(timeline->images()[loop].build_id,
            capture::TrimBuildId(inject.build_id));
  EXPECT_EQ(inject.ranges.size(), 10u);
  EXPECT_EQ(inject.branches.size(), 9u);
}

// What a user runs: hwt-report's AutoFDO export of the ETM capture is the
// file simpleperf's `inject` wrote for it, byte for byte (the same ranges,
// the same branches with simpleperf's zero targets, the same trailer), and
// so is the export of the capture's saved profile.
TEST(PerfCorpusTest, AutoFdoExportEqualsSimpleperfInject) {
  HWT_REQUIRE_CORPUS(corpus);
  const std::string dir = corpus + "/simpleperf-etm/";
  auto inject = ReadFileToString(dir + "perf_inject.data");
  ASSERT_TRUE(inject.ok());
  auto tmp = TempDir::Create("perf-autofdo");
  ASSERT_TRUE(tmp.ok());
  const std::string ours = tmp->path() + "/etm.afdo";
  const std::string saved = tmp->path() + "/etm.hwtprof";
  CommandResult r = RunCommand({ToolPath("hwt-report"), "-q",
                                "--autofdo=" + ours, "--save", saved, "--image",
                                dir + "etm_test_loop", dir + "perf_etm.data"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto text = ReadFileToString(ours);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, *inject);
  const std::string again = tmp->path() + "/saved.afdo";
  r = RunCommand({ToolPath("hwt-report"), "-q", "--autofdo=" + again, saved});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  text = ReadFileToString(again);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, *inject);
}

TEST(PerfCorpusTest, SimpleperfCapturesWithMissingPartsAreReported) {
  HWT_REQUIRE_CORPUS(corpus);
  const std::string dir = corpus + "/simpleperf-etm/";
  // ETE over TRBE, unformatted; its binaries are not in the corpus.
  CommandResult ete = RunCommand({ToolPath("hwt-decode"), "--stats",
                                  dir + "perf_with_unformatted_trace.data"});
  EXPECT_EQ(ete.exit_code, 1) << ete.err;
  EXPECT_THAT(ete.out, HasSubstr("coresight trace"));
  EXPECT_THAT(ete.err, HasSubstr("mapped images not found"));
  EXPECT_THAT(ete.out, HasSubstr("ADDR_NACC"));
  // AUX records without their data: a data-loss report, not a failure.
  CommandResult missing = RunCommand({ToolPath("hwt-decode"), "--stats",
                                      dir + "perf_with_missing_aux_data.data"});
  EXPECT_EQ(missing.exit_code, 1) << missing.err;
  EXPECT_THAT(missing.err, HasSubstr("bytes of trace are lost"));
  // Kernel-mode ETM without the kernel image: the kernel image is reported
  // missing, and the module given (a relocatable .ko, which has no program
  // headers) is reported as not mappable; every kernel address is then an
  // ADDR_NACC error, counted and listed, and no instruction is decoded.
  CommandResult kernel =
      RunCommand({ToolPath("hwt-decode"), "--stats", "--image",
                  dir + "rq_stats.ko", dir + "perf_kernel.data"});
  EXPECT_EQ(kernel.exit_code, 1) << kernel.err;
  EXPECT_THAT(kernel.err, HasSubstr("kernel image"));
  EXPECT_THAT(kernel.err, HasSubstr("[kernel.kallsyms]"));
  EXPECT_THAT(kernel.err, HasSubstr("rq_stats.ko: relocatable ELF (ET_REL"));
  EXPECT_THAT(kernel.out,
              HasSubstr("no code image at 0xffffff9a5dde6530 (OpenCSD "
                        "ADDR_NACC)"));
}

}  // namespace
}  // namespace hwt
