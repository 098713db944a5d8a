// Implementation of the hostile-input test helpers; see hostile_inputs.h.
#include "tests/hostile/testing/hostile_inputs.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "capture/bundle_writer.h"
#include "gtest/gtest.h"

namespace hwt::hostile {

PtCase MakePtCase(uint64_t instructions,
                  const recorder::PtEncoderOptions& options, uint64_t seed) {
  recorder::SyntheticProgramOptions program_options;
  program_options.seed = seed;
  program_options.functions = 8;
  PtCase c{recorder::SyntheticProgram::Generate(program_options), "", {}, {}};
  auto source = c.program.NewInsnSource();
  recorder::PtEncoder encoder(source.get(), options,
                              recorder::StringWriter(&c.trace));
  encoder.set_packet_observer([&](const recorder::PtPacketInfo& info) {
    c.packet_offsets.push_back(info.offset);
  });
  recorder::SyntheticExecutionOptions run;
  run.seed = seed;
  run.instructions = instructions;
  recorder::RunSyntheticExecution(c.program, run, &encoder);
  absl::Status status = encoder.Finish();
  EXPECT_TRUE(status.ok()) << status;
  c.pt_config = encoder.pt_config();
  return c;
}

absl::Status WritePtBundle(const std::string& dir, const PtCase& c,
                           const std::string& trace) {
  capture::BundleContents contents;
  capture::Manifest& m = contents.manifest;
  m.backend = capture::Backend::kPt;
  m.cpu.arch = "x86_64";
  m.cpu.vendor = "GenuineIntel";
  m.cpu.family = 6;
  m.cpu.model = 85;
  m.cpu.stepping = 4;
  m.pt = c.pt_config;
  capture::BufferContents buffer;
  buffer.info.id = 0;
  buffer.info.thread = 0;
  buffer.data = trace;
  contents.buffers.push_back(std::move(buffer));
  contents.extra_files.emplace_back("mem/code.bin", c.program.code());
  capture::MemoryDump dump;
  dump.file = "mem/code.bin";
  dump.address = c.program.base();
  m.memory.push_back(dump);
  return capture::WriteBundle(dir, contents);
}

absl::StatusOr<std::unique_ptr<CaptureUnderTest>> CaptureUnderTest::Open(
    const std::string& path, const capture::InputOptions& options) {
  auto result = std::make_unique<CaptureUnderTest>();
  HWT_ASSIGN_OR_RETURN(result->capture_, capture::OpenCapture(path, options));
  HWT_ASSIGN_OR_RETURN(result->timeline_,
                       capture::BuildAddressSpaceTimeline(*result->capture_));
  HWT_ASSIGN_OR_RETURN(TempDir scratch, TempDir::Create("hwt-hostile"));
  result->scratch_ = std::make_unique<TempDir>(std::move(scratch));
  return result;
}

std::unique_ptr<capture::Capture> CaptureUnderTest::WithTrace(
    const std::string& bytes) {
  // A new file each time: captures made earlier may still map theirs.
  const std::string file =
      absl::StrFormat("%s/trace-%d.bin", scratch_->path(), traces_++);
  EXPECT_TRUE(WriteFileAtomically(file, bytes).ok());
  capture::Manifest manifest = capture_->manifest();
  manifest.buffers.at(0).file = file;
  manifest.buffers.at(0).size = bytes.size();
  manifest.buffers.at(0).chunks.clear();
  return std::make_unique<capture::Capture>(
      capture_->kind(), capture_->source_path(), capture_->root(),
      std::move(manifest), capture_->records(), capture_->options(),
      std::nullopt);
}

namespace {

class KeepingSink : public EventSink {
 public:
  explicit KeepingSink(Decoded* out) : out_(out) {}
  void OnEvents(uint32_t stream, absl::Span<const Event> events) override {
    if (out_->events.size() <= stream) out_->events.resize(stream + 1);
    out_->events[stream].insert(out_->events[stream].end(), events.begin(),
                                events.end());
  }
  void OnStreamEnd(uint32_t stream) override {
    if (out_->ends.size() <= stream) out_->ends.resize(stream + 1);
    ++out_->ends[stream];
  }

 private:
  Decoded* out_;
};

}  // namespace

std::vector<Event> Decoded::Blocks(uint32_t stream) const {
  std::vector<Event> blocks;
  if (stream >= events.size()) return blocks;
  for (const Event& e : events[stream]) {
    if (e.kind == EventKind::kBlock) blocks.push_back(e);
  }
  return blocks;
}

uint64_t Decoded::Instructions() const {
  uint64_t n = 0;
  for (const StreamStats& s : stats) n += s.instructions;
  return n;
}

Decoded Decode(const capture::Capture& capture,
               const capture::AddressSpaceTimeline& timeline) {
  Decoded result;
  auto decoder = CreateDecoder(capture, timeline, {});
  if (!decoder.ok()) {
    result.status = decoder.status();
    return result;
  }
  result.events.resize((*decoder)->streams().size());
  result.ends.resize((*decoder)->streams().size());
  KeepingSink sink(&result);
  result.status = (*decoder)->Decode(sink);
  result.stats = (*decoder)->stats();
  return result;
}

void ExpectFastCountAgrees(const capture::Capture& capture,
                           const capture::AddressSpaceTimeline& timeline,
                           const Decoded& full, const std::string& what) {
  auto decoder = CreateDecoder(capture, timeline, {});
  ASSERT_TRUE(decoder.ok()) << what << ": " << decoder.status();
  std::string note;
  ASSERT_TRUE((*decoder)->CountInstructions(&note).ok()) << what;
  const std::vector<StreamStats>& fast = (*decoder)->stats();
  ASSERT_EQ(fast.size(), full.stats.size()) << what;
  for (size_t s = 0; s < fast.size(); ++s) {
    const StreamStats& a = fast[s];
    const StreamStats& b = full.stats[s];
    EXPECT_EQ(a.trace_bytes, a.bytes_decoded + a.bytes_lost) << what;
    EXPECT_EQ(a.trace_bytes, b.trace_bytes) << what;
    if (b.errors != b.overflows) continue;
    EXPECT_EQ(a.instructions, b.instructions) << what << " (" << note << ")";
    EXPECT_EQ(a.errors, b.errors) << what;
    EXPECT_EQ(a.bytes_lost, b.bytes_lost) << what;
  }
}

void ExpectAccounted(const Decoded& decoded, uint64_t size, bool deformatted,
                     const std::string& what) {
  ASSERT_TRUE(decoded.status.ok()) << what << ": " << decoded.status;
  uint64_t total = 0;
  for (size_t s = 0; s < decoded.stats.size(); ++s) {
    const StreamStats& st = decoded.stats[s];
    EXPECT_EQ(st.trace_bytes, st.bytes_decoded + st.bytes_lost)
        << what << ", stream " << s;
    total += st.trace_bytes;
    for (const DecodeErrorInfo& error : st.error_list) {
      EXPECT_LE(error.offset, size) << what << ": " << error.message;
      EXPECT_FALSE(error.message.empty()) << what;
    }
    EXPECT_EQ(decoded.ends[s], 1) << what << ", stream " << s;
  }
  if (deformatted) {
    EXPECT_LE(total, size) << what;
  } else {
    EXPECT_EQ(total, size) << what;
  }
  for (const auto& events : decoded.events) {
    for (const Event& e : events) {
      EXPECT_LE(e.offset, size) << what << ": " << DescribeEvent(e);
    }
  }
}

PrivateTmpDir::PrivateTmpDir(const std::string& parent)
    : path_(parent + "/tmp") {
  if (const char* old = getenv("TMPDIR")) old_ = old;
  std::filesystem::create_directories(path_);
  setenv("TMPDIR", path_.c_str(), 1);
}

PrivateTmpDir::~PrivateTmpDir() {
  if (old_) {
    setenv("TMPDIR", old_->c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
}

std::set<std::string> ListTree(const std::string& dir) {
  std::set<std::string> paths;
  std::error_code error;
  for (std::filesystem::recursive_directory_iterator it(dir, error), end;
       !error && it != end; it.increment(error)) {
    paths.insert(std::filesystem::relative(it->path(), dir).string());
  }
  return paths;
}

std::string FlipBit(std::string bytes, uint64_t bit) {
  if (!bytes.empty()) {
    bytes[(bit / 8) % bytes.size()] ^= static_cast<char>(1u << (bit % 8));
  }
  return bytes;
}

}  // namespace hwt::hostile
