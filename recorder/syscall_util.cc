// Helpers the recorders share around system calls; see syscall_util.h.
#include "recorder/syscall_util.h"

#include <cerrno>
#include <cstring>

#include "absl/strings/str_format.h"

namespace hwt::recorder {

std::string ErrnoText(std::string_view what) {
  const int err = errno;
  return absl::StrFormat("%s: %s", what, strerror(err));
}

std::vector<char*> CStringArray(const std::vector<std::string>& strings) {
  std::vector<char*> result;
  result.reserve(strings.size() + 1);
  for (const std::string& s : strings) {
    result.push_back(const_cast<char*>(s.c_str()));
  }
  result.push_back(nullptr);
  return result;
}

}  // namespace hwt::recorder
