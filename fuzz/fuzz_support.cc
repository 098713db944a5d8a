// Implementation of the shared fuzzing helpers; see fuzz_support.h.
#include "fuzz/fuzz_support.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "absl/strings/str_format.h"
#include "base/file_util.h"

namespace hwt::fuzz {

void Fail(const std::string& message) {
  fprintf(stderr, "hwt fuzz invariant violated: %s\n", message.c_str());
  fflush(stderr);
  abort();
}

void CheckOk(const absl::Status& status, std::string_view what) {
  if (!status.ok()) {
    Fail(absl::StrFormat("%s failed: %s", what, status.ToString()));
  }
}

std::string SourceDir() { return HWT_FUZZ_SOURCE_DIR; }

namespace {
TempDir* g_scratch = nullptr;
void RemoveScratch() {
  delete g_scratch;
  g_scratch = nullptr;
}
}  // namespace

const std::string& ScratchDir() {
  if (g_scratch == nullptr) {
    auto created = TempDir::Create("hwt-fuzz");
    if (!created.ok()) Fail(std::string(created.status().message()));
    g_scratch = new TempDir(std::move(*created));
    atexit(RemoveScratch);
  }
  return g_scratch->path();
}

void WriteFileOrDie(const std::string& path, std::string_view bytes) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) Fail(ErrnoMessage(path, "cannot create", errno));
  absl::Status written = WriteAllToFd(fd, bytes, path);
  if (!written.ok()) Fail(std::string(written.message()));
  close(fd);
}

void WriteFileOrDie(const std::string& path, absl::Span<const uint8_t> bytes) {
  WriteFileOrDie(path,
                 std::string_view(reinterpret_cast<const char*>(bytes.data()),
                                  bytes.size()));
}

bool ReadFile(const std::string& path, std::string* out) {
  auto data = ReadFileToString(path);
  if (!data.ok()) return false;
  *out = std::move(*data);
  return true;
}

bool Contains(absl::string_view haystack, absl::string_view needle) {
  return haystack.find(needle) != absl::string_view::npos;
}

void WriteGeneratedSeeds(std::string_view target,
                         const std::vector<std::string>& seeds) {
  const char* dir = getenv("HWT_FUZZ_SEED_DIR");
  if (dir == nullptr || *dir == '\0') return;
  for (size_t i = 0; i < seeds.size(); ++i) {
    WriteFileOrDie(absl::StrFormat("%s/gen-%s-%d", dir, target, i), seeds[i]);
  }
}

}  // namespace hwt::fuzz
