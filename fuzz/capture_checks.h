// What every capture-reading fuzzer checks after opening its input as a
// tool does: an opened capture maps buffers of the sizes its manifest says,
// reads no buffer or memory dump outside its root (links resolved), and
// builds its timeline; a refusal names the input.
#ifndef HWT_FUZZ_CAPTURE_CHECKS_H_
#define HWT_FUZZ_CAPTURE_CHECKS_H_

#include <string>

#include "capture/capture.h"

namespace hwt::fuzz {

// Opens `input` with `options` and checks the above, failing the fuzzer
// (Fail) otherwise. `noun` says what the input is in messages ("file",
// "archive").
void CheckOpensAsATool(const std::string& input,
                       const capture::InputOptions& options, const char* noun);

}  // namespace hwt::fuzz

#endif  // HWT_FUZZ_CAPTURE_CHECKS_H_
