// CLI11 from an option table; see option_cli.h.
#include "tools/option_cli.h"

#include <type_traits>

#include "absl/strings/str_cat.h"
#include "tools/tool_common.h"

namespace hwt::tools {

using report::OptionInfo;
using report::OptionKind;
using report::OptionTarget;

CLI::Option* OptionCli::AddValue(CLI::App& app, const OptionInfo& info,
                                 const OptionTarget& target) {
  const std::string names(info.names);
  const std::string help(info.help);
  return std::visit(
      [&](auto* field) -> CLI::Option* {
        using T = std::remove_pointer_t<decltype(field)>;
        if constexpr (std::is_same_v<T, bool>) {
          return app.add_flag(names, *field, help);
        } else if constexpr (std::is_same_v<T, std::string>) {
          if (info.kind == OptionKind::kFlagValue) {
            return app.add_flag(names, *field, help);
          }
          return app.add_option(names, *field, help);
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          CLI::Option* option = app.add_option(names, *field, help);
          if (info.kind == OptionKind::kRepeated) {
            if (info.arity > 0) {
              option->expected(info.arity);
            } else {
              option->allow_extra_args(false);
            }
          }
          return option;
        } else {
          return app.add_option(names, *field, help);
        }
      },
      target);
}

void OptionCli::AddCommands(const std::vector<report::CommandInfo>& commands) {
  if (commands.empty()) return;
  for (const report::CommandInfo& command : commands) {
    commands_[std::string(command.name)] = app_.add_subcommand(
        std::string(command.name), std::string(command.help));
  }
  app_.require_subcommand(1);
}

void OptionCli::Add(CLI::App& owner, const OptionInfo& info,
                    const OptionTarget& target,
                    const std::vector<report::OptionGroupInfo>& groups) {
  CLI::App* app = &owner;
  bool in_group = false;
  for (const report::OptionGroupInfo& group : groups) {
    if (group.exclusive && group.name == info.group) {
      // Keyed by the owner too: each subcommand has its own groups.
      auto [it, inserted] =
          groups_.try_emplace(owner.get_name() + "/" + std::string(group.name));
      if (inserted) {
        it->second = owner.add_option_group(std::string(group.name),
                                            std::string(group.description));
        it->second->require_option(0, 1);
      }
      app = it->second;
      in_group = true;
    }
  }
  CLI::Option* option = nullptr;
  if (info.kind == OptionKind::kPassThrough) {
    auto* list = std::get<std::vector<std::string>*>(target);
    const std::string name = report::CanonicalName(info);
    option = app->add_option_function<std::string>(
        std::string(info.names),
        [list, name](const std::string& value) {
          list->push_back(absl::StrCat(name, "=", value));
        },
        std::string(info.help));
  } else if (info.kind == OptionKind::kSelect) {
    std::string* field = std::get<std::string*>(target);
    option = app->add_flag_callback(
        std::string(info.names),
        [field, value = std::string(info.select)] { *field = value; },
        std::string(info.help));
  } else {
    option = AddValue(*app, info, target);
  }
  if (info.required) option->required();
  if (!info.choices.empty()) {
    option->check(CLI::IsMember(
        std::vector<std::string>(info.choices.begin(), info.choices.end())));
  }
  if (info.check == report::OptionCheck::kNonNegative) {
    option->check(CLI::NonNegativeNumber);
  }
  if (info.check == report::OptionCheck::kPositive) {
    option->check(CLI::PositiveNumber);
  }
  if (info.show_default) option->default_str(std::string(info.default_value));
  if (!info.group.empty() && !in_group) option->group(std::string(info.group));
  bound_.emplace_back(&info, option);
}

bool OptionCli::Parse(int argc, char** argv, int* exit_code) {
  return ParseCommandLine(app_, argc, argv, exit_code);
}

std::string OptionCli::Command() const {
  for (const auto& [name, command] : commands_) {
    if (command->parsed()) return name;
  }
  return "";
}

std::vector<std::string> OptionCli::Given() const {
  std::vector<std::string> given;
  for (const auto& [info, option] : bound_) {
    if (option->count() > 0) given.push_back(report::CanonicalName(*info));
  }
  return given;
}

}  // namespace hwt::tools
