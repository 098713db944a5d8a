// speedscope JSON rendering; see speedscope.h. Written as text (events can
// number millions; a JSON DOM of them would not fit comfortably), with
// strings quoted by the one JSON writer (base/json_text.h).
#include "report/profile/speedscope.h"

#include <cmath>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/json_text.h"

namespace hwt::report {
namespace {

std::string Value(uint64_t v, double scale) {
  if (scale == 1.0) return absl::StrCat(v);
  return absl::StrFormat("%.3f", v * scale);
}

}  // namespace

std::string RenderSpeedscope(const NamedTree& sampled,
                             const CallTimeline* timeline,
                             const std::vector<std::string>& thread_names,
                             ProfileNames& names,
                             const SpeedscopeOptions& options) {
  // speedscope frame index per ProfileNames frame id, in first-use order.
  absl::flat_hash_map<uint32_t, uint32_t> index;
  std::vector<uint32_t> order;
  auto frame_index = [&](uint32_t id) {
    auto [it, inserted] =
        index.try_emplace(id, static_cast<uint32_t>(order.size()));
    if (inserted) order.push_back(id);
    return it->second;
  };
  std::vector<uint32_t> timeline_frames;
  if (timeline != nullptr) {
    for (const analysis::FrameKey& key : timeline->frames) {
      timeline_frames.push_back(frame_index(names.Frame(key)));
    }
  }

  std::string profiles;
  const std::string unit = JsonQuoted(options.unit);
  if (timeline != nullptr) {
    for (size_t i = 0; i < timeline->threads.size(); ++i) {
      const ThreadTimeline& t = timeline->threads[i];
      const std::string name = i < thread_names.size()
                                   ? thread_names[i]
                                   : absl::StrFormat("stream %d", t.stream);
      absl::StrAppend(&profiles, profiles.empty() ? "\n  " : ",\n  ",
                      "{\"type\": \"evented\", \"name\": ", JsonQuoted(name),
                      ", \"unit\": ", unit,
                      ", \"startValue\": ", Value(t.start, options.scale),
                      ", \"endValue\": ", Value(t.end, options.scale),
                      ", \"events\": [");
      for (size_t e = 0; e < t.events.size(); ++e) {
        const TimelineEvent& ev = t.events[e];
        absl::StrAppend(&profiles, e == 0 ? "\n    " : ",\n    ",
                        "{\"type\": \"", ev.open ? "O" : "C",
                        "\", \"at\": ", Value(ev.at, options.scale),
                        ", \"frame\": ", timeline_frames[ev.frame], "}");
      }
      absl::StrAppend(&profiles, "]}");
    }
  }

  // The sampled profile: every stack with a weight of its own.
  std::string samples, weights;
  uint64_t total = 0;
  std::vector<uint32_t> path;
  for (uint32_t n = 1; n < sampled.nodes.size(); ++n) {
    const NamedTree::Node& node = sampled.nodes[n];
    path.resize(node.depth - 1);
    path.push_back(frame_index(node.frame));
    if (node.self == 0) continue;
    total += node.self;
    absl::StrAppend(&samples, samples.empty() ? "\n    [" : ",\n    [");
    for (size_t k = 0; k < path.size(); ++k) {
      absl::StrAppend(&samples, k == 0 ? "" : ", ", path[k]);
    }
    absl::StrAppend(&samples, "]");
    absl::StrAppend(&weights, weights.empty() ? "" : ", ",
                    Value(node.self, options.scale));
  }
  absl::StrAppend(
      &profiles, profiles.empty() ? "\n  " : ",\n  ",
      "{\"type\": \"sampled\", \"name\": ", JsonQuoted(options.sampled_name),
      ", \"unit\": ", unit,
      ", \"startValue\": 0, \"endValue\": ", Value(total, options.scale),
      ", \"samples\": [", samples, "], \"weights\": [", weights, "]}");

  std::string frames;
  for (size_t i = 0; i < order.size(); ++i) {
    const NamedFrame& f = names.frames()[order[i]];
    absl::StrAppend(&frames, i == 0 ? "\n    " : ",\n    ",
                    "{\"name\": ", JsonQuoted(f.name));
    if (!f.file.empty())
      absl::StrAppend(&frames, ", \"file\": ", JsonQuoted(f.file));
    if (f.line != 0) absl::StrAppend(&frames, ", \"line\": ", f.line);
    absl::StrAppend(&frames, "}");
  }

  return absl::StrCat(
      "{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n"
      " \"exporter\": \"hwt-report\",\n \"name\": ",
      JsonQuoted(options.name), ",\n \"activeProfileIndex\": 0,\n",
      " \"shared\": {\"frames\": [", frames, "]},\n \"profiles\": [", profiles,
      "]}\n");
}

std::vector<std::string> SpeedscopeThreadNames(
    const CallTimeline& timeline, const std::vector<StreamInfo>& streams,
    bool cpu_mode) {
  std::vector<std::string> names;
  for (const ThreadTimeline& t : timeline.threads) {
    std::string name = t.stream < streams.size()
                           ? streams[t.stream].name
                           : absl::StrCat("stream ", t.stream);
    if (cpu_mode) absl::StrAppendFormat(&name, " context 0x%x", t.context);
    names.push_back(std::move(name));
  }
  return names;
}

}  // namespace hwt::report
