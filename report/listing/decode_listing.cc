// Implementation of hwt-decode's listings; see decode_listing.h.
#include "report/listing/decode_listing.h"

#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "base/json_text.h"
#include "decoders/insn_walker.h"
#include "decoders/memory_image.h"
#include "decoders/x86/x86_insn.h"
#include "nlohmann/json.hpp"
#include "report/common/symbol_names.h"
#include "report/common/text_util.h"

namespace hwt::report {
namespace {

using Json = nlohmann::json;

bool IsTakenTransfer(BranchKind kind) {
  switch (kind) {
    case BranchKind::kCondTaken:
    case BranchKind::kJump:
    case BranchKind::kJumpIndirect:
    case BranchKind::kCall:
    case BranchKind::kCallIndirect:
    case BranchKind::kReturn:
    case BranchKind::kFarReturn:
    case BranchKind::kFarJump:
      return true;
    default:
      return false;
  }
}

// "[gap: overflow at offset 0x1a0, 16 bytes lost]", "[enabled]", ... for the
// events that are not blocks (empty for events listings skip).
std::string DescribeNonBlockEvent(const Event& e) {
  switch (e.kind) {
    case EventKind::kBlock:
      return "";
    case EventKind::kEnabled:
      return e.ip ? absl::StrFormat("[enabled at 0x%x]", e.ip) : "[enabled]";
    case EventKind::kDisabled:
      return "[disabled]";
    case EventKind::kGap:
      return absl::StrFormat("[gap: %s at offset 0x%x, %u bytes lost]",
                             GapReasonName(e.reason), e.offset, e.value);
    case EventKind::kExecMode:
      return absl::StrFormat("[exec mode: %s]", IsaName(e.isa));
    case EventKind::kPaging:
      return absl::StrFormat("[paging: 0x%x]", e.value);
    case EventKind::kContext:
      return absl::StrFormat("[context: id 0x%x, EL%u, %s]", e.value,
                             e.code & 0xff, IsaName(e.isa));
    case EventKind::kTimestamp:
      return absl::StrFormat("[timestamp 0x%x]", e.value);
    case EventKind::kCoreBusRatio:
      return absl::StrFormat("[core:bus ratio %u]", e.value);
    case EventKind::kException:
      return absl::StrFormat("[exception %u at 0x%x]", e.value, e.ip);
    case EventKind::kExceptionReturn:
      return "[exception return]";
    case EventKind::kSync:
      return "";
    default:
      return "";
  }
}

}  // namespace

// Per-stream state: the stream's own view of memory (to expand blocks and
// read code), the pending branch whose target the next block gives, and the
// call depth.
struct DecodeListing::StreamState {
  StreamState(const capture::AddressSpaceTimeline& timeline, size_t buffer,
              std::shared_ptr<ImageFileCache> files)
      : memory(timeline, buffer, std::move(files)), walker(memory) {}

  MemoryImage memory;
  InsnWalker walker;
  std::vector<uint64_t> addresses;
  // An instruction's disassembly and function name, worked out once per
  // address: --insn prints every executed instruction and loops repeat them.
  // Keyed by region and ISA too: after an exec (or a mode switch) the same
  // address holds other code.
  struct ListedInsn {
    std::string text;
    std::string function;
  };
  absl::flat_hash_map<std::tuple<uint32_t, Isa, uint64_t>, ListedInsn>
      listed_insns;
  std::unique_ptr<x86::InsnDecoder> x86_64, x86_32;

  // The listing text of the instruction at `address`: its disassembly on
  // x86, else its first word as data.
  std::string Disassemble(Isa isa, uint64_t address);

  bool pending = false;  // a taken branch waits for its target
  Event pending_block;
  bool pending_call = false;  // --calls: the next block is a callee
  bool have_root = false;
  int depth = 0;
};

std::string DecodeListing::StreamState::Disassemble(Isa isa, uint64_t address) {
  uint8_t bytes[16];
  size_t n = memory.Read(address, bytes, sizeof(bytes));
  if (isa == Isa::kX86_64 || isa == Isa::kX86_32 || isa == Isa::kX86_16) {
    auto& decoder = isa == Isa::kX86_64 ? x86_64 : x86_32;
    if (!decoder) {
      decoder = x86::InsnDecoder::Create(isa == Isa::kX86_64 ? x86::Mode::k64
                                                             : x86::Mode::k32);
    }
    std::string text = decoder->Disassemble({bytes, n}, address);
    for (char& c : text) {
      if (c == '\t') c = ' ';
    }
    return text;
  }
  if (n >= 4) {
    return absl::StrFormat(".word 0x%02x%02x%02x%02x", bytes[3], bytes[2],
                           bytes[1], bytes[0]);
  }
  return "(no code)";
}

DecodeListing::DecodeListing(const std::vector<StreamInfo>& streams,
                             const capture::AddressSpaceTimeline& timeline,
                             symbolizer::Symbolizer* symbols,
                             ListingOptions options, Output* out)
    : streams_(streams),
      timeline_(timeline),
      symbols_(symbols),
      options_(options),
      out_(out),
      files_(std::make_shared<ImageFileCache>()) {}

DecodeListing::~DecodeListing() = default;

DecodeListing::StreamState& DecodeListing::State(uint32_t stream) {
  if (states_.size() <= stream) states_.resize(stream + 1);
  if (!states_[stream]) {
    size_t buffer =
        stream < streams_.size() ? streams_[stream].buffer_index : 0;
    states_[stream] = std::make_unique<StreamState>(timeline_, buffer, files_);
  }
  return *states_[stream];
}

std::optional<uint32_t> DecodeListing::RegionOf(StreamState& state,
                                                const Event& event,
                                                uint64_t address) {
  if (event.region != 0 && event.region <= timeline_.regions().size()) {
    const capture::Region& r = timeline_.regions()[event.region - 1];
    if (address >= r.start && address < r.end) return event.region - 1;
  }
  return state.memory.RegionAt(address);
}

std::string DecodeListing::Name(StreamState& state, const Event& event,
                                uint64_t address) {
  const std::optional<uint32_t> region = RegionOf(state, event, address);
  if (!region) return "[unknown]";
  const capture::Region& r = timeline_.regions()[*region];
  return FunctionOffsetName(symbols_, timeline_, r.image, address - r.bias);
}

std::string DecodeListing::Prefix(uint32_t stream, uint64_t offset) const {
  if (streams_.size() > 1) {
    return absl::StrFormat("[%u] %08x  ", stream, offset);
  }
  return absl::StrFormat("%08x  ", offset);
}

void DecodeListing::Line(const std::string& text) {
  out_->Write(text);
  out_->Write("\n");
}

void DecodeListing::OnEvents(uint32_t stream, absl::Span<const Event> events) {
  if (options_.stream && *options_.stream != stream) return;
  StreamState& state = State(stream);
  for (const Event& event : events) {
    // A mapping change recorded at trace position P applies to events after
    // P, not at it (decoders/event.h): a block whose packet sits exactly at
    // an exec's position still ran in the old image.
    if (event.offset > 0) state.memory.AdvanceTo(event.offset - 1);
    if (event.kind == EventKind::kBlock) {
      Block(stream, state, event);
    } else {
      Other(stream, state, event);
    }
  }
}

void DecodeListing::OnStreamEnd(uint32_t stream) {
  if (options_.stream && *options_.stream != stream) return;
  if (stream < states_.size() && states_[stream]) {
    ResolvePendingBranch(stream, *states_[stream], nullptr);
  }
}

void DecodeListing::ResolvePendingBranch(uint32_t stream, StreamState& state,
                                         const Event* next_block) {
  if (!state.pending) return;
  state.pending = false;
  const Event& from = state.pending_block;
  const std::string from_name = Name(state, from, from.last_ip);
  if (options_.json) {
    Json j = {{"stream", stream},
              {"offset", from.offset},
              {"from", Hex(from.last_ip)},
              {"from_function", from_name},
              {"kind", BranchKindName(from.branch)}};
    if (next_block != nullptr) {
      j["to"] = Hex(next_block->ip);
      j["to_function"] = Name(state, *next_block, next_block->ip);
    }
    Line(JsonText(j, JsonLayout::kOneLine));
    return;
  }
  std::string to = next_block == nullptr
                       ? std::string("?")
                       : absl::StrFormat("%016x", next_block->ip);
  std::string to_name =
      next_block == nullptr ? "" : Name(state, *next_block, next_block->ip);
  Line(Prefix(stream, from.offset) +
       absl::StrFormat("%016x -> %16s  %-14s %s -> %s", from.last_ip, to,
                       BranchKindName(from.branch), from_name, to_name));
}

void DecodeListing::ListBlock(uint32_t stream, StreamState& state,
                              const Event& e) {
  if (options_.json) {
    Json j = {{"stream", stream},
              {"offset", e.offset},
              {"kind", "block"},
              {"ip", Hex(e.ip)},
              {"last_ip", Hex(e.last_ip)},
              {"ninsn", e.ninsn},
              {"branch", BranchKindName(e.branch)},
              {"function", Name(state, e, e.ip)}};
    if (e.time) j["time"] = e.time;
    Line(JsonText(j, JsonLayout::kOneLine));
  } else {
    Line(Prefix(stream, e.offset) +
         absl::StrFormat("%016x-%016x %6u  %-14s %s", e.ip, e.last_ip, e.ninsn,
                         BranchKindName(e.branch), Name(state, e, e.ip)));
  }
}

void DecodeListing::ListInsns(uint32_t stream, StreamState& state,
                              const Event& e) {
  state.addresses.clear();
  absl::Status walked = state.walker.Expand(e, &state.addresses);
  if (!walked.ok()) {
    ++walk_errors_;
    Line(Prefix(stream, e.offset) +
         absl::StrFormat("[%u instructions from 0x%x: %s]", e.ninsn, e.ip,
                         walked.message()));
    return;
  }
  for (uint64_t address : state.addresses) {
    const uint32_t region = RegionOf(state, e, address).value_or(0xffffffffu);
    StreamState::ListedInsn& listed =
        state.listed_insns[{region, e.isa, address}];
    if (listed.text.empty()) {
      listed.function = Name(state, e, address);
      listed.text = state.Disassemble(e.isa, address);
    }
    if (options_.json) {
      Line(JsonText(Json({{"stream", stream},
                          {"offset", e.offset},
                          {"ip", Hex(address)},
                          {"function", listed.function},
                          {"insn", listed.text}}),
                    JsonLayout::kOneLine));
    } else {
      Line(absl::StrFormat("%s%016x  %-32s %s",
                           streams_.size() > 1
                               ? absl::StrFormat("[%u] ", stream)
                               : std::string(),
                           address, listed.function, listed.text));
    }
  }
}

void DecodeListing::ListInnerNotTakenBranches(uint32_t stream,
                                              StreamState& state,
                                              const Event& e) {
  // Not-taken conditional branches inside an x86 block (libipt blocks run
  // through them).
  if (e.isa != Isa::kX86_64 && e.isa != Isa::kX86_32 && e.isa != Isa::kX86_16) {
    return;
  }
  state.addresses.clear();
  if (!state.walker.Expand(e, &state.addresses).ok()) {
    ++walk_errors_;
    return;
  }
  for (size_t i = 0; i + 1 < state.addresses.size(); ++i) {
    auto insn = state.walker.insns().Get(state.addresses[i], e.isa);
    if (!insn || insn->cls != x86::InsnClass::kCondJump) continue;
    Event inner = e;
    inner.last_ip = state.addresses[i];
    inner.branch = BranchKind::kCondNotTaken;
    Event next = e;
    next.ip = state.addresses[i + 1];
    state.pending = true;
    state.pending_block = inner;
    ResolvePendingBranch(stream, state, &next);
  }
}

void DecodeListing::ListBranches(uint32_t stream, StreamState& state,
                                 const Event& e) {
  ResolvePendingBranch(stream, state, &e);
  ListInnerNotTakenBranches(stream, state, e);
  if (IsTakenTransfer(e.branch)) {
    // Listed when the next block gives its target.
    state.pending = true;
    state.pending_block = e;
  } else if (e.branch == BranchKind::kCondNotTaken ||
             e.branch == BranchKind::kFarCall) {
    Event next = e;
    next.ip = e.next_ip;
    state.pending = true;
    state.pending_block = e;
    ResolvePendingBranch(
        stream, state,
        e.branch == BranchKind::kCondNotTaken && e.next_ip ? &next : nullptr);
  }
}

void DecodeListing::ListCall(uint32_t stream, StreamState& state,
                             const Event& e) {
  if (!state.have_root || state.pending_call) {
    if (state.pending_call) ++state.depth;
    state.have_root = true;
    state.pending_call = false;
    std::string name = Name(state, e, e.ip);
    // Name the function, not the offset into it, for call lines.
    size_t plus = name.rfind("+0x");
    if (plus != std::string::npos && name[0] != '[') name.resize(plus);
    if (options_.json) {
      Line(JsonText(Json({{"stream", stream},
                          {"offset", e.offset},
                          {"depth", state.depth},
                          {"function", name},
                          {"ip", Hex(e.ip)}}),
                    JsonLayout::kOneLine));
    } else {
      Line(Prefix(stream, e.offset) + std::string(2 * state.depth, ' ') + name);
    }
  }
  if (IsCall(e.branch)) {
    state.pending_call = true;
  } else if (e.branch == BranchKind::kReturn && state.depth > 0) {
    --state.depth;
  }
}

void DecodeListing::Block(uint32_t stream, StreamState& state, const Event& e) {
  switch (options_.mode) {
    case ListingMode::kBlocks:
      ListBlock(stream, state, e);
      return;
    case ListingMode::kInsn:
      ListInsns(stream, state, e);
      return;
    case ListingMode::kBranches:
      ListBranches(stream, state, e);
      return;
    case ListingMode::kCalls:
      ListCall(stream, state, e);
      return;
  }
}

void DecodeListing::Other(uint32_t stream, StreamState& state, const Event& e) {
  if (e.kind == EventKind::kGap) {
    ResolvePendingBranch(stream, state, nullptr);
    state.pending_call = false;
    state.have_root = false;
    state.depth = 0;
  }
  const bool blocks = options_.mode == ListingMode::kBlocks;
  const bool insn = options_.mode == ListingMode::kInsn;
  bool show = e.kind == EventKind::kGap || blocks;
  if (insn) {
    show = e.kind != EventKind::kTimestamp &&
           e.kind != EventKind::kCoreBusRatio && e.kind != EventKind::kSync;
  }
  if (!show) return;
  std::string text = DescribeNonBlockEvent(e);
  if (text.empty()) return;
  if (options_.json) {
    Json j = {{"stream", stream},
              {"offset", e.offset},
              {"kind", EventKindName(e.kind)},
              {"text", text}};
    if (e.ip) j["ip"] = Hex(e.ip);
    if (e.kind == EventKind::kGap) {
      j["reason"] = GapReasonName(e.reason);
      j["bytes_lost"] = e.value;
    }
    Line(JsonText(j, JsonLayout::kOneLine));
  } else {
    Line(Prefix(stream, e.offset) + text);
  }
}

}  // namespace hwt::report
