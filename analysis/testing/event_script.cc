// Parser and helpers for the test event-script format (event_script.h).
#include "analysis/testing/event_script.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/file_util.h"
#include "base/status_macros.h"

namespace hwt::analysis::testing {
namespace {

std::optional<uint64_t> ParseNumber(absl::string_view s) {
  uint64_t v = 0;
  if (absl::ConsumePrefix(&s, "0x")) {
    if (s.empty()) return std::nullopt;
    for (char c : s) {
      int d;
      if (c >= '0' && c <= '9') {
        d = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        d = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        d = c - 'A' + 10;
      } else {
        return std::nullopt;
      }
      v = v * 16 + d;
    }
    return v;
  }
  if (!absl::SimpleAtoi(s, &v)) return std::nullopt;
  return v;
}

std::optional<BranchKind> ParseBranchKind(absl::string_view s) {
  for (int k = 0; k <= static_cast<int>(BranchKind::kOther); ++k) {
    if (BranchKindName(static_cast<BranchKind>(k)) ==
        std::string_view(s.data(), s.size())) {
      return static_cast<BranchKind>(k);
    }
  }
  return std::nullopt;
}

std::optional<GapReason> ParseGapReason(absl::string_view s) {
  if (s == "decode-error") return GapReason::kDecodeError;
  if (s == "overflow") return GapReason::kOverflow;
  if (s == "lost-data") return GapReason::kLostData;
  if (s == "missing-image") return GapReason::kMissingImage;
  if (s == "no-sync") return GapReason::kNoSync;
  return std::nullopt;
}

// One line: positional words and key=value options.
struct Line {
  int number = 0;
  std::vector<absl::string_view> words;
  std::map<std::string, uint64_t> options;
};

absl::Status LineError(const Line& line, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("event script line ", line.number, ": ", what));
}

absl::StatusOr<uint64_t> Word(const Line& line, size_t i) {
  if (i >= line.words.size()) {
    return LineError(line, absl::StrCat("missing argument ", i));
  }
  std::optional<uint64_t> v = ParseNumber(line.words[i]);
  if (!v) {
    return LineError(line, absl::StrCat("not a number: ", line.words[i]));
  }
  return *v;
}

constexpr uint64_t kAllBuffers = ~uint64_t{0};

uint64_t Option(const Line& line, const std::string& key, uint64_t def) {
  auto it = line.options.find(key);
  return it == line.options.end() ? def : it->second;
}

// Splits one line into words and key=value options ('#' starts a comment).
absl::StatusOr<Line> TokenizeLine(absl::string_view raw, int number) {
  const size_t hash = raw.find('#');
  if (hash != absl::string_view::npos) raw = raw.substr(0, hash);
  Line line;
  line.number = number;
  for (absl::string_view w :
       absl::StrSplit(raw, absl::ByAnyChar(" \t\r"), absl::SkipEmpty())) {
    const size_t eq = w.find('=');
    if (eq == absl::string_view::npos) {
      line.words.push_back(w);
      continue;
    }
    std::optional<uint64_t> v = ParseNumber(w.substr(eq + 1));
    if (!v) return LineError(line, absl::StrCat("bad option ", w));
    line.options[std::string(w.substr(0, eq))] = *v;
  }
  return line;
}

// Reads the script line by line: declarations (images, regions, functions,
// code, options, streams) and events.
class ScriptParser {
 public:
  absl::Status ParseLine(const Line& line);
  EventScript Finish();

 private:
  // The declaration directives; false when `op` is not one.
  absl::StatusOr<bool> ParseDeclaration(absl::string_view op, const Line& line);
  absl::Status ParseRegion(const Line& line);
  absl::Status ParseCode(const Line& line);
  absl::Status ParseEvent(absl::string_view op, const Line& line);
  void AddMapping(const Line& line, capture::AddressSpaceChange::Kind kind,
                  uint32_t region);

  struct Mapping {
    size_t buffer;
    capture::AddressSpaceChange change;
  };

  EventScript script_;
  uint32_t stream_ = 0;
  std::map<uint32_t, uint64_t> stream_time_;
  std::vector<Mapping> mappings_;
  size_t buffers_ = 1;
};

absl::Status ScriptParser::ParseLine(const Line& line) {
  if (line.words.empty()) return absl::OkStatus();
  const absl::string_view op = line.words[0];
  HWT_ASSIGN_OR_RETURN(bool declaration, ParseDeclaration(op, line));
  if (declaration) return absl::OkStatus();
  return ParseEvent(op, line);
}

void ScriptParser::AddMapping(const Line& line,
                              capture::AddressSpaceChange::Kind kind,
                              uint32_t region) {
  const size_t buffer = Option(line, "buffer", kAllBuffers);
  if (buffer != kAllBuffers) buffers_ = std::max(buffers_, buffer + 1);
  mappings_.push_back({buffer, {kind, Option(line, "at", 0), region}});
}

absl::Status ScriptParser::ParseRegion(const Line& line) {
  capture::Region r;
  auto image = Word(line, 1);
  auto start = Word(line, 2);
  auto end = Word(line, 3);
  if (!image.ok()) return image.status();
  if (!start.ok()) return start.status();
  if (!end.ok()) return end.status();
  if (*image >= script_.image_names.size()) {
    return LineError(line, "no such image");
  }
  r.image = static_cast<uint32_t>(*image);
  r.start = *start;
  r.end = *end;
  r.bias = Option(line, "bias", 0);
  r.file_offset = Option(line, "offset", 0);
  r.file_size = Option(line, "size", r.end - r.start);
  const uint32_t index = script_.timeline.AddRegion(r);
  AddMapping(line, capture::AddressSpaceChange::Kind::kMap, index);
  return absl::OkStatus();
}

absl::Status ScriptParser::ParseCode(const Line& line) {
  auto image = Word(line, 1);
  auto vaddr = Word(line, 2);
  if (!image.ok()) return image.status();
  if (!vaddr.ok()) return vaddr.status();
  ScriptCode code{static_cast<uint32_t>(*image), *vaddr, {}};
  for (size_t i = 3; i < line.words.size(); ++i) {
    const absl::string_view hex = line.words[i];
    if (hex.size() % 2 != 0) return LineError(line, "odd hex digits");
    for (size_t j = 0; j < hex.size(); j += 2) {
      std::optional<uint64_t> byte =
          ParseNumber(absl::StrCat("0x", hex.substr(j, 2)));
      if (!byte) return LineError(line, absl::StrCat("bad hex ", hex));
      code.bytes.push_back(static_cast<uint8_t>(*byte));
    }
  }
  script_.code.push_back(std::move(code));
  return absl::OkStatus();
}

absl::StatusOr<bool> ScriptParser::ParseDeclaration(absl::string_view op,
                                                    const Line& line) {
  if (op == "image") {
    if (line.words.size() < 2) return LineError(line, "image needs a name");
    capture::Image image;
    image.recorded_path = std::string(line.words[1]);
    image.kernel = line.words.size() > 2 && line.words[2] == "kernel";
    script_.timeline.AddImage(image);
    script_.image_names.push_back(image.recorded_path);
  } else if (op == "region") {
    HWT_RETURN_IF_ERROR(ParseRegion(line));
  } else if (op == "unmap") {
    auto region = Word(line, 1);
    if (!region.ok()) return region.status();
    AddMapping(line, capture::AddressSpaceChange::Kind::kUnmap,
               static_cast<uint32_t>(*region));
  } else if (op == "exec") {
    AddMapping(line, capture::AddressSpaceChange::Kind::kResetUser, 0);
  } else if (op == "function") {
    auto image = Word(line, 1);
    auto start = Word(line, 2);
    auto end = Word(line, 3);
    if (!image.ok()) return image.status();
    if (!start.ok()) return start.status();
    if (!end.ok()) return end.status();
    if (line.words.size() < 5) return LineError(line, "function needs a name");
    script_.functions.push_back({static_cast<uint32_t>(*image), *start, *end,
                                 std::string(line.words[4])});
  } else if (op == "code") {
    HWT_RETURN_IF_ERROR(ParseCode(line));
  } else if (op == "option") {
    if (line.words.size() != 2 || line.words[1] != "per_context") {
      return LineError(line, "unknown option");
    }
    script_.options.per_context = true;
  } else if (op == "stream") {
    auto n = Word(line, 1);
    if (!n.ok()) return n.status();
    stream_ = static_cast<uint32_t>(*n);
    buffers_ = std::max(buffers_, size_t{stream_} + 1);
  } else {
    return false;
  }
  return true;
}

absl::Status ScriptParser::ParseEvent(absl::string_view op, const Line& line) {
  ScriptEvent se;
  se.stream = stream_;
  Event& e = se.event;
  e.offset = Option(line, "offset", static_cast<uint64_t>(line.number));
  if (op == "end") {
    se.end_of_stream = true;
    script_.events.push_back(se);
    return absl::OkStatus();
  }
  if (op == "timestamp") {
    auto t = Word(line, 1);
    if (!t.ok()) return t.status();
    stream_time_[stream_] = *t;
    e.kind = EventKind::kTimestamp;
    e.value = *t;
  } else if (op == "block") {
    auto ip = Word(line, 1);
    auto last = Word(line, 2);
    auto ninsn = Word(line, 3);
    if (!ip.ok()) return ip.status();
    if (!last.ok()) return last.status();
    if (!ninsn.ok()) return ninsn.status();
    if (line.words.size() < 5) return LineError(line, "block needs a kind");
    std::optional<BranchKind> kind = ParseBranchKind(line.words[4]);
    if (!kind) return LineError(line, "unknown branch kind");
    e.kind = EventKind::kBlock;
    e.ip = *ip;
    e.last_ip = *last;
    e.ninsn = static_cast<uint32_t>(*ninsn);
    e.branch = *kind;
    e.next_ip = Option(line, "next", *last + 1);
    e.region = static_cast<uint32_t>(Option(line, "region", 0));
    e.isa = Isa::kX86_64;
  } else if (op == "gap") {
    if (line.words.size() < 2) return LineError(line, "gap needs a reason");
    std::optional<GapReason> reason = ParseGapReason(line.words[1]);
    if (!reason) return LineError(line, "unknown gap reason");
    e.kind = EventKind::kGap;
    e.reason = *reason;
  } else if (op == "disabled" || op == "enabled" || op == "exception" ||
             op == "exception-return") {
    e.kind = op == "disabled"    ? EventKind::kDisabled
             : op == "enabled"   ? EventKind::kEnabled
             : op == "exception" ? EventKind::kException
                                 : EventKind::kExceptionReturn;
    if (line.words.size() > 1) {
      auto ip = Word(line, 1);
      if (!ip.ok()) return ip.status();
      e.ip = *ip;
    }
    e.value = Option(line, "value", 0);
    if (Option(line, "interrupted", 0) != 0) e.code |= kDisabledInterrupted;
  } else if (op == "paging" || op == "context") {
    auto v = Word(line, 1);
    if (!v.ok()) return v.status();
    e.kind = op == "paging" ? EventKind::kPaging : EventKind::kContext;
    e.value = *v;
  } else if (op == "sync") {
    e.kind = EventKind::kSync;
  } else {
    return LineError(line, absl::StrCat("unknown directive ", op));
  }
  e.time = Option(line, "time", stream_time_[stream_]);
  script_.events.push_back(se);
  return absl::OkStatus();
}

EventScript ScriptParser::Finish() {
  script_.timeline.SetBufferCount(buffers_);
  for (const Mapping& m : mappings_) {
    if (m.buffer != kAllBuffers) {
      script_.timeline.AddChange(m.buffer, m.change);
      continue;
    }
    for (size_t b = 0; b < buffers_; ++b) {
      script_.timeline.AddChange(b, m.change);
    }
  }
  return std::move(script_);
}

}  // namespace

absl::StatusOr<EventScript> ParseEventScript(std::string_view text) {
  ScriptParser parser;
  int number = 0;
  for (absl::string_view raw :
       absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    HWT_ASSIGN_OR_RETURN(Line line, TokenizeLine(raw, ++number));
    HWT_RETURN_IF_ERROR(parser.ParseLine(line));
  }
  return parser.Finish();
}

absl::StatusOr<EventScript> ReadEventScript(const std::string& path) {
  HWT_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  absl::StatusOr<EventScript> script = ParseEventScript(text);
  if (!script.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", script.status().message()));
  }
  return script;
}

std::optional<FunctionRange> FakeResolver::FunctionAt(uint32_t image,
                                                      uint64_t vaddr) {
  ++calls_;
  ++per_address_[{image, vaddr}];
  const ScriptFunction* best = nullptr;
  for (const ScriptFunction& f : functions_) {
    if (f.image != image || vaddr < f.start || vaddr >= f.end) continue;
    if (best == nullptr ||
        std::make_tuple(f.start, f.end - f.start) >
            std::make_tuple(best->start, best->end - best->start) ||
        (f.start == best->start && f.end == best->end && f.name < best->name)) {
      best = &f;
    }
  }
  if (best == nullptr) return std::nullopt;
  return FunctionRange{best->start, best->end};
}

bool FakeResolver::HasFunctions(uint32_t image) {
  for (const ScriptFunction& f : functions_) {
    if (f.image == image) return true;
  }
  return false;
}

const ScriptFunction* FakeResolver::Find(uint32_t image, uint64_t start) const {
  const ScriptFunction* best = nullptr;
  for (const ScriptFunction& f : functions_) {
    if (f.image == image && f.start == start &&
        (best == nullptr || f.end - f.start > best->end - best->start ||
         (f.end == best->end && f.name < best->name))) {
      best = &f;
    }
  }
  return best;
}

absl::StatusOr<absl::Span<const uint8_t>> ScriptCodeReader::Read(
    uint32_t region, uint64_t vaddr, size_t size) {
  if (region >= script_.timeline.regions().size()) {
    return absl::InvalidArgumentError("no such region");
  }
  const uint32_t image = script_.timeline.regions()[region].image;
  for (const ScriptCode& code : script_.code) {
    if (code.image == image && vaddr >= code.vaddr &&
        vaddr < code.vaddr + code.bytes.size()) {
      const size_t at = vaddr - code.vaddr;
      return absl::Span<const uint8_t>(code.bytes)
          .subspan(at, std::min(size, code.bytes.size() - at));
    }
  }
  return absl::NotFoundError(absl::StrFormat("no code at 0x%x", vaddr));
}

std::string ScriptFrameName(const EventScript& script, const FrameKey& key) {
  switch (key.kind) {
    case FrameKind::kFunction: {
      FakeResolver resolver(script.functions);
      if (const ScriptFunction* f = resolver.Find(key.image, key.start)) {
        return f->name;
      }
      return absl::StrFormat("[?%u+0x%x]", key.image, key.start);
    }
    case FrameKind::kUnknownCode: {
      std::string image = key.image < script.image_names.size()
                              ? script.image_names[key.image]
                              : "?";
      const size_t slash = image.rfind('/');
      if (slash != std::string::npos) image = image.substr(slash + 1);
      return absl::StrFormat("[%s+0x%x]", image, key.start);
    }
    case FrameKind::kUnknown:
      return "[unknown]";
    case FrameKind::kGap:
      return "[gap]";
  }
  return "?";
}

void FeedEvents(const std::vector<ScriptEvent>& events, EventSink& sink,
                size_t max_batch) {
  std::vector<Event> batch;
  uint32_t stream = 0;
  auto flush = [&] {
    if (!batch.empty()) sink.OnEvents(stream, batch);
    batch.clear();
  };
  for (const ScriptEvent& se : events) {
    if (se.stream != stream || batch.size() >= max_batch) {
      flush();
      stream = se.stream;
    }
    if (se.end_of_stream) {
      flush();
      sink.OnStreamEnd(se.stream);
      continue;
    }
    batch.push_back(se.event);
  }
  flush();
}

Profile BuildProfile(const EventScript& script, size_t max_batch) {
  FakeResolver resolver(script.functions);
  ProfileBuilder builder(script.timeline, resolver, script.options);
  FeedEvents(script.events, builder, max_batch);
  return builder.Finish();
}

Profile BuildProfileInSegments(const EventScript& script,
                               const std::vector<size_t>& cuts,
                               size_t max_batch) {
  FakeResolver resolver(script.functions);
  ProfileMerger merger;
  size_t begin = 0;
  for (size_t i = 0; i <= cuts.size(); ++i) {
    const size_t end = i < cuts.size() ? cuts[i] : script.events.size();
    ProfileOptions options = script.options;
    options.segment = true;
    ProfileBuilder builder(script.timeline, resolver, options);
    FeedEvents({script.events.begin() + begin, script.events.begin() + end},
               builder, max_batch);
    merger.Append(builder.FinishSegment());
    begin = end;
  }
  return merger.Finish();
}

std::map<std::string, uint64_t> StackWeights(const EventScript& script,
                                             const CallTree& tree, bool time) {
  std::map<std::string, uint64_t> out;
  std::vector<std::string> names(tree.nodes.size());
  for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
    const CallTree::Node& n = tree.nodes[i];
    const std::string name = ScriptFrameName(script, n.frame);
    names[i] = n.parent == 0 ? name : absl::StrCat(names[n.parent], ";", name);
    const uint64_t w = time ? n.self_time : n.self_insns;
    if (n.frame.kind != FrameKind::kGap && w != 0) out[names[i]] += w;
  }
  return out;
}

std::string FirstDifference(const std::string& actual,
                            const std::string& expected) {
  if (actual == expected) return "";
  const std::vector<absl::string_view> a = absl::StrSplit(actual, '\n');
  const std::vector<absl::string_view> e = absl::StrSplit(expected, '\n');
  size_t i = 0;
  while (i < a.size() && i < e.size() && a[i] == e[i]) ++i;
  return absl::StrCat("line ", i + 1,
                      ":\n  actual:   ", i < a.size() ? a[i] : "<end>",
                      "\n  expected: ", i < e.size() ? e[i] : "<end>");
}

}  // namespace hwt::analysis::testing
