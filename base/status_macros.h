// Early-return helpers for absl::Status / absl::StatusOr, in the style of
// Perfetto's RETURN_IF_ERROR and ASSIGN_OR_RETURN.
#ifndef HWT_BASE_STATUS_MACROS_H_
#define HWT_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define HWT_STATUS_CONCAT_INNER_(a, b) a##b
#define HWT_STATUS_CONCAT_(a, b) HWT_STATUS_CONCAT_INNER_(a, b)

// Returns the status from the enclosing function when `expr` is not OK.
#define HWT_RETURN_IF_ERROR(expr)              \
  do {                                         \
    ::absl::Status hwt_status_ = (expr);       \
    if (!hwt_status_.ok()) return hwt_status_; \
  } while (0)

// `HWT_ASSIGN_OR_RETURN(auto x, Foo());` declares/assigns x from a StatusOr
// or returns its status.
#define HWT_ASSIGN_OR_RETURN(lhs, expr)                                        \
  HWT_ASSIGN_OR_RETURN_IMPL_(HWT_STATUS_CONCAT_(hwt_statusor_, __LINE__), lhs, \
                             expr)
#define HWT_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return std::move(tmp).status();   \
  lhs = std::move(tmp).value()

#endif  // HWT_BASE_STATUS_MACROS_H_
