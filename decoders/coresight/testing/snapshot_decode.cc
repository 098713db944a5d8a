// Implementation of the CoreSight test helpers; see snapshot_decode.h.
#include "decoders/coresight/testing/snapshot_decode.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>

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
  std::vector<long> v(2 * max + 2, 0);
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

}  // namespace hwt::coresight::testing
