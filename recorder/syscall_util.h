// Small helpers the recorders share around system calls: the text of a
// failed call's errno, and a C argv/envp array for execve.
#ifndef HWT_RECORDER_SYSCALL_UTIL_H_
#define HWT_RECORDER_SYSCALL_UTIL_H_

#include <string>
#include <string_view>
#include <vector>

namespace hwt::recorder {

// "WHAT: strerror(errno)", for the call that just failed (read errno before
// anything else can change it).
std::string ErrnoText(std::string_view what);

// A null-terminated array of pointers into `strings`, as execve wants its
// argv and envp. `strings` must outlive the result.
std::vector<char*> CStringArray(const std::vector<std::string>& strings);

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_SYSCALL_UTIL_H_
