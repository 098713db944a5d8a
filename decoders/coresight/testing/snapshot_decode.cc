// Implementation of the CoreSight test helpers; see snapshot_decode.h.
#include "decoders/coresight/testing/snapshot_decode.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <optional>

#include "base/status_macros.h"
#include "capture/opencsd_snapshot.h"

namespace hwt::coresight::testing {

void CollectingSink::OnEvents(uint32_t stream, absl::Span<const Event> batch) {
  auto& v = events[stream];
  v.insert(v.end(), batch.begin(), batch.end());
}

int Decoded::StreamOf(uint32_t id, size_t buffer) const {
  for (const StreamInfo& s : decoder->streams()) {
    if (s.trace_id == id && s.buffer_index == buffer) {
      return static_cast<int>(s.id);
    }
  }
  return -1;
}

std::vector<Event> Decoded::Blocks(uint32_t stream) const {
  std::vector<Event> blocks;
  auto it = sink.events.find(stream);
  if (it == sink.events.end()) return blocks;
  for (const Event& e : it->second) {
    if (e.kind == EventKind::kBlock) blocks.push_back(e);
  }
  return blocks;
}

absl::StatusOr<std::unique_ptr<Decoded>> DecodeCapture(
    std::unique_ptr<capture::Capture> capture, const DecoderOptions& options,
    const CoreSightOptions& cs_options) {
  auto decoded = std::make_unique<Decoded>();
  decoded->capture = std::move(capture);
  HWT_ASSIGN_OR_RETURN(decoded->timeline,
                       capture::BuildAddressSpaceTimeline(*decoded->capture));
  HWT_ASSIGN_OR_RETURN(
      decoded->decoder,
      CreateCoreSightDecoder(*decoded->capture, decoded->timeline, options,
                             cs_options));
  HWT_RETURN_IF_ERROR(decoded->decoder->Decode(decoded->sink));
  return decoded;
}

absl::StatusOr<std::unique_ptr<Decoded>> DecodeSnapshot(
    const std::string& dir, const DecoderOptions& options,
    const CoreSightOptions& cs_options) {
  HWT_ASSIGN_OR_RETURN(auto capture, capture::OpenOpenCsdSnapshot(dir, {}));
  return DecodeCapture(std::move(capture), options, cs_options);
}

int ForEachListingLine(const std::string& command,
                       const std::function<void(const ListingLine&)>& fn) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  std::string line;
  char buf[65536];
  while (fgets(buf, sizeof(buf), pipe) != nullptr) {
    line += buf;
    if (line.empty() || line.back() != '\n') continue;  // long line
    line.pop_back();
    if (line.rfind("Idx:", 0) == 0) {
      ListingLine l;
      char* end = nullptr;
      l.index = strtoull(line.c_str() + 4, &end, 10);
      size_t id = line.find("; ID:");
      if (id != std::string::npos) {
        l.trace_id =
            static_cast<uint32_t>(strtoul(line.c_str() + id + 5, &end, 16));
        size_t text = line.find("; ", id + 5);
        if (text != std::string::npos) {
          l.text = line.substr(text + 2);
          fn(l);
        }
      }
    }
    line.clear();
  }
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool ParseRange(const std::string& text, Range* range) {
  static const char kPrefix[] = "OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=";
  if (text.rfind(kPrefix, 0) != 0) return false;
  const char* p = text.c_str() + sizeof(kPrefix) - 1;
  char* end = nullptr;
  range->start = strtoull(p, &end, 16);
  if (end == nullptr || end[0] != ':' || end[1] != '[') return false;
  range->end = strtoull(end + 2, &end, 16);
  const char* n = strstr(end, "num_i(");
  if (n == nullptr) return false;
  range->ninsn = static_cast<uint32_t>(strtoul(n + 6, &end, 10));
  return true;
}

Listing ReadListing(const std::string& command) {
  Listing listing;
  listing.exit_status = ForEachListingLine(command, [&](const ListingLine& l) {
    Range r;
    if (ParseRange(l.text, &r)) {
      listing.ranges[l.trace_id].push_back(r);
      listing.range_lines[l.trace_id].push_back(
          "Idx:" + std::to_string(l.index) + "; " + l.text);
    } else if (l.text.rfind("OCSD_GEN_TRC_ELEM_ADDR_NACC", 0) == 0) {
      listing.nacc[l.trace_id]++;
    }
  });
  return listing;
}

Range RangeOf(const Event& block) {
  return Range{block.ip, block.next_ip, block.ninsn};
}

size_t EditDistance(const std::vector<Range>& a, const std::vector<Range>& b) {
  const long n = static_cast<long>(a.size());
  const long m = static_cast<long>(b.size());
  const long max = n + m;
  // Diagonals k in [-max, max] read k - 1 and k + 1: indices 0 to 2 * max + 2.
  std::vector<long> v(2 * max + 3, 0);
  const long offset = max + 1;
  for (long d = 0; d <= max; ++d) {
    for (long k = -d; k <= d; k += 2) {
      long x;
      if (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1])) {
        x = v[offset + k + 1];
      } else {
        x = v[offset + k - 1] + 1;
      }
      long y = x - k;
      while (x < n && y < m && a[x] == b[y]) {
        ++x;
        ++y;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return static_cast<size_t>(d);
    }
  }
  return static_cast<size_t>(max);
}

std::optional<std::vector<DiffHunk>> DiffRanges(const std::vector<Range>& a,
                                                const std::vector<Range>& b,
                                                size_t max_edits) {
  // Common prefix and suffix first: most differences are short hunks in
  // long equal listings, and a missing side is one hunk.
  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) {
    ++prefix;
  }
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
    ++suffix;
  }
  const long n = static_cast<long>(a.size() - prefix - suffix);
  const long m = static_cast<long>(b.size() - prefix - suffix);
  auto A = [&](long i) -> const Range& { return a[prefix + i]; };
  auto B = [&](long j) -> const Range& { return b[prefix + j]; };
  // Myers' greedy forward search, keeping V of every step for the way back.
  std::vector<std::vector<long>> history;  // history[d][k + d]
  std::vector<long> v(2 * (n + m) + 3, 0);
  const long offset = n + m + 1;
  long found = -1;
  for (long d = 0; d <= n + m; ++d) {
    if (static_cast<size_t>(d) > max_edits) return std::nullopt;
    for (long k = -d; k <= d; k += 2) {
      long x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
                   ? v[offset + k + 1]
                   : v[offset + k - 1] + 1;
      long y = x - k;
      while (x < n && y < m && A(x) == B(y)) ++x, ++y;
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
    if (found >= 0) break;
    history.emplace_back(v.begin() + offset - d, v.begin() + offset + d + 1);
  }
  // Back from (n, m): each step of d is one deletion (a) or insertion (b)
  // after a run of equal ranges.
  std::vector<bool> deleted(static_cast<size_t>(n), false);
  std::vector<bool> inserted(static_cast<size_t>(m), false);
  long x = n, y = m;
  for (long d = found; d > 0; --d) {
    const std::vector<long>& prev = history[d - 1];  // index k + (d - 1)
    const long k = x - y;
    auto at = [&](long kk) { return prev[kk + d - 1]; };
    const bool down = k == -d || (k != d && at(k - 1) < at(k + 1));
    const long prev_k = down ? k + 1 : k - 1;
    const long prev_x = at(prev_k);
    const long prev_y = prev_x - prev_k;
    if (down) {
      inserted[prev_y] = true;
    } else {
      deleted[prev_x] = true;
    }
    x = prev_x;
    y = prev_y;
  }
  std::vector<DiffHunk> hunks;
  long i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && !deleted[i] && !inserted[j]) {
      ++i, ++j;
      continue;
    }
    DiffHunk h;
    h.a_begin = prefix + i;
    h.b_begin = prefix + j;
    while (i < n && deleted[i]) ++i;
    while (j < m && inserted[j]) ++j;
    h.a_end = prefix + i;
    h.b_end = prefix + j;
    if (!hunks.empty() && hunks.back().a_end == h.a_begin &&
        hunks.back().b_end == h.b_begin) {
      hunks.back().a_end = h.a_end;  // deletions and insertions interleaved
      hunks.back().b_end = h.b_end;
    } else {
      hunks.push_back(h);
    }
  }
  return hunks;
}

}  // namespace hwt::coresight::testing
