// SPE profile reports; see spe_report.h.
#include "report/spe/spe_report.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/json_text.h"
#include "decoders/spe/data_source.h"
#include "decoders/spe/events.h"
#include "report/common/text_util.h"

namespace hwt::report {
namespace {

using analysis::LatencyDistribution;
using analysis::SpeBreakdown;
using analysis::SpeFunction;
using analysis::SpeProfile;
using analysis::SpeSampleCounters;

// A text table with a header row, numeric columns right-aligned and the
// last column (names) left-aligned, rendered indented by two spaces.
TextTable NamesLastTable(const std::vector<std::string>& header) {
  std::vector<TextTable::Align> align(header.size(), TextTable::Align::kRight);
  align.back() = TextTable::Align::kLeft;
  TextTable table(std::move(align));
  table.AddRow(header);
  return table;
}

double Fraction(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / whole;
}

std::string Mean(double value) { return absl::StrFormat("%.1f", value); }

size_t Limit(size_t size, const SpeReportOptions& options) {
  return options.top == 0 ? size : std::min(size, options.top);
}

nlohmann::json LatencyJson(const LatencyDistribution& d) {
  return {{"count", d.count()},      {"mean", d.mean()},
          {"p50", d.Percentile(50)}, {"p90", d.Percentile(90)},
          {"p99", d.Percentile(99)}, {"max", d.max()}};
}

nlohmann::json CountersJson(const SpeSampleCounters& c) {
  return {{"samples", c.samples},
          {"latency_samples", c.latency_samples},
          {"mean_latency", c.mean_latency()},
          {"loads", c.loads},
          {"stores", c.stores},
          {"l1d_refill", c.l1d_refill},
          {"l2d_miss", c.l2d_miss},
          {"llc_miss", c.llc_miss},
          {"tlb_walk", c.tlb_walk},
          {"remote_access", c.remote},
          {"mispredicted", c.mispredicted}};
}

nlohmann::json EventsJson(const std::array<uint64_t, 64>& events,
                          const spe::CpuModel& cpu) {
  nlohmann::json out = nlohmann::json::object();
  for (int bit = 0; bit < 64; ++bit) {
    if (events[bit] != 0) out[spe::EventName(bit, cpu)] = events[bit];
  }
  return out;
}

nlohmann::json OperationsJson(
    const std::array<uint64_t, spe::kNumOpCategories>& ops) {
  nlohmann::json out = nlohmann::json::object();
  for (int i = 0; i < spe::kNumOpCategories; ++i) {
    if (ops[i] != 0) {
      out[std::string(spe::OpCategoryName(static_cast<spe::OpCategory>(i)))] =
          ops[i];
    }
  }
  return out;
}

nlohmann::json DataSourcesJson(const SpeBreakdown& b,
                               const spe::CpuModel& cpu) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [value, count] : b.DataSources()) {
    nlohmann::json row = {{"value", value},
                          {"name", spe::DataSourceLabel(value, cpu)},
                          {"samples", count}};
    out.push_back(row);
  }
  return out;
}

// Function names computed once per function.
std::vector<std::string> FunctionNames(const SpeProfile& profile,
                                       SpeNames& names) {
  std::vector<std::string> out;
  out.reserve(profile.functions.size());
  for (const SpeFunction& f : profile.functions) {
    out.push_back(names.FunctionName(f));
  }
  return out;
}

std::string InstructionName(const analysis::SpeInstruction& instruction,
                            const SpeProfile& profile,
                            const std::vector<std::string>& function_names,
                            SpeNames& names) {
  const SpeFunction& function = profile.functions[instruction.function];
  if (instruction.address.image == analysis::kNoImage ||
      !function.key.resolved) {
    return names.InstructionName(instruction);
  }
  return absl::StrFormat("%s+0x%x", function_names[instruction.function],
                         instruction.address.vaddr - function.key.start);
}

void AppendHotSpotTable(const std::string& title,
                        const std::vector<analysis::SpeHotSpot>& spots,
                        uint64_t total, const SpeReportOptions& options,
                        std::string* out) {
  size_t n = Limit(spots.size(), options);
  absl::StrAppendFormat(out, "\n%s (top %d of %d)\n", title, n, spots.size());
  TextTable table =
      NamesLastTable({"samples", "%", "lat-mean", "loads", "stores",
                      "l1d-refill", "llc-miss", "tlb-walk", "address"});
  for (size_t i = 0; i < n; ++i) {
    const SpeSampleCounters& c = spots[i].counters;
    table.AddRow({absl::StrCat(c.samples), Percent(c.samples, total, 1),
                  Mean(c.mean_latency()), absl::StrCat(c.loads),
                  absl::StrCat(c.stores), absl::StrCat(c.l1d_refill),
                  absl::StrCat(c.llc_miss), absl::StrCat(c.tlb_walk),
                  Hex(spots[i].base)});
  }
  *out += table.Render("  ");
}

}  // namespace

std::vector<SpeDataSymbolRow> AggregateDataSymbols(const SpeProfile& profile,
                                                   ProfileSymbols* symbols) {
  std::map<std::tuple<uint32_t, bool, uint64_t, std::string>, SpeDataSymbolRow>
      rows;
  SpeNames names(profile, symbols);
  for (const analysis::SpeDataAddress& d : profile.data_addresses) {
    std::optional<SymbolAt> symbol;
    if (symbols != nullptr) {
      symbol = symbols->SymbolContaining(d.address.image, d.address.vaddr);
    }
    SpeDataSymbolRow row;
    row.image = d.address.image;
    if (symbol) {
      row.name = symbol->name;
      row.start = symbol->start;
      row.has_symbol = true;
    } else {
      row.name = absl::StrFormat("[%s data]", names.ImageName(row.image));
    }
    auto key = std::make_tuple(row.image, !row.has_symbol, row.start, row.name);
    auto [it, inserted] = rows.try_emplace(key, row);
    it->second.counters.Merge(d.counters);
  }
  std::vector<SpeDataSymbolRow> out;
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  std::stable_sort(out.begin(), out.end(),
                   [](const SpeDataSymbolRow& a, const SpeDataSymbolRow& b) {
                     return a.counters.samples > b.counters.samples;
                   });
  return out;
}

namespace {

void AppendSummary(const SpeProfile& p, std::string* out) {
  const uint64_t total = p.samples;
  absl::StrAppendFormat(out, "SPE profile: %d samples (CPU %s)\n", total,
                        p.cpu.name);
  absl::StrAppendFormat(
      out, "  records %d, partial records left out %d, without PC %d\n",
      p.records + p.partial_records, p.partial_records, p.records_without_pc);
  absl::StrAppendFormat(
      out,
      "  in images %d (%s), kernel (EL1+) %d, with data address %d (%d in "
      "images)\n",
      p.samples_in_images, Percent(p.samples_in_images, total, 1),
      p.kernel_samples, p.samples_with_data_address,
      p.data_addresses_in_images);
}

// The operation categories sampled, most samples first.
void AppendOperationsTable(const SpeProfile& p, std::string* out) {
  const uint64_t total = p.samples;
  *out += "\nOperations\n";
  TextTable table = NamesLastTable({"samples", "%", "operation"});
  std::vector<int> order;
  for (int i = 0; i < spe::kNumOpCategories; ++i) {
    if (p.all.op_categories[i] != 0) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return p.all.op_categories[a] > p.all.op_categories[b];
  });
  for (int i : order) {
    uint64_t n = p.all.op_categories[i];
    table.AddRow(
        {absl::StrCat(n), Percent(n, total, 1),
         std::string(spe::OpCategoryName(static_cast<spe::OpCategory>(i)))});
  }
  *out += table.Render("  ");
}

// The events seen, in event-bit order.
void AppendEventsTable(const SpeProfile& p, std::string* out) {
  const uint64_t total = p.samples;
  *out += "\nEvents\n";
  TextTable table = NamesLastTable({"samples", "%", "event"});
  for (int bit = 0; bit < 64; ++bit) {
    uint64_t n = p.all.events[bit];
    if (n == 0) continue;
    table.AddRow(
        {absl::StrCat(n), Percent(n, total, 1), spe::EventName(bit, p.cpu)});
  }
  *out += table.Render("  ");
}

void AppendLatencyTable(const SpeProfile& p, std::string* out) {
  *out += "\nLatency (cycles)\n";
  TextTable table =
      NamesLastTable({"count", "mean", "p50", "p90", "p99", "max", "counter"});
  const std::pair<const char*, const LatencyDistribution*> rows[] = {
      {"total", &p.all.latencies.total},
      {"issue", &p.all.latencies.issue},
      {"translation", &p.all.latencies.translation}};
  for (auto [name, d] : rows) {
    table.AddRow(
        {absl::StrCat(d->count()), Mean(d->mean()),
         absl::StrCat(d->Percentile(50)), absl::StrCat(d->Percentile(90)),
         absl::StrCat(d->Percentile(99)), absl::StrCat(d->max()), name});
  }
  *out += table.Render("  ");
}

void AppendDataSourcesTable(const SpeProfile& p, std::string* out) {
  const uint64_t total = p.samples;
  *out += "\nData sources\n";
  TextTable table = NamesLastTable({"samples", "%", "source"});
  for (const auto& [value, n] : p.all.DataSources()) {
    table.AddRow({absl::StrCat(n), Percent(n, total, 1),
                  spe::DataSourceLabel(value, p.cpu)});
  }
  if (p.all.without_data_source != 0) {
    table.AddRow({absl::StrCat(p.all.without_data_source),
                  Percent(p.all.without_data_source, total, 1), "(none)"});
  }
  *out += table.Render("  ");
}

// The top functions' samples, latencies and miss rates.
void AppendFunctionsTable(const SpeProfile& p,
                          const std::vector<std::string>& function_names,
                          SpeNames& names, const SpeReportOptions& options,
                          std::string* out) {
  const uint64_t total = p.samples;
  size_t nf = Limit(p.functions.size(), options);
  absl::StrAppendFormat(out, "\nFunctions (top %d of %d)\n", nf,
                        p.functions.size());
  TextTable table = NamesLastTable(
      {"samples", "%", "lat-mean", "p50", "p90", "p99", "max", "issue", "xlat",
       "l1d-refill%", "llc-miss%", "tlb-walk%", "mispred", "function [image]"});
  for (size_t i = 0; i < nf; ++i) {
    const SpeFunction& f = p.functions[i];
    const SpeBreakdown& b = f.breakdown;
    const LatencyDistribution& lat = b.latencies.total;
    table.AddRow({absl::StrCat(b.samples), Percent(b.samples, total, 1),
                  Mean(lat.mean()), absl::StrCat(lat.Percentile(50)),
                  absl::StrCat(lat.Percentile(90)),
                  absl::StrCat(lat.Percentile(99)), absl::StrCat(lat.max()),
                  Mean(b.latencies.issue.mean()),
                  Mean(b.latencies.translation.mean()),
                  Percent(b.counters.l1d_refill, b.samples, 1),
                  Percent(b.counters.llc_miss, b.samples, 1),
                  Percent(b.counters.tlb_walk, b.samples, 1),
                  absl::StrCat(b.counters.mispredicted),
                  f.key.image == analysis::kNoImage
                      ? function_names[i]
                      : absl::StrFormat("%s [%s]", function_names[i],
                                        names.ImageName(f.key.image))});
  }
  *out += table.Render("  ");
}

// The top functions' counts of the memory and branch events.
void AppendFunctionEventsTable(const SpeProfile& p,
                               const std::vector<std::string>& function_names,
                               const SpeReportOptions& options,
                               std::string* out) {
  size_t nf = Limit(p.functions.size(), options);
  absl::StrAppendFormat(out, "\nFunction events (top %d)\n", nf);
  const std::pair<int, const char*> columns[] = {
      {spe::kEventL1dAccess, "l1d-acc"},
      {spe::kEventL1dRefill, "l1d-ref"},
      {spe::kEventL2dAccess, "l2d-acc"},
      {spe::kEventL2dMiss, "l2d-miss"},
      {spe::kEventLlcAccess, "llc-acc"},
      {spe::kEventLlcMiss, "llc-miss"},
      {spe::kEventTlbAccess, "tlb-acc"},
      {spe::kEventTlbWalk, "tlb-walk"},
      {spe::kEventMispredicted, "mispred"},
      {spe::kEventRemoteAccess, "remote"}};
  std::vector<std::string> header;
  for (auto [bit, name] : columns) header.push_back(name);
  header.push_back("function");
  TextTable table = NamesLastTable(header);
  for (size_t i = 0; i < nf; ++i) {
    std::vector<std::string> row;
    for (auto [bit, name] : columns) {
      row.push_back(absl::StrCat(p.functions[i].breakdown.events[bit]));
    }
    row.push_back(function_names[i]);
    table.AddRow(std::move(row));
  }
  *out += table.Render("  ");
}

void AppendInstructionsTable(const SpeProfile& p,
                             const std::vector<std::string>& function_names,
                             SpeNames& names, const SpeReportOptions& options,
                             std::string* out) {
  const uint64_t total = p.samples;
  size_t ni = Limit(p.instructions.size(), options);
  absl::StrAppendFormat(out, "\nInstructions (top %d of %d)\n", ni,
                        p.instructions.size());
  TextTable table =
      NamesLastTable({"samples", "%", "lat-mean", "l1d-refill", "llc-miss",
                      "mispred", "instruction [image]"});
  for (size_t i = 0; i < ni; ++i) {
    const analysis::SpeInstruction& ins = p.instructions[i];
    const SpeSampleCounters& c = ins.counters;
    table.AddRow({absl::StrCat(c.samples), Percent(c.samples, total, 1),
                  Mean(c.mean_latency()), absl::StrCat(c.l1d_refill),
                  absl::StrCat(c.llc_miss), absl::StrCat(c.mispredicted),
                  absl::StrFormat(
                      "%s [%s]", InstructionName(ins, p, function_names, names),
                      ins.address.image == analysis::kNoImage
                          ? (ins.el >= 1 ? "kernel" : "unknown")
                          : names.ImageName(ins.address.image))});
  }
  *out += table.Render("  ");
}

// The data addresses grouped by symbol (AggregateDataSymbols); shares are of
// the samples with a data address.
void AppendDataSymbolsTable(const SpeProfile& p, ProfileSymbols* symbols,
                            SpeNames& names, const SpeReportOptions& options,
                            std::string* out) {
  const uint64_t with_data = p.samples_with_data_address;
  std::vector<SpeDataSymbolRow> data_symbols = AggregateDataSymbols(p, symbols);
  size_t nd = Limit(data_symbols.size(), options);
  absl::StrAppendFormat(out, "\nData symbols (top %d of %d)\n", nd,
                        data_symbols.size());
  TextTable table =
      NamesLastTable({"samples", "%", "lat-mean", "loads", "stores",
                      "l1d-refill", "llc-miss", "symbol [image]"});
  for (size_t i = 0; i < nd; ++i) {
    const SpeSampleCounters& c = data_symbols[i].counters;
    table.AddRow({absl::StrCat(c.samples), Percent(c.samples, with_data, 1),
                  Mean(c.mean_latency()), absl::StrCat(c.loads),
                  absl::StrCat(c.stores), absl::StrCat(c.l1d_refill),
                  absl::StrCat(c.llc_miss),
                  absl::StrFormat("%s [%s]", data_symbols[i].name,
                                  names.ImageName(data_symbols[i].image))});
  }
  *out += table.Render("  ");
}

}  // namespace

std::string FormatSpeReportText(const SpeProfile& p, ProfileSymbols* symbols,
                                const SpeReportOptions& options) {
  SpeNames names(p, symbols);
  std::vector<std::string> function_names = FunctionNames(p, names);
  std::string out;
  AppendSummary(p, &out);
  AppendOperationsTable(p, &out);
  AppendEventsTable(p, &out);
  AppendLatencyTable(p, &out);
  AppendDataSourcesTable(p, &out);
  AppendFunctionsTable(p, function_names, names, options, &out);
  AppendFunctionEventsTable(p, function_names, options, &out);
  AppendInstructionsTable(p, function_names, names, options, &out);
  const uint64_t with_data = p.samples_with_data_address;
  AppendHotSpotTable("Data cache lines (64 B)", p.cache_lines, with_data,
                     options, &out);
  AppendHotSpotTable("Data pages (4 KiB)", p.pages, with_data, options, &out);
  AppendDataSymbolsTable(p, symbols, names, options, &out);
  return out;
}

nlohmann::json SpeReportJson(const SpeProfile& p, ProfileSymbols* symbols,
                             const SpeReportOptions& options) {
  SpeNames names(p, symbols);
  std::vector<std::string> function_names = FunctionNames(p, names);
  nlohmann::json j;
  j["cpu"] = {{"name", p.cpu.name}, {"midr", Hex(p.cpu.midr)}};
  j["summary"] = {{"records", p.records},
                  {"partial_records", p.partial_records},
                  {"records_without_pc", p.records_without_pc},
                  {"samples", p.samples},
                  {"samples_in_images", p.samples_in_images},
                  {"kernel_samples", p.kernel_samples},
                  {"samples_with_data_address", p.samples_with_data_address},
                  {"data_addresses_in_images", p.data_addresses_in_images}};
  j["operations"] = OperationsJson(p.all.op_categories);
  j["events"] = EventsJson(p.all.events, p.cpu);
  j["latency"] = {{"total", LatencyJson(p.all.latencies.total)},
                  {"issue", LatencyJson(p.all.latencies.issue)},
                  {"translation", LatencyJson(p.all.latencies.translation)}};
  j["data_sources"] = DataSourcesJson(p.all, p.cpu);
  j["samples_without_data_source"] = p.all.without_data_source;
  j["counters"] = CountersJson(p.all.counters);

  nlohmann::json functions = nlohmann::json::array();
  for (size_t i = 0; i < Limit(p.functions.size(), options); ++i) {
    const SpeFunction& f = p.functions[i];
    const SpeBreakdown& b = f.breakdown;
    nlohmann::json fj = {
        {"name", function_names[i]},
        {"image", names.ImageName(f.key.image)},
        {"resolved", f.key.resolved},
        {"samples", b.samples},
        {"percent", 100.0 * Fraction(b.samples, p.samples)},
        {"latency",
         {{"total", LatencyJson(b.latencies.total)},
          {"issue", LatencyJson(b.latencies.issue)},
          {"translation", LatencyJson(b.latencies.translation)}}},
        {"counters", CountersJson(b.counters)},
        {"events", EventsJson(b.events, p.cpu)},
        {"operations", OperationsJson(b.op_categories)},
        {"data_sources", DataSourcesJson(b, p.cpu)}};
    if (f.key.resolved) {
      fj["start"] = Hex(f.key.start);
      fj["end"] = Hex(f.end);
    }
    functions.push_back(std::move(fj));
  }
  j["functions"] = std::move(functions);

  nlohmann::json instructions = nlohmann::json::array();
  for (size_t i = 0; i < Limit(p.instructions.size(), options); ++i) {
    const analysis::SpeInstruction& ins = p.instructions[i];
    nlohmann::json ij = CountersJson(ins.counters);
    ij["location"] = InstructionName(ins, p, function_names, names);
    ij["function"] = function_names[ins.function];
    ij["image"] = ins.address.image == analysis::kNoImage
                      ? nlohmann::json(nullptr)
                      : nlohmann::json(names.ImageName(ins.address.image));
    ij["vaddr"] = Hex(ins.address.vaddr);
    ij["el"] = ins.el;
    instructions.push_back(std::move(ij));
  }
  j["instructions"] = std::move(instructions);

  auto spots = [&](const std::vector<analysis::SpeHotSpot>& list) {
    nlohmann::json out = nlohmann::json::array();
    for (size_t i = 0; i < Limit(list.size(), options); ++i) {
      nlohmann::json sj = CountersJson(list[i].counters);
      sj["address"] = Hex(list[i].base);
      out.push_back(std::move(sj));
    }
    return out;
  };
  j["cache_lines"] = spots(p.cache_lines);
  j["pages"] = spots(p.pages);
  nlohmann::json data_symbols = nlohmann::json::array();
  std::vector<SpeDataSymbolRow> rows = AggregateDataSymbols(p, symbols);
  for (size_t i = 0; i < Limit(rows.size(), options); ++i) {
    nlohmann::json dj = CountersJson(rows[i].counters);
    dj["symbol"] = rows[i].name;
    dj["image"] = names.ImageName(rows[i].image);
    if (rows[i].has_symbol) dj["start"] = Hex(rows[i].start);
    data_symbols.push_back(std::move(dj));
  }
  j["data_symbols"] = std::move(data_symbols);
  return j;
}

std::string FormatSpeReportJson(const SpeProfile& profile,
                                ProfileSymbols* symbols,
                                const SpeReportOptions& options) {
  return JsonText(SpeReportJson(profile, symbols, options),
                  JsonLayout::kIndented);
}

}  // namespace hwt::report
