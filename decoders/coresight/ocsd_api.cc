// OpenCSD's process-wide locks and one-time setup; see ocsd_api.h.
#include "decoders/coresight/ocsd_api.h"

#include "opencsd/c_api/opencsd_c_api.h"

namespace hwt::coresight {

std::mutex& OcsdApiMutex() {
  static std::mutex* mutex = new std::mutex;
  return *mutex;
}

void InitOcsdOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::lock_guard<std::mutex> lock(OcsdApiMutex());
    // Verbosity NONE: the shared default logger then never records errors
    // (it is not thread safe). Its output logger exists only to carry ETE
    // packet printer lines (see EtePrinterMutex) and prints nothing else.
    ocsd_def_errlog_init(OCSD_ERR_SEV_NONE, 1);
    ocsd_def_errlog_config_output(C_API_MSGLOGOUT_FLG_NONE, nullptr);
  });
}

std::mutex& EtePrinterMutex() {
  static std::mutex* mutex = new std::mutex;
  return *mutex;
}

}  // namespace hwt::coresight
