// The CLI11 parser and --help of a tool, generated from its option table
// (report/driver/option_table.h): every row becomes a CLI11 option bound to
// its flags field (exclusive groups become CLI11 option groups that take
// at most one choice; the table's subcommands become CLI11 subcommands
// holding their rows), with the table's help, section, default, accepted
// values and checks. After parsing, Given() names the options the command
// line gave (what the tests check against the table) and Command() the
// subcommand.
#ifndef HWT_TOOLS_OPTION_CLI_H_
#define HWT_TOOLS_OPTION_CLI_H_

#include <map>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "report/driver/option_table.h"

namespace hwt::tools {

class OptionCli {
 public:
  // Fills `flags` with the table's defaults and binds every row to it;
  // `flags` must outlive the parser.
  template <typename Flags>
  OptionCli(const report::OptionTable<Flags>& table, Flags* flags)
      : app_(std::string(table.tool.about), std::string(table.tool.name)) {
    app_.get_formatter()->column_width(table.tool.column_width);
    report::ApplyDefaults(table, *flags);
    AddCommands(table.commands);
    for (const report::OptionRow<Flags>& row : table.rows) {
      if (row.info.commands.empty()) {
        Add(app_, row.info, row.target(*flags), table.groups);
      }
      for (std::string_view command : row.info.commands) {
        Add(*commands_.at(std::string(command)), row.info, row.target(*flags),
            table.groups);
      }
    }
  }

  CLI::App& app() { return app_; }

  // Parses argv; on --help prints it and returns false with exit code 0, on
  // a usage error prints the message and a hint and returns false with
  // exit code 2. True when the tool should go on.
  bool Parse(int argc, char** argv, int* exit_code);

  // The canonical names (report::CanonicalName) of the options given.
  std::vector<std::string> Given() const;

  // The subcommand given ("" for a table without subcommands).
  std::string Command() const;

 private:
  void AddCommands(const std::vector<report::CommandInfo>& commands);
  void Add(CLI::App& app, const report::OptionInfo& info,
           const report::OptionTarget& target,
           const std::vector<report::OptionGroupInfo>& groups);
  CLI::Option* AddValue(CLI::App& app, const report::OptionInfo& info,
                        const report::OptionTarget& target);

  CLI::App app_;
  std::map<std::string, CLI::App*> commands_;
  std::map<std::string, CLI::App*> groups_;
  std::vector<std::pair<const report::OptionInfo*, CLI::Option*>> bound_;
};

}  // namespace hwt::tools

#endif  // HWT_TOOLS_OPTION_CLI_H_
