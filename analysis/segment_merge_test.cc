// Long random event streams (analysis/testing/synthetic_trace.h): the
// builder's stacks, times and call edges must equal those of the independent
// reference model, and the stream cut into segments at random points, each
// built from an unknown stack and merged in order, must give a profile whose
// complete text is byte-identical to the sequential one.
#include <algorithm>
#include <map>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "analysis/profile.h"
#include "analysis/profile_text.h"
#include "analysis/testing/event_script.h"
#include "analysis/testing/synthetic_trace.h"
#include "gtest/gtest.h"

namespace hwt::analysis {
namespace {

using testing::BuildProfile;
using testing::BuildProfileInSegments;
using testing::GenerateSyntheticTrace;
using testing::ScriptFrameName;
using testing::StackWeights;
using testing::SyntheticOptions;
using testing::SyntheticTrace;

struct Config {
  const char* name;
  SyntheticOptions options;
};
void PrintTo(const Config& config, std::ostream* os) { *os << config.name; }

// "" when equal, else the first key whose count differs (printing two maps
// of thousands of stacks would drown the message).
std::string MapDifference(const std::map<std::string, uint64_t>& actual,
                          const std::map<std::string, uint64_t>& expected) {
  for (const auto& [key, count] : expected) {
    auto it = actual.find(key);
    if (it == actual.end()) return "missing " + key;
    if (it->second != count) {
      return key + ": " + std::to_string(it->second) + " instead of " +
             std::to_string(count);
    }
  }
  for (const auto& [key, count] : actual) {
    if (!expected.count(key)) return "unexpected " + key;
  }
  return "";
}

std::vector<Config> Configs() {
  std::vector<Config> configs;
  SyntheticOptions o;
  o.seed = 1;
  configs.push_back({"thread-mode", o});
  o.seed = 2;
  o.streams = 3;
  configs.push_back({"three-streams", o});
  o.seed = 3;
  o.streams = 2;
  o.per_context = true;
  configs.push_back({"cpu-mode", o});
  o = SyntheticOptions{};
  o.seed = 4;
  o.timing = false;
  configs.push_back({"no-timing", o});
  o = SyntheticOptions{};
  o.seed = 5;
  o.gaps = false;
  o.kernel = false;
  configs.push_back({"user-only-no-gaps", o});
  return configs;
}

class SyntheticTest : public ::testing::TestWithParam<Config> {};

TEST_P(SyntheticTest, MatchesReferenceModel) {
  const SyntheticTrace trace = GenerateSyntheticTrace(GetParam().options);
  const Profile profile = BuildProfile(trace.script);
  EXPECT_EQ(profile.stats.blocks, trace.expected.blocks);
  EXPECT_EQ(profile.stats.instructions, trace.expected.instructions);
  EXPECT_EQ(profile.stats.gaps, trace.expected.gaps);
  EXPECT_EQ(MapDifference(StackWeights(trace.script, profile.merged),
                          trace.expected.stacks),
            "");
  EXPECT_EQ(
      MapDifference(StackWeights(trace.script, profile.merged, /*time=*/true),
                    trace.expected.stack_time),
      "");
  size_t threads = 0;
  for (const auto& [key, stacks] : trace.expected.thread_stacks) {
    threads += !stacks.empty();
  }
  EXPECT_EQ(profile.threads.size(), threads);
  for (const ThreadProfile& t : profile.threads) {
    auto it = trace.expected.thread_stacks.find({t.stream, t.context});
    ASSERT_NE(it, trace.expected.thread_stacks.end());
    EXPECT_EQ(MapDifference(StackWeights(trace.script, t.tree), it->second), "")
        << "stream " << t.stream << " context " << t.context;
  }
  std::map<std::string, uint64_t> edges;
  for (const CallEdge& e : profile.call_edges) {
    edges[ScriptFrameName(trace.script, e.caller) + "->" +
          ScriptFrameName(trace.script, e.callee)] += e.count;
  }
  EXPECT_EQ(MapDifference(edges, trace.expected.call_edges), "");
  // The stream is not trivial: deep stacks, many of them.
  EXPECT_GT(trace.expected.stacks.size(), 200u);
}

TEST_P(SyntheticTest, RandomSplitsMergeToTheSequentialProfile) {
  const SyntheticTrace trace = GenerateSyntheticTrace(GetParam().options);
  const std::string sequential = ProfileToText(BuildProfile(trace.script));
  const size_t n = trace.script.events.size();
  std::mt19937_64 rng(GetParam().options.seed * 7919);
  for (int round = 0; round < 20; ++round) {
    std::vector<size_t> cuts;
    const size_t count = 1 + rng() % (round < 10 ? 8 : 200);
    for (size_t i = 0; i < count; ++i) cuts.push_back(rng() % (n + 1));
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    const size_t batch = 1 + rng() % 100;
    ASSERT_EQ(testing::FirstDifference(ProfileToText(BuildProfileInSegments(
                                           trace.script, cuts, batch)),
                                       sequential),
              "")
        << "round " << round << ", " << cuts.size() << " cuts, batch " << batch;
  }
}

TEST_P(SyntheticTest, CutBetweenEveryEvent) {
  SyntheticOptions options = GetParam().options;
  options.blocks = 3000;
  const SyntheticTrace trace = GenerateSyntheticTrace(options);
  const std::string sequential = ProfileToText(BuildProfile(trace.script));
  std::vector<size_t> cuts;
  for (size_t i = 1; i < trace.script.events.size(); ++i) cuts.push_back(i);
  EXPECT_EQ(testing::FirstDifference(
                ProfileToText(BuildProfileInSegments(trace.script, cuts)),
                sequential),
            "");
}

INSTANTIATE_TEST_SUITE_P(Configs, SyntheticTest, ::testing::ValuesIn(Configs()),
                         [](const auto& info) {
                           std::string name = info.param.name;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace hwt::analysis
