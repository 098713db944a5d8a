// Golden tests: testdata/analysis/NAME.events -> NAME.profile, the complete
// text of the profile (trees, functions, call edges, blocks, edges, paths,
// and for scripts with code bytes the per-instruction counts and loops).
// The files were reviewed by hand against docs/call-stacks.md and the
// conventions in analysis/*.h. Every input is also cut into segments at
// each event boundary, which must not change a byte.
// HWT_UPDATE_GOLDEN=1 rewrites the .profile files (review the diff!), so
// ProfilesAgreeWithASecondComputation checks their key figures against what
// the .events text itself says, read by a parser of its own (not
// EventScript), and the hand-reviewed NAME.folded files (which nothing
// rewrites), and the figures the scripts' comments state.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "analysis/block_expansion.h"
#include "analysis/loops.h"
#include "analysis/profile.h"
#include "analysis/profile_text.h"
#include "analysis/testing/event_script.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gtest/gtest.h"

namespace hwt::analysis {
namespace {

using testing::EventScript;

std::string ExpansionText(const EventScript& script, const Profile& profile) {
  testing::ScriptCodeReader reader(script);
  const BlockExpansion x = ExpandBlocks(profile, reader);
  std::string out;
  for (const std::string& error : x.errors) {
    absl::StrAppend(&out, "expand-error ", error, "\n");
  }
  for (const InstructionStats& s : x.instructions) {
    absl::StrAppend(&out, absl::StrFormat("insn %u:0x%x len=%u count=%u",
                                          s.image, s.vaddr, s.length, s.count));
    if (s.conditional) {
      absl::StrAppend(&out, " taken=", s.taken, " not_taken=", s.not_taken);
    }
    absl::StrAppend(&out, "\n");
  }
  for (const Loop& loop : FindLoops(profile, x)) {
    absl::StrAppend(
        &out,
        absl::StrFormat("loop %u:0x%x-0x%x back_edges=%u entries=%u "
                        "trips=%.2f insns=%u latches=",
                        loop.image, loop.header, loop.end, loop.back_edges,
                        loop.entries, loop.trip_count(), loop.instructions));
    for (size_t i = 0; i < loop.latches.size(); ++i) {
      absl::StrAppend(&out, i ? "," : "",
                      absl::StrFormat("0x%x", loop.latches[i]));
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

TEST(GoldenTest, ProfilesMatchReviewedFiles) {
  const std::string dir = hwt::testing::SourceDir() + "/testdata/analysis";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".events") continue;
    const std::string path = entry.path().string();
    const std::string stem = path.substr(0, path.size() - 7);
    SCOPED_TRACE(path);
    absl::StatusOr<EventScript> script = testing::ReadEventScript(path);
    ASSERT_TRUE(script.ok()) << script.status();
    const Profile profile = testing::BuildProfile(*script);
    const EventScript& s = *script;
    std::string text = ProfileToText(profile, [&s](const FrameKey& key) {
      return testing::ScriptFrameName(s, key);
    });
    if (!script->code.empty()) text += ExpansionText(*script, profile);

    hwt::testing::ExpectMatchesGolden(text, stem + ".profile");

    const std::string sequential = ProfileToText(profile);
    for (size_t cut = 0; cut <= script->events.size(); ++cut) {
      EXPECT_EQ(
          testing::FirstDifference(
              ProfileToText(testing::BuildProfileInSegments(*script, {cut})),
              sequential),
          "")
          << "cut before event " << cut;
    }
    ++checked;
  }
  EXPECT_GE(checked, 6);
}

// --- A second computation --------------------------------------------------

std::vector<std::string> Words(absl::string_view line) {
  return absl::StrSplit(line, ' ', absl::SkipWhitespace());
}

uint64_t Number(const std::string& text) {
  uint64_t v = 0;
  const bool ok = absl::StartsWith(text, "0x")
                      ? absl::SimpleHexAtoi(text.substr(2), &v)
                      : absl::SimpleAtoi(text, &v);
  EXPECT_TRUE(ok) << text;
  return v;
}

// "key=value" words of a line.
std::map<std::string, std::string> Values(const std::vector<std::string>& w) {
  std::map<std::string, std::string> out;
  for (const std::string& word : w) {
    const size_t eq = word.find('=');
    if (eq != std::string::npos) out[word.substr(0, eq)] = word.substr(eq + 1);
  }
  return out;
}

// What the .events text says by these rules, each a plain reading of the
// script format (analysis/testing/event_script.h) and docs/call-stacks.md:
// a block belongs to the region holding its start (image address = address
// - bias) and to the function holding that; an edge joins two consecutive
// blocks of one context (paging switches the context when the script asks
// for per_context; a gap breaks the chain, a disable does not); a call
// edge joins a call block's function to the next block's; a block's time
// runs from the last timestamp before it to the one before the next block
// or disable.
struct Expected {
  uint64_t insns = 0, blocks = 0, gaps = 0, disables = 0, enables = 0;
  uint64_t time = 0;
  std::map<std::string, uint64_t>
      block_counts;                       // "0:0x401000-0x401008 n=4 call"
  std::map<std::string, uint64_t> edges;  // "KEY -> KEY"
  std::map<std::string, uint64_t> self;   // function -> instructions
  std::map<std::string, uint64_t> self_time;
  std::map<std::string, uint64_t> calls;  // "main -> work"
};

Expected ReadEvents(const std::string& path) {
  struct Region {
    uint64_t image, lo, hi, bias;
  };
  struct Function {
    uint64_t image, lo, hi;
    std::string name;
  };
  std::vector<Region> regions;
  std::vector<Function> functions;
  Expected e;
  bool per_context = false;
  uint64_t context = 0, now = 0;
  std::map<uint64_t, std::string> last_key;  // context -> previous block
  std::map<uint64_t, std::string> last_call_fn;
  std::string timed_fn;  // the block whose time is running
  uint64_t timed_since = 0;
  bool has_time = false;  // times are kept only when the script has any
  auto stop_clock = [&] {
    if (!timed_fn.empty() && has_time) {
      e.self_time[timed_fn] += now - timed_since;
      e.time += now - timed_since;
    }
    timed_fn.clear();
  };
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const std::vector<std::string> w = Words(line.substr(0, line.find('#')));
    if (w.empty()) continue;
    const std::string& kind = w[0];
    if (kind == "option" && w[1] == "per_context") per_context = true;
    if (kind == "region") {
      const std::map<std::string, std::string> v = Values(w);
      regions.push_back({Number(w[1]), Number(w[2]), Number(w[3]),
                         v.count("bias") ? Number(v.at("bias")) : 0});
    }
    if (kind == "function") {
      functions.push_back({Number(w[1]), Number(w[2]), Number(w[3]), w[4]});
    }
    if (kind == "paging" && per_context) context = Number(w[1]);
    if (kind == "gap") {
      ++e.gaps;
      last_key.erase(context);
      last_call_fn.erase(context);
    }
    if (kind == "timestamp") {
      now = Number(w[1]);
      has_time = true;
    }
    if (kind == "disabled") {
      ++e.disables;
      stop_clock();
    }
    if (kind == "enabled") ++e.enables;
    if (kind != "block") continue;
    const uint64_t start = Number(w[1]), end = Number(w[2]), n = Number(w[3]);
    std::string key = absl::StrFormat("-:0x%x-0x%x", start, end);
    std::string function;
    for (const Region& r : regions) {
      if (start < r.lo || start >= r.hi) continue;
      key = absl::StrFormat("%u:0x%x-0x%x", r.image, start - r.bias,
                            end - r.bias);
      for (const Function& f : functions) {
        if (f.image == r.image && start - r.bias >= f.lo &&
            start - r.bias < f.hi) {
          function = f.name;
        }
      }
    }
    key = absl::StrFormat("%s n=%u %s", key, n, w[4]);
    ++e.blocks;
    e.insns += n;
    ++e.block_counts[key];
    if (last_key.count(context)) ++e.edges[last_key[context] + " -> " + key];
    last_key[context] = key;
    if (last_call_fn.count(context) && !function.empty()) {
      ++e.calls[last_call_fn[context] + " -> " + function];
    }
    last_call_fn.erase(context);
    if ((w[4] == "call" || w[4] == "call-indirect") && !function.empty()) {
      last_call_fn[context] = function;
    }
    if (!function.empty()) e.self[function] += n;
    stop_clock();
    timed_fn = function;
    timed_since = now;
  }
  return e;
}

// The same figures as the .profile golden states them.
Expected ReadProfile(const std::string& text,
                     std::map<std::string, uint64_t>* merged_self) {
  Expected p;
  std::map<std::string, std::string> key_of;  // "#3" -> key
  std::vector<std::vector<std::string>> edge_lines;
  bool merged = false;
  std::vector<std::string> path;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const std::vector<std::string> w = Words(line);
    if (w.empty()) continue;
    const std::map<std::string, std::string> v = Values(w);
    if (w[0] == "stats") {
      p.insns = Number(v.at("insns"));
      p.blocks = Number(v.at("blocks"));
      p.gaps = Number(v.at("gaps"));
      p.disables = Number(v.at("disables"));
      p.enables = Number(v.at("enables"));
      p.time = Number(v.at("time"));
    } else if (w[0] == "block") {
      const std::string key = absl::StrJoin(w.begin() + 2, w.begin() + 5, " ");
      key_of[w[1]] = key;
      p.block_counts[key] = Number(v.at("count"));
    } else if (w[0] == "edge") {
      edge_lines.push_back(w);
    } else if (w[0] == "function") {
      p.self[w[1]] = Number(v.at("self"));
      if (v.count("self_time")) p.self_time[w[1]] = Number(v.at("self_time"));
    } else if (w[0] == "call") {
      p.calls[w[1] + " -> " + w[3]] = Number(w[4]);
    } else if (w[0] == "merged") {
      merged = true;
    } else if (w[0] == "thread") {
      merged = false;
    } else if (merged && line[0] == ' ' && v.count("self")) {
      const size_t depth = (line.find_first_not_of(' ') - 2) / 2;
      path.resize(depth);
      path.push_back(w[0]);
      if (Number(v.at("self")) > 0) {
        (*merged_self)[absl::StrJoin(path, ";")] = Number(v.at("self"));
      }
    }
  }
  for (const auto& w : edge_lines) {
    p.edges[key_of[w[1]] + " -> " + key_of[w[3]]] = Number(w[4]);
  }
  return p;
}

TEST(GoldenTest, ProfilesAgreeWithASecondComputation) {
  const std::string dir = hwt::testing::SourceDir() + "/testdata/analysis";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".events") continue;
    const std::string events = entry.path().string();
    const std::string stem = events.substr(0, events.size() - 7);
    SCOPED_TRACE(events);
    absl::StatusOr<std::string> text = ReadFileToString(stem + ".profile");
    ASSERT_TRUE(text.ok()) << text.status();
    const Expected want = ReadEvents(events);
    std::map<std::string, uint64_t> merged_self;
    const Expected got = ReadProfile(*text, &merged_self);
    EXPECT_EQ(got.insns, want.insns);
    EXPECT_EQ(got.blocks, want.blocks);
    EXPECT_EQ(got.gaps, want.gaps);
    EXPECT_EQ(got.disables, want.disables);
    EXPECT_EQ(got.enables, want.enables);
    EXPECT_EQ(got.time, want.time);
    EXPECT_EQ(got.block_counts, want.block_counts);
    EXPECT_EQ(got.edges, want.edges);
    EXPECT_EQ(got.self_time, want.self_time);
    // Named functions (the profile also names unknown code).
    std::map<std::string, uint64_t> named_self, named_calls;
    for (const auto& [f, n] : got.self) {
      if (want.self.count(f)) named_self[f] = n;
    }
    for (const auto& [c, n] : got.calls) {
      if (c.find('[') == std::string::npos) named_calls[c] = n;
    }
    EXPECT_EQ(named_self, want.self);
    EXPECT_EQ(named_calls, want.calls);
    // The merged call tree has the hand-reviewed folded stacks (a gap leaf
    // is left out of folded output).
    absl::StatusOr<std::string> folded = ReadFileToString(stem + ".folded");
    ASSERT_TRUE(folded.ok()) << folded.status();
    std::map<std::string, uint64_t> want_folded;
    for (absl::string_view line : absl::StrSplit(*folded, '\n')) {
      const std::vector<std::string> w = Words(line);
      if (w.size() == 2) want_folded[w[0]] = Number(w[1]);
    }
    EXPECT_EQ(merged_self, want_folded);
    ++checked;
  }
  EXPECT_GE(checked, 6);
}

// countdown_loop.events' comment: a loop with header 0x401005, 4 back
// edges, 1 entry, 5 passes and 15 instructions; its jne taken 4 times and
// not taken once.
TEST(GoldenTest, CountdownLoopHasTheCommentsFigures) {
  absl::StatusOr<std::string> text = ReadFileToString(
      hwt::testing::SourceDir() + "/testdata/analysis/countdown_loop.profile");
  ASSERT_TRUE(text.ok()) << text.status();
  int found = 0;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    const std::vector<std::string> w = Words(line);
    if (w.size() < 2) continue;
    const std::map<std::string, std::string> v = Values(w);
    if (w[0] == "loop") {
      EXPECT_TRUE(absl::StartsWith(w[1], "0:0x401005-")) << line;
      EXPECT_EQ(v.at("back_edges"), "4");
      EXPECT_EQ(v.at("entries"), "1");
      EXPECT_EQ(v.at("trips"), "5.00");
      EXPECT_EQ(v.at("insns"), "15");
      ++found;
    }
    if (w[0] == "insn" && w[1] == "0:0x401008") {
      EXPECT_EQ(v.at("count"), "5");
      EXPECT_EQ(v.at("taken"), "4");
      EXPECT_EQ(v.at("not_taken"), "1");
      ++found;
    }
  }
  EXPECT_EQ(found, 2);
}

}  // namespace
}  // namespace hwt::analysis
