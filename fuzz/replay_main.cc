// main() for fuzz targets built without libFuzzer (gcc, the release and asan
// presets): runs the target once over each file named on the command line
// (directories: every file below them, sorted) and over the seeds the target
// generates at start-up. ctest uses it to replay the seed corpora and the
// inputs of every bug the fuzzers found (fuzz/regressions/), so those inputs
// keep being checked by every build, sanitized or not.
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "base/file_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc,
                                                          char*** argv);

namespace {

void Collect(const std::string& path, std::vector<std::string>* files) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    std::vector<std::string> found;
    for (std::filesystem::recursive_directory_iterator it(path, error), end;
         !error && it != end; it.increment(error)) {
      if (it->is_regular_file()) found.push_back(it->path().string());
    }
    std::sort(found.begin(), found.end());
    files->insert(files->end(), found.begin(), found.end());
  } else if (std::filesystem::is_regular_file(path, error)) {
    files->push_back(path);
  } else {
    fprintf(stderr, "replay: %s: no such file or directory\n", path.c_str());
    exit(2);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Generated seeds go to a directory of our own, replayed like the rest.
  auto seed_dir = hwt::TempDir::Create("hwt-fuzz-seeds");
  if (!seed_dir.ok()) {
    fprintf(stderr, "replay: %s\n", seed_dir.status().ToString().c_str());
    return 2;
  }
  setenv("HWT_FUZZ_SEED_DIR", seed_dir->path().c_str(), 1);
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);

  std::vector<std::string> files;
  Collect(seed_dir->path(), &files);
  for (int i = 1; i < argc; ++i) Collect(argv[i], &files);
  for (const std::string& file : files) {
    auto data = hwt::ReadFileToString(file);
    if (!data.ok()) {
      fprintf(stderr, "replay: %s\n", data.status().ToString().c_str());
      return 2;
    }
    fprintf(stderr, "replay: %s (%zu bytes)\n", file.c_str(), data->size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(data->data()),
                           data->size());
  }
  fprintf(stderr, "replay: %zu inputs, no failure\n", files.size());
  return 0;
}
