// Random valid event streams and their reference profile (see
// synthetic_trace.h). The reference model below is written from
// docs/call-stacks.md alone: frames are names, stacks are vectors of names.
#include "analysis/testing/synthetic_trace.h"

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace hwt::analysis::testing {
namespace {

constexpr uint64_t kNoRa = ~uint64_t{0};
constexpr int kOutside = -1000;

struct Fn {
  uint32_t image;
  uint64_t start;  // absolute
  uint64_t end;
  std::string name;
  int plt_target = -1;  // PLT stubs: the function they jump to
};

struct Img {
  std::string path;
  uint64_t start;
  uint64_t end;
  uint64_t bias;
  uint32_t region;
};

// The reference model's view of one thread.
struct RefFrame {
  std::string name;
  uint64_t ra = kNoRa;
  bool far = false;
};

struct RefThread {
  std::vector<RefFrame> stack;
  BranchKind prev_kind = BranchKind::kNone;
  uint64_t prev_next = 0;
  int prev_last_fn = kOutside;
  bool disabled = false;
};

struct GenThread {
  uint32_t stream = 0;
  uint64_t context = 0;
  uint64_t pc = 0;
  std::vector<uint64_t> rs;  // where the generator means to return
  RefThread ref;
};

struct GenStream {
  uint64_t time = 1000;
  uint64_t offset = 0;
  uint64_t context = 0;
  // Reference timing: the last block's stack waiting for its weight.
  bool pending = false;
  std::string pending_key;
  uint64_t pending_time = 0;
};

class Generator {
 public:
  explicit Generator(const SyntheticOptions& options)
      : options_(options), rng_(options.seed) {}

  SyntheticTrace Run();

 private:
  // --- the synthetic program ---
  void BuildProgram();
  const Img* ImageOf(uint64_t ip) const;
  // Function index; -(1 + image) for code without a symbol; kOutside.
  int FunctionOf(uint64_t ip) const;
  // The frame name of a frame entered at `ip` (docs/call-stacks.md).
  std::string FrameName(uint64_t ip) const;
  // [lo, hi): where a block starting at ip must stay.
  std::pair<uint64_t, uint64_t> AreaOf(uint64_t ip) const;
  uint64_t RandomAddressIn(const Fn& fn);
  uint64_t CallTarget();

  // --- emission ---
  uint64_t Rand(uint64_t n) { return n == 0 ? 0 : rng_() % n; }
  bool Chance(double p) {
    return std::uniform_real_distribution<double>(0, 1)(rng_) < p;
  }
  void Emit(GenStream& s, uint32_t stream, Event e);
  void EmitBlock(GenThread& t, GenStream& s, uint64_t ip, uint32_t n,
                 BranchKind kind);
  void EmitDisabledEnabled(GenThread& t, GenStream& s, uint64_t resume);
  void Step(GenThread& t, GenStream& s);
  // The kind of branch that ends the block at `ip` (an Action).
  int ChooseAction(const GenThread& t, uint64_t next, uint64_t hi);
  // The block of [ip, ip + 4n) that ends in a system call; traced kernel
  // blocks or a disabled/enabled pair follow.
  void StepSyscall(GenThread& t, GenStream& s, uint64_t ip, uint32_t n,
                   uint64_t next);
  // A jump into another function's body; returns the target.
  uint64_t StepJumpOut(GenThread& t, GenStream& s, uint64_t ip, uint32_t n);
  // A block, then a gap that loses the stack; returns where trace resumes.
  uint64_t StepGap(GenThread& t, GenStream& s, uint64_t ip, uint32_t n);

  // --- the reference model ---
  void RefBlock(GenThread& t, GenStream& s, uint64_t ip, uint32_t n,
                BranchKind kind, uint64_t next, uint64_t last);
  void RefResolveTime(GenStream& s, uint64_t time);
  void RefRoot(RefThread& r, uint64_t ip) {
    r.stack.assign(1, RefFrame{FrameName(ip), kNoRa, false});
  }

  const SyntheticOptions options_;
  std::mt19937_64 rng_;
  SyntheticTrace out_;
  std::vector<Img> images_;
  std::vector<Fn> fns_;
  std::vector<int> plain_;  // ordinary library functions
  std::vector<int> plts_;
  std::vector<int> app_;
  int syscall_entry_ = -1;
  int sys_work_ = -1;
  uint64_t nosym_start_ = 0, nosym_end_ = 0;
  static constexpr uint64_t kOutsideStart = 0x900000;
  static constexpr uint64_t kOutsideEnd = 0x908000;
  std::map<std::pair<uint32_t, uint64_t>, GenThread> threads_;
  std::vector<GenStream> streams_;
};

void Generator::BuildProgram() {
  EventScript& script = out_.script;
  auto add_image = [&](std::string path, uint64_t start, uint64_t end,
                       uint64_t bias, bool kernel) {
    capture::Image image;
    image.recorded_path = path;
    image.kernel = kernel;
    const uint32_t index = script.timeline.AddImage(image);
    script.image_names.push_back(path);
    capture::Region region;
    region.image = index;
    region.start = start;
    region.end = end;
    region.bias = bias;
    region.file_size = end - start;
    const uint32_t r = script.timeline.AddRegion(region);
    images_.push_back({path, start, end, bias, r});
    return index;
  };
  auto add_fn = [&](uint32_t image, uint64_t vaddr, uint64_t size,
                    std::string name) {
    const Img& img = images_[image];
    fns_.push_back({image, img.bias + vaddr, img.bias + vaddr + size, name});
    script.functions.push_back({image, vaddr, vaddr + size, name});
    return static_cast<int>(fns_.size() - 1);
  };
  const uint64_t lib = 0x7f0000000000;
  add_image("/usr/lib/libsynth.so.1", lib, lib + 0x100000, lib, false);
  add_image("/usr/bin/app", 0x400000, 0x480000, 0, false);
  for (int i = 0; i < 12; ++i) {
    plain_.push_back(
        add_fn(0, 0x1000 * (i + 1), 0x800, absl::StrFormat("f%d", i)));
  }
  for (int i : {3, 5, 7}) {
    const int stub = add_fn(0, 0x20000 + 0x10 * plts_.size(), 0x10,
                            absl::StrFormat("f%d@plt", i));
    fns_[stub].plt_target = plain_[i];
    plts_.push_back(stub);
  }
  nosym_start_ = lib + 0x30000;
  nosym_end_ = lib + 0x38000;
  app_.push_back(add_fn(1, 0x401000, 0x800, "main"));
  app_.push_back(add_fn(1, 0x402000, 0x800, "helper"));
  const uint64_t kernel = 0xffffffff80000000;
  add_image("/boot/kernel/kernel", kernel, kernel + 0x100000,
            kernel - 0x1000000, true);
  syscall_entry_ = add_fn(2, 0x1000000, 0x100, "syscall_entry");
  sys_work_ = add_fn(2, 0x1000100, 0x100, "sys_work");

  script.timeline.SetBufferCount(options_.streams);
  for (int b = 0; b < options_.streams; ++b) {
    for (const Img& img : images_) {
      script.timeline.AddChange(
          b, {capture::AddressSpaceChange::Kind::kMap, 0, img.region});
    }
  }
  script.options.per_context = options_.per_context;
}

const Img* Generator::ImageOf(uint64_t ip) const {
  for (const Img& img : images_) {
    if (ip >= img.start && ip < img.end) return &img;
  }
  return nullptr;
}

int Generator::FunctionOf(uint64_t ip) const {
  for (size_t i = 0; i < fns_.size(); ++i) {
    if (ip >= fns_[i].start && ip < fns_[i].end) return static_cast<int>(i);
  }
  const Img* img = ImageOf(ip);
  if (img == nullptr) return kOutside;
  return -1 - static_cast<int>(img - images_.data());
}

std::string Generator::FrameName(uint64_t ip) const {
  const int fn = FunctionOf(ip);
  if (fn >= 0) return fns_[fn].name;
  if (fn == kOutside) return "[unknown]";
  const Img& img = images_[-1 - fn];
  const std::string base = img.path.substr(img.path.rfind('/') + 1);
  return absl::StrFormat("[%s+0x%x]", base, ip - img.bias);
}

std::pair<uint64_t, uint64_t> Generator::AreaOf(uint64_t ip) const {
  const int fn = FunctionOf(ip);
  if (fn >= 0) return {fns_[fn].start, fns_[fn].end};
  if (fn == kOutside) return {kOutsideStart, kOutsideEnd};
  return {nosym_start_, nosym_end_};
}

uint64_t Generator::RandomAddressIn(const Fn& fn) {
  return fn.start + 4 * Rand((fn.end - fn.start) / 4);
}

uint64_t Generator::CallTarget() {
  const uint64_t r = Rand(100);
  if (r < 60) return fns_[plain_[Rand(plain_.size())]].start;
  if (r < 75) return fns_[plts_[Rand(plts_.size())]].start;
  if (r < 82) return nosym_start_ + 4 * Rand((nosym_end_ - nosym_start_) / 4);
  if (r < 85)
    return kOutsideStart + 4 * Rand((kOutsideEnd - kOutsideStart) / 4);
  return fns_[app_[Rand(app_.size())]].start;
}

void Generator::Emit(GenStream& s, uint32_t stream, Event e) {
  e.offset = s.offset++;
  if (options_.timing) e.time = s.time;
  out_.script.events.push_back(ScriptEvent{stream, false, e});
}

void Generator::EmitBlock(GenThread& t, GenStream& s, uint64_t ip, uint32_t n,
                          BranchKind kind) {
  Event e;
  e.kind = EventKind::kBlock;
  e.ip = ip;
  e.last_ip = ip + 4 * (n - 1);
  e.next_ip = e.last_ip + 4;
  e.ninsn = n;
  e.branch = kind;
  e.isa = Isa::kX86_64;
  const Img* img = ImageOf(ip);
  // Half the blocks name their region, the others leave it to the lookup.
  if (img != nullptr && Chance(0.5)) e.region = img->region + 1;
  Emit(s, t.stream, e);
  RefBlock(t, s, ip, n, kind, e.next_ip, e.last_ip);
}

void Generator::EmitDisabledEnabled(GenThread& t, GenStream& s,
                                    uint64_t resume) {
  Event off;
  off.kind = EventKind::kDisabled;
  Emit(s, t.stream, off);
  t.ref.disabled = true;
  RefResolveTime(s, options_.timing ? s.time : 0);
  s.pending = false;
  s.time += 1 + Rand(50);
  Event on;
  on.kind = EventKind::kEnabled;
  on.ip = resume;
  Emit(s, t.stream, on);
}

enum Action {
  kCall,
  kReturn,
  kJumpIn,
  kFall,
  kTail,
  kSyscall,
  kUntracedCall,
  kLongjmp,
  kJumpOut,
  kBogusReturn,
  kGap,
  kActions
};

int Generator::ChooseAction(const GenThread& t, uint64_t next, uint64_t hi) {
  double weights[kActions] = {};
  weights[kCall] = t.rs.size() < 12 ? 20 : 0;
  weights[kReturn] = t.rs.empty() ? 2 : 20;
  weights[kJumpIn] = 14;
  weights[kFall] = next < hi ? 12 : 0;
  weights[kTail] = 4;
  weights[kSyscall] = next < hi ? 3 : 0;
  weights[kUntracedCall] = next < hi ? 2 : 0;
  weights[kLongjmp] = t.rs.size() >= 2 ? 2 : 0;
  weights[kJumpOut] = 3;
  weights[kBogusReturn] = 1;
  weights[kGap] = options_.gaps ? 0.4 : 0;
  return std::discrete_distribution<int>(std::begin(weights),
                                         std::end(weights))(rng_);
}

void Generator::StepSyscall(GenThread& t, GenStream& s, uint64_t ip, uint32_t n,
                            uint64_t next) {
  EmitBlock(t, s, ip, n, BranchKind::kFarCall);
  if (options_.kernel && Chance(0.3)) {
    // The kernel is traced: handler, a call inside it, far return.
    const uint64_t entry = fns_[syscall_entry_].start;
    t.pc = entry;
    EmitBlock(t, s, entry, 3, BranchKind::kCall);
    EmitBlock(t, s, fns_[sys_work_].start, 2, BranchKind::kReturn);
    EmitBlock(t, s, entry + 12, 2, BranchKind::kFarReturn);
  } else {
    EmitDisabledEnabled(t, s, next);
  }
}

uint64_t Generator::StepJumpOut(GenThread& t, GenStream& s, uint64_t ip,
                                uint32_t n) {
  // Mostly into a function that has a frame on the stack (longjmp's jmp
  // back into setjmp's caller: unwinds), else any function (a tail call
  // unless it happens to be on the stack), code without a symbol, or a
  // function's entry (a tail call even when the function is on the stack).
  static constexpr BranchKind kKinds[] = {
      BranchKind::kJump, BranchKind::kCondTaken, BranchKind::kJumpIndirect};
  const BranchKind kind = kKinds[Rand(3)];
  const uint64_t r = Rand(100);
  std::vector<size_t> frames;  // stack frames of symbol functions
  for (size_t i = 0; i < t.ref.stack.size(); ++i) {
    for (const Fn& f : fns_) {
      if (f.name == t.ref.stack[i].name && f.plt_target < 0) {
        frames.push_back(i);
        break;
      }
    }
  }
  uint64_t target;
  if (r < 55 && !frames.empty()) {
    const size_t i = frames[Rand(frames.size())];
    const Fn* fn = nullptr;
    for (const Fn& f : fns_) {
      if (f.name == t.ref.stack[i].name) fn = &f;
    }
    target = fn->start + 4 * (1 + Rand((fn->end - fn->start) / 4 - 1));
    // The generator's own notion of where returns go follows: frame i
    // (i > 0) returns to rs[i - 1] when the two agree.
    if (t.rs.size() > i) t.rs.resize(i);
  } else if (r < 80) {
    const Fn& fn = fns_[plain_[Rand(plain_.size())]];
    target = fn.start + 4 * (1 + Rand((fn.end - fn.start) / 4 - 1));
  } else if (r < 90) {
    target = nosym_start_ + 4 * Rand((nosym_end_ - nosym_start_) / 4);
  } else {
    target = fns_[app_[Rand(app_.size())]].start;
  }
  EmitBlock(t, s, ip, n, kind);
  return target;
}

uint64_t Generator::StepGap(GenThread& t, GenStream& s, uint64_t ip,
                            uint32_t n) {
  EmitBlock(t, s, ip, n, BranchKind::kNone);
  static constexpr GapReason kReasons[] = {
      GapReason::kOverflow, GapReason::kDecodeError, GapReason::kLostData};
  Event gap;
  gap.kind = EventKind::kGap;
  gap.reason = kReasons[Rand(3)];
  Emit(s, t.stream, gap);
  ++out_.expected.gaps;
  t.ref.stack.clear();
  t.ref.disabled = false;
  s.pending = false;
  const uint64_t target = RandomAddressIn(fns_[plain_[Rand(plain_.size())]]);
  t.rs.clear();
  return target;
}

void Generator::Step(GenThread& t, GenStream& s) {
  const uint64_t ip = t.pc;
  const int fn = FunctionOf(ip);
  if (fn >= 0 && fns_[fn].plt_target >= 0 && ip == fns_[fn].start) {
    // A PLT stub: one indirect jump to its function.
    EmitBlock(t, s, ip, 1, BranchKind::kJumpIndirect);
    t.pc = fns_[fns_[fn].plt_target].start;
    return;
  }
  const auto [lo, hi] = AreaOf(ip);
  const uint32_t n =
      1 + static_cast<uint32_t>(Rand(std::min<uint64_t>(6, (hi - ip) / 4)));
  const uint64_t last = ip + 4 * (n - 1);
  const uint64_t next = last + 4;
  const int action = ChooseAction(t, next, hi);

  uint64_t target = next;
  bool may_interrupt = true;
  switch (action) {
    case kCall:
      target = CallTarget();
      t.rs.push_back(next);
      EmitBlock(t, s, ip, n,
                Chance(0.5) ? BranchKind::kCall : BranchKind::kCallIndirect);
      break;
    case kReturn:
      if (t.rs.empty()) {
        target = RandomAddressIn(fns_[plain_[Rand(plain_.size())]]);
      } else {
        target = t.rs.back();
        t.rs.pop_back();
      }
      EmitBlock(t, s, ip, n, BranchKind::kReturn);
      break;
    case kJumpIn: {
      static constexpr BranchKind kKinds[] = {
          BranchKind::kJump, BranchKind::kCondTaken, BranchKind::kJumpIndirect};
      target = lo + 4 * Rand((hi - lo) / 4);
      EmitBlock(t, s, ip, n, kKinds[Rand(3)]);
      break;
    }
    case kFall: {
      static constexpr BranchKind kKinds[] = {
          BranchKind::kCondNotTaken, BranchKind::kNone, BranchKind::kOther};
      EmitBlock(t, s, ip, n, kKinds[Rand(3)]);
      break;
    }
    case kTail:
      target = fns_[plain_[Rand(plain_.size())]].start;
      EmitBlock(t, s, ip, n,
                Chance(0.5) ? BranchKind::kJump : BranchKind::kJumpIndirect);
      break;
    case kSyscall:
      StepSyscall(t, s, ip, n, next);
      may_interrupt = false;
      break;
    case kUntracedCall:
      EmitBlock(t, s, ip, n, BranchKind::kCall);
      EmitDisabledEnabled(t, s, next);
      may_interrupt = false;
      break;
    case kLongjmp: {
      const size_t k = Rand(t.rs.size() - 1);
      target = t.rs[k];
      t.rs.resize(k);
      EmitBlock(t, s, ip, n, BranchKind::kReturn);
      break;
    }
    case kJumpOut:
      target = StepJumpOut(t, s, ip, n);
      break;
    case kBogusReturn:
      target = RandomAddressIn(fns_[plain_[Rand(plain_.size())]]);
      if (!t.rs.empty()) t.rs.pop_back();
      EmitBlock(t, s, ip, n, BranchKind::kReturn);
      break;
    case kGap:
      target = StepGap(t, s, ip, n);
      may_interrupt = false;
      break;
  }
  if (may_interrupt && Chance(0.02)) {
    // An interrupt before the target's first instruction, handler untraced.
    Event exception;
    exception.kind = EventKind::kException;
    exception.ip = target;
    Emit(s, t.stream, exception);
    EmitDisabledEnabled(t, s, target);
  }
  t.pc = target;
}

void Generator::RefResolveTime(GenStream& s, uint64_t time) {
  if (s.pending && time > s.pending_time) {
    out_.expected.stack_time[s.pending_key] += time - s.pending_time;
  }
  s.pending = false;
}

void Generator::RefBlock(GenThread& t, GenStream& s, uint64_t ip, uint32_t n,
                         BranchKind kind, uint64_t next, uint64_t last) {
  RefThread& r = t.ref;
  if (options_.timing) RefResolveTime(s, s.time);
  if (r.stack.empty()) {
    RefRoot(r, ip);
  } else {
    switch (r.prev_kind) {
      case BranchKind::kCall:
      case BranchKind::kCallIndirect:
        if (r.disabled && ip == r.prev_next) break;  // callee untraced
        ++out_.expected.call_edges[r.stack.back().name + "->" + FrameName(ip)];
        r.stack.push_back({FrameName(ip), r.prev_next, false});
        break;
      case BranchKind::kReturn: {
        size_t i = r.stack.size();
        while (i > 0 && r.stack[i - 1].ra != ip) --i;
        r.stack.resize(i > 0 ? i - 1 : r.stack.size() - 1);
        if (r.stack.empty()) RefRoot(r, ip);
        break;
      }
      case BranchKind::kCondTaken:
      case BranchKind::kJump:
      case BranchKind::kJumpIndirect: {
        const int fn = FunctionOf(ip);
        if (r.prev_last_fn == fn) break;
        // Into a symbol's body with a frame of it on the stack: unwind to
        // its newest frame (longjmp). Symbol names are unique here, so a
        // frame's name says its function.
        if (fn >= 0 && ip != fns_[fn].start) {
          size_t i = r.stack.size();
          while (i > 0 && r.stack[i - 1].name != fns_[fn].name) --i;
          if (i > 0) {
            r.stack.resize(i);
            break;
          }
        }
        r.stack.back().name = FrameName(ip);  // a tail call
        break;
      }
      case BranchKind::kFarCall:
        if (!r.disabled && ip != r.prev_next) {
          r.stack.push_back({FrameName(ip), kNoRa, true});
        }
        break;
      case BranchKind::kFarReturn: {
        size_t i = r.stack.size();
        while (i > 0 && !r.stack[i - 1].far) --i;
        if (i > 0) {
          r.stack.resize(i - 1);
          if (r.stack.empty()) RefRoot(r, ip);
        }
        break;
      }
      default:
        break;
    }
  }
  std::vector<std::string> names;
  for (const RefFrame& f : r.stack) names.push_back(f.name);
  const std::string key = absl::StrJoin(names, ";");
  out_.expected.stacks[key] += n;
  out_.expected.thread_stacks[{t.stream, t.context}][key] += n;
  out_.expected.instructions += n;
  ++out_.expected.blocks;
  r.prev_kind = kind;
  r.prev_next = next;
  r.prev_last_fn = FunctionOf(last);
  r.disabled = false;
  if (options_.timing) {
    s.pending = true;
    s.pending_key = key;
    s.pending_time = s.time;
  }
}

SyntheticTrace Generator::Run() {
  BuildProgram();
  streams_.resize(options_.streams);
  for (size_t i = 0; i < options_.blocks; ++i) {
    const uint32_t stream = static_cast<uint32_t>(Rand(options_.streams));
    GenStream& s = streams_[stream];
    if (options_.per_context && Chance(0.03)) {
      s.context = 0x1000 * Rand(options_.contexts);
      Event paging;
      paging.kind = EventKind::kPaging;
      paging.value = s.context;
      Emit(s, stream, paging);
    }
    if (options_.timing && Chance(0.3)) {
      s.time += 1 + Rand(100);
      Event ts;
      ts.kind = EventKind::kTimestamp;
      ts.value = s.time;
      Emit(s, stream, ts);
    }
    auto [it, inserted] = threads_.try_emplace({stream, s.context});
    GenThread& t = it->second;
    if (inserted) {
      t.stream = stream;
      t.context = s.context;
      t.pc = fns_[app_[0]].start;
    }
    Step(t, s);
  }
  return std::move(out_);
}

}  // namespace

SyntheticTrace GenerateSyntheticTrace(const SyntheticOptions& options) {
  return Generator(options).Run();
}

}  // namespace hwt::analysis::testing
