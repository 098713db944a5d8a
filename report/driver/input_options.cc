// The input options' rows; see input_options.h.
#include "report/driver/input_options.h"

namespace hwt::report {

const std::vector<OptionInfo>& InputOptionInfos() {
  static const std::vector<OptionInfo>* const infos =
      new std::vector<OptionInfo>{
          {.names = "--backend",
           .help = "backend of a raw trace file: pt, coresight, spe "
                   "(detected when omitted)"},
          {.names = "--cpu",
           .help = "CPU of a raw PT trace as FAMILY/MODEL[/STEPPING] "
                   "(decimal, e.g. 6/85/4); overrides the capture's"},
          {.names = "--image",
           .kind = OptionKind::kRepeated,
           .help = "ELF image FILE[@BIAS] mapped at load bias BIAS (0 for "
                   "non-PIE); without @BIAS an image whose build-id a "
                   "recorded mapping names (perf.data) serves that mapping; "
                   "raw memory FILE@ADDRESS; a page cache STEM.addr/STEM.dump "
                   "(kAFL, libxdc); repeatable"},
          {.names = "--sysroot,--symfs",
           .help = "prefix for image paths recorded in the capture (like "
                   "hwt(8) -R and perf's --symfs)"},
      };
  return *infos;
}

OptionTarget InputOptionTarget(InputFlags& flags, size_t i) {
  switch (i) {
    case 0:
      return &flags.backend;
    case 1:
      return &flags.cpu;
    case 2:
      return &flags.images;
    default:
      return &flags.sysroot;
  }
}

}  // namespace hwt::report
