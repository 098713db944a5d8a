// Chrome trace-event JSON from the call timeline.
#include "report/export/chrome_trace.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/json_text.h"

namespace hwt::report {
namespace {}  // namespace

std::string RenderChromeTrace(const CallTimeline& timeline,
                              const std::vector<std::string>& thread_names,
                              ProfileNames& names,
                              const ChromeTraceOptions& options) {
  const double scale = timeline.by_time ? options.time_scale : 1.0;
  auto us = [&](uint64_t at) {
    return absl::StrFormat("%.3f", static_cast<double>(at) * scale);
  };
  std::vector<std::string> frame_names;
  frame_names.reserve(timeline.frames.size());
  for (const analysis::FrameKey& key : timeline.frames) {
    frame_names.push_back(JsonQuoted(names.Name(key)));
  }
  std::string out = "{\"traceEvents\":[\n";
  bool first = true;
  auto emit = [&](const std::string& event) {
    absl::StrAppend(&out, first ? "" : ",\n", event);
    first = false;
  };
  for (size_t t = 0; t < timeline.threads.size(); ++t) {
    const ThreadTimeline& thread = timeline.threads[t];
    const std::string name =
        t < thread_names.size() ? thread_names[t] : absl::StrCat("thread ", t);
    emit(absl::StrCat("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,",
                      "\"tid\":", t, ",\"args\":{\"name\":", JsonQuoted(name),
                      "}}"));
    // Events are balanced: each close matches the latest open. Written in
    // order of start (a parent before the children it starts with).
    std::vector<std::pair<uint32_t, uint64_t>> open;
    struct Call {
      uint64_t start, end;
      uint32_t depth, frame;
    };
    std::vector<Call> calls;
    for (const TimelineEvent& e : thread.events) {
      if (e.open) {
        open.emplace_back(e.frame, e.at);
        continue;
      }
      if (open.empty()) continue;  // balanced by construction
      const auto [frame, start] = open.back();
      open.pop_back();
      calls.push_back({start, e.at, static_cast<uint32_t>(open.size()), frame});
    }
    std::sort(calls.begin(), calls.end(), [](const Call& a, const Call& b) {
      return std::tie(a.start, a.depth) < std::tie(b.start, b.depth);
    });
    for (const Call& c : calls) {
      const bool untraced = c.frame == kUntracedFrame;
      emit(absl::StrCat(
          "{\"name\":",
          untraced ? JsonQuoted("[untraced]") : frame_names[c.frame],
          ",\"ph\":\"X\",\"pid\":1,\"tid\":", t, ",\"ts\":", us(c.start),
          ",\"dur\":", us(c.end - c.start), "}"));
    }
  }
  absl::StrAppend(
      &out, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{",
      "\"name\":", JsonQuoted(options.name), ",\"clock\":",
      timeline.by_time
          ? JsonQuoted(absl::StrCat("trace time (", options.time_unit, ")"))
          : JsonQuoted(absl::StrCat(options.count_unit, "s (1 ",
                                    options.count_unit, " = 1 us)")),
      ",\"truncated\":", timeline.truncated ? "true" : "false");
  if (timeline.by_time) {
    absl::StrAppend(
        &out, ",\"untraced\":",
        JsonQuoted("[untraced] events are the intervals with tracing "
                   "disabled (system calls, interrupts) inside the "
                   "call they interrupted; they are not its own "
                   "time, as in the profile"));
  }
  if (timeline.truncated) {
    absl::StrAppend(
        &out, ",\"note\":",
        JsonQuoted(absl::StrCat("the timeline stops after ", options.max_events,
                                " call/return events (--max-events); "
                                "later calls are not shown")));
  }
  absl::StrAppend(&out, "}}\n");
  return out;
}

}  // namespace hwt::report
