// Implementation of the shared tool plumbing; see tool_common.h.
#include "tools/tool_common.h"

#include <cstdio>
#include <string>
#include <variant>
#include <vector>

#include "base/status_macros.h"
#include "report/driver/input_options.h"
#include "tools/version.h"

namespace hwt::tools {

void AddInputFlags(CLI::App& app, InputFlags* flags) {
  app.add_option("INPUT", flags->input, report::kCaptureInputHelp)->required();
  AddInputOptions(app, flags);
}

void AddInputOptions(CLI::App& app, InputFlags* flags) {
  const std::vector<report::OptionInfo>& infos = report::InputOptionInfos();
  for (size_t i = 0; i < infos.size(); ++i) {
    const std::string names(infos[i].names), help(infos[i].help);
    const report::OptionTarget target = report::InputOptionTarget(*flags, i);
    if (auto* list = std::get_if<std::vector<std::string>*>(&target)) {
      app.add_option(names, **list, help)->allow_extra_args(false);
    } else {
      app.add_option(names, *std::get<std::string*>(target), help);
    }
  }
}

bool ParseCommandLine(CLI::App& app, int argc, char** argv, int* exit_code) {
  // Every tool answers --version (version.h), named as it was run.
  app.set_version_flag("--version", [&app] {
    const std::string& name = app.get_name();
    return VersionText(name.substr(name.find_last_of('/') + 1));
  });
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
