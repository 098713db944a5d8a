// The output of hwttrace, the project's valgrind tool
// (recorder/valgrind_tool/hwt_trace.c): a stream of little-endian 64-bit
// words, read here without any x86 decoding. An instruction word is an
// executed instruction as VEX decoded it: its length in bits 56..63, bit 55
// set for an iteration of a rep string instruction, the address below. A
// control word (0xff in bits 56..63) starts a record: type in bits 32..47,
// payload bytes in bits 0..31, the payload padded to whole words.
#ifndef HWT_RECORDER_VALGRIND_TRACE_H_
#define HWT_RECORDER_VALGRIND_TRACE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace hwt::recorder {

enum class ToolRecordType : uint16_t {
  kStart = 1,     // u64 pid, then the program name (a new program image)
  kMaps = 2,      // executable file mappings, /proc/PID/maps lines
  kCode = 3,      // one maps line: valgrind's own code the guest runs
  kAnon = 4,      // u64 address: guest code no file backs
  kNoDecode = 5,  // u64 address: an instruction VEX cannot decode
  kSignal = 6,    // u64 signal, u64 address of the faulting instruction or 0
  kThread = 7,    // u64 valgrind thread id: a thread was created
  kEnd = 8,       // i64 exit code
};

// One executed instruction of a decoded stream.
struct ToolInstruction {
  uint64_t ip = 0;
  uint8_t length = 0;
  bool repeats = false;  // an iteration of a rep string instruction
};

class ToolTraceHandler {
 public:
  virtual ~ToolTraceHandler() = default;
  // Consecutive instruction words, in execution order.
  virtual absl::Status OnInstructionWords(absl::Span<const uint64_t> words) = 0;
  virtual absl::Status OnRecord(ToolRecordType type,
                                std::string_view payload) = 0;
};

inline constexpr uint64_t kToolRepeatsBit = uint64_t{1} << 55;

inline ToolInstruction DecodeToolWord(uint64_t word) {
  return ToolInstruction{word & (kToolRepeatsBit - 1),
                         static_cast<uint8_t>(word >> 56),
                         (word & kToolRepeatsBit) != 0};
}

// Splits the stream into instruction runs and records. The caller reads
// into a buffer of words and hands over whole words; a record that is not
// complete yet is left for the next call.
class ToolTraceReader {
 public:
  // Returns how many of `words` were consumed (all but an incomplete record
  // at the end). Errors name the stream offset.
  absl::StatusOr<size_t> Process(absl::Span<const uint64_t> words,
                                 ToolTraceHandler& handler);
  // Stream bytes consumed so far.
  uint64_t offset() const { return offset_; }

 private:
  uint64_t offset_ = 0;
};

// Where the tool is: $HWT_VALGRIND_TOOL_DIR, else libexec/hwt beside or one
// above the running executable's folder (the build tree and an install
// tree put it there). The folder holds hwttrace-PLATFORM and a link to
// valgrind's vgpreload_core-PLATFORM.so; valgrind is pointed at it with
// VALGRIND_LIB. Errors say where it looked.
absl::StatusOr<std::string> FindValgrindToolDir();

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_VALGRIND_TRACE_H_
