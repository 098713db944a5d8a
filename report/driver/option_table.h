// The command-line options of the tools as data: one row per option (its
// names, kind, value, default, help, --help section, and which outputs it
// requests or applies to) and the flags struct field it fills. The tools
// build their CLI11 parser and --help from these tables
// (tools/option_cli.h); OptionRows() walks a table for what else is
// generated from it (the option list the tests compare with the parser's,
// and later man pages and shell completion). A new option is one row; a new
// output is one row plus its renderer (report/outputs/).
#ifndef HWT_REPORT_DRIVER_OPTION_TABLE_H_
#define HWT_REPORT_DRIVER_OPTION_TABLE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"

namespace hwt::report {

enum class OptionKind : uint8_t {
  kPositional,   // INPUT
  kFlag,         // --hot: sets a bool
  kFlagValue,    // --flame[=FILE]: a flag with an optional value (the
                 // "{DEFAULT}" in its names is the value when given bare)
  kValue,        // --top N: one value
  kRepeated,     // --image FILE@BIAS, repeatable
  kSelect,       // --stats, --packets: sets the field to `select`; the rows
                 // of one exclusive group choose one of them
  kPassThrough,  // --mem 4G: appends "--mem=4G" to a list (options handed on
                 // to another program as they were given: sbatch)
};

enum class OptionCheck : uint8_t { kNone, kPositive, kNonNegative };

// One row's description: everything but where its value goes.
struct OptionInfo {
  std::string_view names;  // CLI11 spelling: "-o,--output", "--flame{-}"
  OptionKind kind = OptionKind::kValue;
  std::string_view help;
  std::string_view group;          // --help section ("" = the main options)
  std::string_view default_value;  // set before parsing ("" = none)
  bool show_default = false;       // shown as [DEFAULT] in --help
  std::vector<std::string_view> choices;  // accepted values (empty: any)
  OptionCheck check = OptionCheck::kNone;
  bool required = false;
  // kRepeated: values per occurrence (0 = one; --diff BASE NEW takes 2).
  int arity = 0;
  std::string_view select;  // kSelect: the value it sets
  // The output it requests: the name its renderer is registered under
  // (report/outputs/output_registry.h; "listing" for hwt-decode's modes),
  // or "" for none.
  std::string_view requests;
  // The outputs it changes, by those names ("diff": --diff's); empty = all
  // of its tool's.
  std::vector<std::string_view> applies_to;
  // The subcommands it belongs to (hwt-batch run, slurm, ...); empty for a
  // tool without subcommands. Two rows of different subcommands may share
  // names (each subcommand has its own -o).
  std::vector<std::string_view> commands;
};

// The name that stands for an option: its long name without the flag
// default ("--flame{-}" -> "--flame", "-o,--output" -> "--output"), or the
// positional's name.
std::string CanonicalName(const OptionInfo& info);
// Every name it has, without dashes handling: {"-o", "--output"}.
std::vector<std::string> OptionNames(const OptionInfo& info);

// Where a row's value goes: a field of the tool's flags struct.
using OptionTarget =
    std::variant<bool*, std::string*, size_t*, int*, double*,
                 std::optional<uint32_t>*, std::vector<std::string>*>;

template <typename Flags>
struct OptionRow {
  OptionInfo info;
  OptionTarget (*target)(Flags& flags) = nullptr;
};

// A --help section that is a group of mutually exclusive choices
// (hwt-decode's modes).
struct OptionGroupInfo {
  std::string_view name;
  std::string_view description;
  bool exclusive = false;
};

// A subcommand: the first word of a command line that chooses which of the
// table's rows apply (hwt-batch run|merge|diff|slurm).
struct CommandInfo {
  std::string_view name;
  std::string_view help;  // its line in the tool's --help
};

// What a tool's --help says besides its options.
struct ToolInfo {
  std::string_view name;
  std::string_view about;  // description and examples
  int column_width = 30;   // of the option column in --help
};

template <typename Flags>
struct OptionTable {
  ToolInfo tool;
  std::vector<OptionGroupInfo> groups;
  // Empty: the tool has no subcommands. Otherwise exactly one is required
  // and every row names the ones it belongs to.
  std::vector<CommandInfo> commands;
  std::vector<OptionRow<Flags>> rows;
};

// The descriptions of a table's rows, in order (for generated docs).
template <typename Flags>
std::vector<const OptionInfo*> OptionRows(const OptionTable<Flags>& table) {
  std::vector<const OptionInfo*> out;
  for (const OptionRow<Flags>& row : table.rows) out.push_back(&row.info);
  return out;
}

// Sets `target` to the default text `value` (a number for numeric fields).
absl::Status SetOptionValue(const OptionTarget& target, std::string_view value);

// Fills `flags` with the table's defaults.
template <typename Flags>
void ApplyDefaults(const OptionTable<Flags>& table, Flags& flags) {
  for (const OptionRow<Flags>& row : table.rows) {
    if (!row.info.default_value.empty()) {
      (void)SetOptionValue(row.target(flags), row.info.default_value);
    }
  }
}

// Whether a field holds something other than its row's default: a
// non-empty or non-default text, a number other than the default (0 when
// none), a true flag, an optional with a value, a non-empty list. This is
// what "the option was given" means to the tools (--top 0 asks for
// nothing).
bool OptionSet(const OptionTarget& target, std::string_view default_value);

// The canonical names of the rows of `flags` that are set and that `pick`
// selects.
template <typename Flags, typename Pick>
std::vector<std::string> SetOptions(const OptionTable<Flags>& table,
                                    Flags& flags, Pick pick) {
  std::vector<std::string> out;
  for (const OptionRow<Flags>& row : table.rows) {
    if (pick(row.info) &&
        OptionSet(row.target(flags), row.info.default_value)) {
      out.push_back(CanonicalName(row.info));
    }
  }
  return out;
}

}  // namespace hwt::report

#endif  // HWT_REPORT_DRIVER_OPTION_TABLE_H_
