// Fuzzes the Intel PT decode path (libipt block decoder, our event mapping,
// resynchronisation, statistics) and the packet lister over a fixed code
// image: a synthetic x86-64 program (recorder/synthetic_program.h) loaded as
// a memory dump of a PT capture. The input is the trace buffer. Seeds are
// genuine PT of executions of that program (recorder/pt_encoder.h) with and
// without timing, overflows and return compression.
//
// Checks (decode_fixture.h): no crash, no hang, Decode/ListPackets succeed,
// offsets inside the buffer, trace_bytes == bytes_decoded + bytes_lost.
// An input whose last byte is 0x5a is also decoded as two chunks (split at
// a point its first byte chooses, trace lost between them), as a wrapped
// ring buffer is.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "capture/bundle_writer.h"
#include "capture/capture.h"
#include "fuzz/decode_fixture.h"
#include "fuzz/fuzz_support.h"
#include "recorder/pt_encoder.h"
#include "recorder/synthetic_program.h"

namespace {

using hwt::capture::BufferChunk;
using hwt::recorder::PtEncoder;
using hwt::recorder::PtEncoderOptions;
using hwt::recorder::SyntheticExecutionOptions;
using hwt::recorder::SyntheticProgram;
using hwt::recorder::SyntheticProgramOptions;

hwt::fuzz::DecodeFixture* g_fixture = nullptr;

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
    g_fixture->DecodeAndCheck(*capture, size, /*deformatted=*/false);
  }
  if (size > 32 && data[size - 1] == 0x5a) {
    const uint64_t split = 1 + (size - 2) * data[0] / 255;
    BufferChunk first{0, split, false, false, false};
    BufferChunk second{split, size - split, true, false, false};
    auto capture = g_fixture->WithTrace(bytes, {first, second});
    g_fixture->DecodeAndCheck(*capture, size, /*deformatted=*/false);
  }
  return 0;
}
