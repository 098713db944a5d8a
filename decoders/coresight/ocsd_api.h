// OpenCSD's process-wide state, guarded once for every decoder of the
// process: the C API's decoder registry, handle map and default error
// logger are not thread safe, and the logger's one output is shared.
#ifndef HWT_DECODERS_CORESIGHT_OCSD_API_H_
#define HWT_DECODERS_CORESIGHT_OCSD_API_H_

#include <mutex>

namespace hwt::coresight {

// Held by tree setup and teardown and by every change of the library's
// logger.
std::mutex& OcsdApiMutex();

// Silences the default error logger, once per process (errors are taken
// from packets, elements and datapath responses instead).
void InitOcsdOnce();

// The 1.3.3 C API cannot attach packet callbacks to ETE decoders
// (ocsd_dt_attach_packet_callback knows ETMv3/ETMv4/PTM/STM only). A decode
// runs ETE sources on the ETMv4 decoder (ocsd_config.h); a listing keeps
// the ETE decoder, whose packets are listed through OpenCSD's own packet
// printer, whose lines go to the library's single output logger: one ETE
// listing at a time, under this lock.
std::mutex& EtePrinterMutex();

}  // namespace hwt::coresight

#endif  // HWT_DECODERS_CORESIGHT_OCSD_API_H_
