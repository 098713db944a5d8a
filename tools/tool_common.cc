// Implementation of the shared tool plumbing; see tool_common.h.
#include "tools/tool_common.h"

#include <cstdio>

#include "base/status_macros.h"

namespace hwt::tools {

void AddInputFlags(CLI::App& app, InputFlags* flags) {
  app.add_option("INPUT", flags->input,
                 "capture bundle (NAME.hwt/), packed bundle (.tar, .tar.zst), "
                 "OpenCSD snapshot directory, or raw trace file")
      ->required();
  AddInputOptions(app, flags);
}

void AddInputOptions(CLI::App& app, InputFlags* flags) {
  app.add_option("--backend", flags->backend,
                 "backend of a raw trace file: pt, coresight, spe "
                 "(detected when omitted)");
  app.add_option("--cpu", flags->cpu,
                 "CPU of a raw PT trace as FAMILY/MODEL[/STEPPING] (decimal, "
                 "e.g. 6/85/4); overrides the capture's");
  app.add_option("--image", flags->images,
                 "ELF image FILE[@BIAS] mapped at load bias BIAS (0 for "
                 "non-PIE); raw memory FILE@ADDRESS; a page cache "
                 "STEM.addr/STEM.dump (kAFL, libxdc); repeatable")
      ->allow_extra_args(false);
  app.add_option("--sysroot", flags->sysroot,
                 "prefix for image paths recorded in the capture (like "
                 "hwt(8) -R)");
}

bool ParseCommandLine(CLI::App& app, int argc, char** argv, int* exit_code) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    *exit_code = app.exit(e);
    return false;
  } catch (const CLI::CallForAllHelp& e) {
    *exit_code = app.exit(e);
    return false;
  } catch (const CLI::CallForVersion& e) {
    *exit_code = app.exit(e);
    return false;
  } catch (const CLI::ParseError& e) {
    fprintf(stderr, "%s: %s\nRun '%s --help' for usage.\n",
            app.get_name().c_str(), e.what(), app.get_name().c_str());
    *exit_code = kExitUsage;
    return false;
  }
  return true;
}

}  // namespace hwt::tools
