// The option tables against the CLI11 parsers built from them: every option
// has help, no name is used twice, --help lists every option, the option
// list generated from a table is exactly the parser's, defaults come from
// the table, and the parser fills the flags fields the rows name.
#include "tools/option_cli.h"

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "batch/batch_options.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "report/driver/decode_options.h"
#include "report/driver/import_options.h"
#include "report/driver/report_options.h"
#include "tools/emulate_options.h"
#include "tools/tool_common.h"

namespace hwt::tools {
namespace {

using report::OptionInfo;
using ::testing::HasSubstr;

// Every name of every option CLI11 knows, the help flag aside (including
// the options of option groups).
std::set<std::string> ParserNames(CLI::App& app) {
  std::set<std::string> names;
  auto add = [&](const CLI::Option* option) {
    for (const std::string& n : option->get_snames()) names.insert("-" + n);
    for (const std::string& n : option->get_lnames()) names.insert("--" + n);
    if (option->get_positional()) names.insert(option->get_name());
  };
  for (const CLI::Option* option : app.get_options()) add(option);
  for (const CLI::App* group : app.get_subcommands({})) {
    for (const CLI::Option* option : group->get_options()) add(option);
  }
  names.erase("-h");
  names.erase("--help");
  return names;
}

std::set<std::string> TableNames(const std::vector<const OptionInfo*>& rows) {
  std::set<std::string> names;
  for (const OptionInfo* info : rows) {
    for (const std::string& n : report::OptionNames(*info)) names.insert(n);
  }
  return names;
}

// The rows of one subcommand ("" for a tool without subcommands).
std::vector<const OptionInfo*> RowsOf(
    const std::vector<const OptionInfo*>& rows, std::string_view command) {
  std::vector<const OptionInfo*> out;
  for (const OptionInfo* info : rows) {
    const bool mine =
        command.empty()
            ? info->commands.empty()
            : std::find(info->commands.begin(), info->commands.end(),
                        command) != info->commands.end();
    if (mine) out.push_back(info);
  }
  return out;
}

// The checks of one parser (the tool's, or one subcommand's) against its
// rows: names unique, the same names as the parser's, all in --help.
void CheckRows(const std::vector<const OptionInfo*>& rows, CLI::App& app) {
  std::vector<std::string> all_names;
  std::set<std::string> canonical;
  for (const OptionInfo* info : rows) {
    EXPECT_FALSE(info->help.empty()) << info->names;
    EXPECT_TRUE(canonical.insert(report::CanonicalName(*info)).second)
        << info->names;
    for (const std::string& n : report::OptionNames(*info)) {
      all_names.push_back(n);
    }
  }
  EXPECT_EQ(std::set<std::string>(all_names.begin(), all_names.end()).size(),
            all_names.size())
      << app.get_name() << ": a name is used twice";
  EXPECT_EQ(TableNames(rows), ParserNames(app)) << app.get_name();
  const std::string help = app.help();
  for (const OptionInfo* info : rows) {
    for (const std::string& n : report::OptionNames(*info)) {
      EXPECT_THAT(help, HasSubstr(n)) << app.get_name();
    }
    EXPECT_THAT(help, HasSubstr(std::string(info->help.substr(0, 20))))
        << info->names;
  }
}

template <typename Flags>
void CheckTable(const report::OptionTable<Flags>& table) {
  Flags flags;
  OptionCli cli(table, &flags);
  const std::vector<const OptionInfo*> rows = report::OptionRows(table);
  if (table.commands.empty()) {
    CheckRows(rows, cli.app());
    return;
  }
  const std::string help = cli.app().help();
  for (const report::CommandInfo& command : table.commands) {
    EXPECT_THAT(help, HasSubstr(std::string(command.name)));
    EXPECT_THAT(help, HasSubstr(std::string(command.help)));
    CheckRows(RowsOf(rows, command.name),
              *cli.app().get_subcommand(std::string(command.name)));
  }
  for (const OptionInfo* info : rows) {
    EXPECT_FALSE(info->commands.empty())
        << info->names << ": a row of a tool with subcommands names none";
  }
}

TEST(OptionCliTest, ReportTableAndParserAgree) {
  CheckTable(report::ReportOptionTable());
}

TEST(OptionCliTest, DecodeTableAndParserAgree) {
  CheckTable(report::DecodeOptionTable());
}

TEST(OptionCliTest, ImportTableAndParserAgree) {
  CheckTable(report::ImportOptionTable());
}

TEST(OptionCliTest, BatchTableAndParserAgree) {
  CheckTable(batch::BatchOptionTable());
}

TEST(OptionCliTest, EmulateTableAndParserAgree) {
  CheckTable(EmulateOptionTable());
}

// hwt-decode's modes are one exclusive group: the default is --stats, one
// mode sets it, two are a usage error.
TEST(OptionCliTest, DecodeModesAreExclusive) {
  report::DecodeFlags flags;
  OptionCli cli(report::DecodeOptionTable(), &flags);
  char tool[] = "hwt-decode", calls[] = "--calls", in[] = "in.hwt";
  char* argv[] = {tool, calls, in};
  int code = -1;
  ASSERT_TRUE(cli.Parse(3, argv, &code));
  EXPECT_EQ(flags.mode, "calls");
  EXPECT_EQ(flags.input.input, "in.hwt");
  EXPECT_EQ(flags.output, "-");
  EXPECT_EQ(flags.stream, -1);

  report::DecodeFlags plain;
  OptionCli plain_cli(report::DecodeOptionTable(), &plain);
  char* plain_argv[] = {tool, in};
  ASSERT_TRUE(plain_cli.Parse(2, plain_argv, &code));
  EXPECT_EQ(plain.mode, "stats");

  report::DecodeFlags two;
  OptionCli two_cli(report::DecodeOptionTable(), &two);
  char stats[] = "--stats", insn[] = "--insn";
  char* two_argv[] = {tool, stats, insn, in};
  EXPECT_FALSE(two_cli.Parse(4, two_argv, &code));
  EXPECT_EQ(code, kExitUsage);
}

// argv from words (CLI11 wants char**).
struct Argv {
  explicit Argv(std::vector<std::string> words) : words(std::move(words)) {
    for (std::string& w : this->words) pointers.push_back(w.data());
  }
  int argc() { return static_cast<int>(pointers.size()); }
  char** argv() { return pointers.data(); }
  std::vector<std::string> words;
  std::vector<char*> pointers;
};

TEST(OptionCliTest, DefaultsComeFromTheTable) {
  report::ReportFlags flags;
  OptionCli cli(report::ReportOptionTable(), &flags);
  Argv args({"hwt-report", "in.hwt"});
  int code = -1;
  ASSERT_TRUE(cli.Parse(args.argc(), args.argv(), &code));
  EXPECT_EQ(flags.inputs, std::vector<std::string>{"in.hwt"});
  EXPECT_EQ(flags.decoder, "fast");
  EXPECT_EQ(flags.rows, 20u);
  EXPECT_EQ(flags.jobs, 0);  // all usable cores
  EXPECT_EQ(flags.max_events, 5'000'000u);
  EXPECT_EQ(flags.min_width, "0.1");
  EXPECT_EQ(flags.weight, "instructions");
  EXPECT_EQ(flags.format, "text");
  EXPECT_EQ(flags.min_percent, -1);
  EXPECT_TRUE(flags.outputs["flame"].empty());
  EXPECT_EQ(cli.Given(), std::vector<std::string>{"INPUT"});
}

TEST(OptionCliTest, ValuesLandInTheirFields) {
  report::ReportFlags flags;
  OptionCli cli(report::ReportOptionTable(), &flags);
  Argv args({"hwt-report", "--flame=f.svg", "--folded", "--callgraph=dot",
             "--top", "7", "--thread", "3", "--image", "a@0", "--image", "b",
             "-j", "2", "in.hwt"});
  int code = -1;
  ASSERT_TRUE(cli.Parse(args.argc(), args.argv(), &code));
  EXPECT_EQ(flags.outputs["flame"], "f.svg");
  EXPECT_EQ(flags.outputs["folded"], "-");  // bare: the shared destination
  EXPECT_EQ(flags.outputs["callgraph"], "dot");
  EXPECT_EQ(flags.top, 7u);
  EXPECT_EQ(flags.thread, 3u);
  EXPECT_EQ(flags.input.images, (std::vector<std::string>{"a@0", "b"}));
  EXPECT_EQ(flags.jobs, 2);
  EXPECT_THAT(cli.Given(), ::testing::UnorderedElementsAre(
                               "INPUT", "--image", "--flame", "--folded",
                               "--callgraph", "--top", "--thread", "--jobs"));
  // --diff takes two values; several INPUTs are all kept.
  report::ReportFlags diff;
  OptionCli diff_cli(report::ReportOptionTable(), &diff);
  Argv diff_args(
      {"hwt-report", "--diff", "a.hwtprof", "b.hwtprof", "--top", "5"});
  ASSERT_TRUE(diff_cli.Parse(diff_args.argc(), diff_args.argv(), &code));
  EXPECT_EQ(diff.diff, (std::vector<std::string>{"a.hwtprof", "b.hwtprof"}));
  EXPECT_TRUE(diff.inputs.empty());
  EXPECT_EQ(diff.top, 5u);
  report::ReportFlags many;
  OptionCli many_cli(report::ReportOptionTable(), &many);
  Argv many_args({"hwt-report", "--pprof", "a.hwt", "b.hwtprof"});
  ASSERT_TRUE(many_cli.Parse(many_args.argc(), many_args.argv(), &code));
  EXPECT_EQ(many.inputs, (std::vector<std::string>{"a.hwt", "b.hwtprof"}));
  EXPECT_EQ(many.outputs["pprof"], "-");
}

// hwt-batch's subcommands: each fills its own fields, run and slurm share
// theirs, the sbatch pass-throughs keep every value (a named one and
// --sbatch together), and a command line without a subcommand is a usage
// error.
TEST(OptionCliTest, BatchSubcommandsFillTheirFields) {
  int code = -1;
  {
    batch::BatchFlags flags;
    OptionCli cli(batch::BatchOptionTable(), &flags);
    Argv args({"hwt-batch", "run", "-q", "-j", "2", "--shard", "1/3", "-o",
               "out", "a.hwt", "dir/", "--cpu", "6/85"});
    ASSERT_TRUE(cli.Parse(args.argc(), args.argv(), &code));
    EXPECT_EQ(cli.Command(), "run");
    EXPECT_EQ(flags.inputs, (std::vector<std::string>{"a.hwt", "dir/"}));
    EXPECT_EQ(flags.outdir, "out");
    EXPECT_EQ(flags.jobs, 2);
    EXPECT_EQ(flags.shard, "1/3");
    EXPECT_EQ(flags.input.cpu, "6/85");
    EXPECT_TRUE(flags.quiet);
    EXPECT_THAT(cli.Given(), ::testing::UnorderedElementsAre(
                                 "INPUT", "--output", "--cpu", "--jobs",
                                 "--quiet", "--shard"));
  }
  {
    batch::BatchFlags flags;
    OptionCli cli(batch::BatchOptionTable(), &flags);
    Argv args({"hwt-batch", "slurm", "--mem", "4G", "--sbatch=--exclusive",
               "--time", "10", "--shards", "3", "-o", "out", "caps/"});
    ASSERT_TRUE(cli.Parse(args.argc(), args.argv(), &code));
    EXPECT_EQ(cli.Command(), "slurm");
    EXPECT_EQ(flags.sbatch_args,
              (std::vector<std::string>{"--mem=4G", "--time=10"}));
    EXPECT_EQ(flags.sbatch_extra, std::vector<std::string>{"--exclusive"});
    EXPECT_EQ(flags.shards, 3);
    EXPECT_EQ(flags.inputs, std::vector<std::string>{"caps/"});
  }
  {
    batch::BatchFlags flags;
    OptionCli cli(batch::BatchOptionTable(), &flags);
    Argv args({"hwt-batch", "diff", "a/", "b.hwtprof", "--fail-above", "2"});
    ASSERT_TRUE(cli.Parse(args.argc(), args.argv(), &code));
    EXPECT_EQ(cli.Command(), "diff");
    EXPECT_EQ(flags.base, "a/");
    EXPECT_EQ(flags.now, "b.hwtprof");
    EXPECT_EQ(flags.fail_above, 2);
    EXPECT_EQ(flags.rows, 20u);  // the table's defaults
    EXPECT_EQ(flags.format, "text");
  }
  {
    batch::BatchFlags flags;
    OptionCli cli(batch::BatchOptionTable(), &flags);
    Argv args({"hwt-batch", "merge", "-o", "m.hwtprof", "a", "b"});
    ASSERT_TRUE(cli.Parse(args.argc(), args.argv(), &code));
    EXPECT_EQ(cli.Command(), "merge");
    EXPECT_EQ(flags.merge_output, "m.hwtprof");
    EXPECT_EQ(flags.merge_inputs, (std::vector<std::string>{"a", "b"}));
    EXPECT_TRUE(flags.outdir.empty());
  }
  for (std::vector<std::string> bad : std::vector<std::vector<std::string>>{
           {"hwt-batch"},
           {"hwt-batch", "-o", "out", "caps/"},
           {"hwt-batch", "merge", "--shard", "1/2", "-o", "m", "a"},
           {"hwt-batch", "run", "--mem", "4G", "-o", "out", "caps/"}}) {
    batch::BatchFlags flags;
    OptionCli cli(batch::BatchOptionTable(), &flags);
    Argv args(bad);
    EXPECT_FALSE(cli.Parse(args.argc(), args.argv(), &code)) << bad.size();
    EXPECT_EQ(code, kExitUsage);
  }
}

// hwt-emulate's flags into the recorder's options: the table's defaults are
// the encoder's, the values the parser cannot check are refused with the
// option's name.
TEST(OptionCliTest, EmulateFlagsBecomeRecorderOptions) {
  int code = -1;
  EmulateFlags flags;
  OptionCli cli(EmulateOptionTable(), &flags);
  Argv args({"hwt-emulate", "-o", "x.hwt", "--timing", "tsc,cyc", "--overflow",
             "50:3", "--overflow", "7", "--label", "run=a", "--no-images", "--",
             "./prog", "-v"});
  ASSERT_TRUE(cli.Parse(args.argc(), args.argv(), &code));
  auto options = EmulateOptionsFromFlags(flags);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->bundle, "x.hwt");
  EXPECT_EQ(options->argv, (std::vector<std::string>{"./prog", "-v"}));
  EXPECT_EQ(options->recorder, recorder::RecorderKind::kAuto);
  EXPECT_EQ(options->encoder.psb_period,
            recorder::PtEncoderOptions().psb_period);
  EXPECT_TRUE(options->encoder.return_compression);
  EXPECT_TRUE(options->encoder.timing.tsc);
  EXPECT_FALSE(options->encoder.timing.mtc);
  EXPECT_TRUE(options->encoder.timing.cyc);
  ASSERT_EQ(options->encoder.overflows.size(), 2u);  // sorted by FIRST
  EXPECT_EQ(options->encoder.overflows[0].first_instruction, 7u);
  EXPECT_EQ(options->encoder.overflows[0].instructions, 1u);
  EXPECT_EQ(options->encoder.overflows[1].first_instruction, 50u);
  EXPECT_EQ(options->encoder.overflows[1].instructions, 3u);
  EXPECT_EQ(options->labels.at("run"), "a");
  EXPECT_FALSE(options->copy_images);
  EXPECT_EQ(options->cpu.family, 6u);
  EXPECT_EQ(options->cpu.model, 85u);

  for (auto [flag, value, name] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"--timing", "tsc,pwr", "--timing"},
           {"--overflow", "0:2", "--overflow"},
           {"--label", "=x", "--label"},
           {"--cpu", "six", ""}}) {
    EmulateFlags bad;
    OptionCli bad_cli(EmulateOptionTable(), &bad);
    Argv bad_args({"hwt-emulate", "-o", "x.hwt", flag, value, "--", "p"});
    ASSERT_TRUE(bad_cli.Parse(bad_args.argc(), bad_args.argv(), &code));
    auto refused = EmulateOptionsFromFlags(bad);
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument)
        << flag;
    EXPECT_THAT(std::string(refused.status().message()), HasSubstr(name));
  }
}

TEST(OptionCliTest, UsageErrorsExitTwoAndHelpZero) {
  int code = -1;
  {
    report::ReportFlags flags;
    OptionCli cli(report::ReportOptionTable(), &flags);
    Argv bad({"hwt-report", "--weight", "cycles", "in.hwt"});
    EXPECT_FALSE(cli.Parse(bad.argc(), bad.argv(), &code));
    EXPECT_EQ(code, kExitUsage);
  }
  {
    report::ReportFlags flags;
    OptionCli cli(report::ReportOptionTable(), &flags);
    Argv negative_jobs({"hwt-report", "-j", "-1", "in.hwt"});
    EXPECT_FALSE(cli.Parse(negative_jobs.argc(), negative_jobs.argv(), &code));
    EXPECT_EQ(code, kExitUsage);
  }
  {
    report::ReportFlags flags;
    OptionCli cli(report::ReportOptionTable(), &flags);
    Argv bad_decoder({"hwt-report", "--decoder", "magic", "in.hwt"});
    EXPECT_FALSE(cli.Parse(bad_decoder.argc(), bad_decoder.argv(), &code));
    EXPECT_EQ(code, kExitUsage);
  }
  {
    report::ReportFlags flags;
    OptionCli cli(report::ReportOptionTable(), &flags);
    Argv help({"hwt-report", "--help"});
    EXPECT_FALSE(cli.Parse(help.argc(), help.argv(), &code));
    EXPECT_EQ(code, kExitOk);
  }
}

// What a man page or a completion script would be made of: every row has
// the parts they need.
TEST(OptionCliTest, TablesCarryWhatDocsNeed) {
  for (const OptionInfo* info :
       report::OptionRows(report::ReportOptionTable())) {
    EXPECT_FALSE(report::CanonicalName(*info).empty());
    if (info->show_default) {
      EXPECT_FALSE(info->default_value.empty()) << info->names;
    }
    // Every output is listed in an output section of --help.
    if (!info->requests.empty()) {
      EXPECT_TRUE(info->group == "Outputs" || info->group == "Exports")
          << info->names;
    }
  }
}

}  // namespace
}  // namespace hwt::tools
