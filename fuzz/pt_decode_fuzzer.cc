// Fuzzes the Intel PT decode path (libipt block decoder, our event mapping,
// resynchronisation, statistics) and the packet lister over a fixed code
// image: a synthetic x86-64 program (recorder/synthetic_program.h) loaded as
// a memory dump of a PT capture. The input is the trace buffer. Seeds are
// genuine PT of executions of that program (recorder/pt_encoder.h) with and
// without timing, overflows and return compression.
//
// Checks (decode_fixture.h): no crash, no hang, Decode/ListPackets succeed,
// offsets inside the buffer, trace_bytes == bytes_decoded + bytes_lost; the
// fast instruction count equals Decode()'s, and the profile built through
// the fast engine equals the one built through libipt (analysis::
// ProfileToText, byte for byte, with the program's functions as function
// boundaries), on every input that decodes without an error but overflows.
// An input whose last byte is 0x5a is also decoded as two chunks (split at
// a point its first byte chooses, trace lost between them), as a wrapped
// ring buffer is.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/function_resolver.h"
#include "capture/bundle_writer.h"
#include "capture/capture.h"
#include "fuzz/decode_fixture.h"
#include "fuzz/fuzz_support.h"
#include "recorder/pt_encoder.h"
#include "recorder/synthetic_capture.h"
#include "recorder/synthetic_program.h"

namespace {

using hwt::capture::BufferChunk;
using hwt::recorder::PtEncoder;
using hwt::recorder::PtEncoderOptions;
using hwt::recorder::SyntheticExecutionOptions;
using hwt::recorder::SyntheticProgram;
using hwt::recorder::SyntheticProgramOptions;

// Function boundaries: the synthetic program's functions (as hwt_bench
// gives them), so that the profiles have real call stacks.
class ProgramFunctions : public hwt::analysis::FunctionResolver {
 public:
  explicit ProgramFunctions(const SyntheticProgram& program)
      : ranges_(hwt::recorder::SyntheticFunctions(program)) {}
  std::optional<hwt::analysis::FunctionRange> FunctionAt(
      uint32_t, uint64_t vaddr) override {
    auto it = std::upper_bound(
        ranges_.begin(), ranges_.end(), vaddr,
        [](uint64_t v, const auto& range) { return v < range.start; });
    if (it == ranges_.begin() || vaddr >= (--it)->end) return std::nullopt;
    return hwt::analysis::FunctionRange{it->start, it->end};
  }

 private:
  std::vector<hwt::recorder::SyntheticFunction> ranges_;  // sorted
};

hwt::fuzz::DecodeFixture* g_fixture = nullptr;
ProgramFunctions* g_functions = nullptr;

std::string Encode(const SyntheticProgram& program, PtEncoderOptions options,
                   uint64_t seed, uint64_t instructions,
                   hwt::capture::PtConfig* config) {
  std::string trace;
  auto source = program.NewInsnSource();
  PtEncoder encoder(source.get(), options, hwt::recorder::StringWriter(&trace));
  SyntheticExecutionOptions run;
  run.seed = seed;
  run.instructions = instructions;
  hwt::recorder::RunSyntheticExecution(program, run, &encoder);
  hwt::fuzz::CheckOk(encoder.Finish(), "PtEncoder::Finish");
  if (config != nullptr) *config = encoder.pt_config();
  return trace;
}

void Initialize() {
  SyntheticProgramOptions program_options;
  program_options.seed = 7;
  program_options.functions = 10;
  const SyntheticProgram program = SyntheticProgram::Generate(program_options);

  std::vector<std::string> seeds;
  hwt::capture::PtConfig pt_config;
  PtEncoderOptions plain;
  plain.psb_period = 512;
  seeds.push_back(Encode(program, plain, 1, 1500, &pt_config));
  PtEncoderOptions timed = plain;
  timed.timing.tsc = timed.timing.mtc = timed.timing.cyc = true;
  seeds.push_back(Encode(program, timed, 2, 800, nullptr));
  PtEncoderOptions odd = plain;
  odd.return_compression = false;
  odd.long_tnt = true;
  odd.overflows.push_back({200, 30});
  odd.overflows.push_back({600, 1});
  seeds.push_back(Encode(program, odd, 3, 1200, nullptr));
  hwt::fuzz::WriteGeneratedSeeds("pt", seeds);

  // The capture: a bundle with the program as a memory dump, opened as
  // every tool opens captures.
  const std::string bundle = hwt::fuzz::ScratchDir() + "/pt.hwt";
  hwt::capture::BundleContents contents;
  hwt::capture::Manifest& m = contents.manifest;
  m.backend = hwt::capture::Backend::kPt;
  m.cpu.arch = "x86_64";
  m.cpu.vendor = "GenuineIntel";
  m.cpu.family = 6;
  m.cpu.model = 85;
  m.cpu.stepping = 4;
  m.cpu.cpuid_15_eax = timed.timing.cpuid_15_eax;
  m.cpu.cpuid_15_ebx = timed.timing.cpuid_15_ebx;
  m.pt = pt_config;
  hwt::capture::BufferContents buffer;
  buffer.info.id = 0;
  buffer.info.thread = 0;
  buffer.data = seeds[0];
  contents.buffers.push_back(std::move(buffer));
  contents.extra_files.emplace_back("mem/code.bin", program.code());
  hwt::capture::MemoryDump dump;
  dump.file = "mem/code.bin";
  dump.address = program.base();
  m.memory.push_back(dump);
  hwt::fuzz::CheckOk(hwt::capture::WriteBundle(bundle, contents),
                     "WriteBundle");
  auto capture = hwt::capture::OpenCapture(bundle, {});
  hwt::fuzz::CheckOk(capture.status(), "OpenCapture");
  g_fixture = new hwt::fuzz::DecodeFixture(std::move(*capture), 0);
  g_functions = new ProgramFunctions(program);
}

// The checks of decode_fixture.h, and the two engines' profiles where the
// trace decoded without an error but overflows.
void Check(const hwt::capture::Capture& capture, uint64_t size) {
  const std::vector<hwt::StreamStats> stats =
      g_fixture->DecodeAndCheck(capture, size, /*deformatted=*/false);
  if (hwt::fuzz::NoErrorButOverflows(stats)) {
    g_fixture->CheckEnginesAgree(capture, *g_functions);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Initialize();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto bytes = absl::MakeConstSpan(data, size);
  {
    auto capture = g_fixture->WithTrace(bytes);
    Check(*capture, size);
  }
  if (size > 32 && data[size - 1] == 0x5a) {
    const uint64_t split = 1 + (size - 2) * data[0] / 255;
    BufferChunk first{0, split, false, false, false};
    BufferChunk second{split, size - split, true, false, false};
    auto capture = g_fixture->WithTrace(bytes, {first, second});
    Check(*capture, size);
  }
  return 0;
}
