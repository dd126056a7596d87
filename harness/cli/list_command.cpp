#include "harness/cli/list_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/core/json_value.hpp"
#include "harness/core/printable_text.hpp"
#include "harness/scaleout/case_shards.hpp"
#include "harness/plan/solution_catalog.hpp"
#include "harness/sol/speed_of_light.hpp"
#include "harness/suite/suite.hpp"

namespace vlb::cli {

namespace {

// " (shard 1/4)" when the listing is one share of the selected cases.
std::string shards_note(const std::vector<ShardSpec>& shards) {
  std::vector<std::string> parts;
  for (const ShardSpec& shard : shards) parts.push_back(shard_text(shard));
  return parts.empty() ? std::string() : fmt::format(" (shard {})", fmt::join(parts, ", then "));
}

// The registered solutions, or those that -s names (each must exist; a package's path is read).
std::vector<CatalogEntry> listed_solutions(const RunPlan& plan) {
  const SolutionCatalog& catalog = SolutionCatalog::instance();
  if (plan.solutions.empty()) return catalog.entries();
  std::vector<CatalogEntry> listed;
  for (const std::string& name : plan.solutions) listed.push_back(catalog.at(name));
  return listed;
}

// Where a solution comes from: its module, or its package (a solution.json, run by the Python worker).
std::string origin_of(const CatalogEntry& entry) {
  if (entry.is_python_package()) {
    return fmt::format("{} {}", entry.builds_extension() ? "C++ package (built as a torch extension)" : "Python package",
                       entry.source_file);
  }
  return fmt::format("compiled, {}", entry.module.filename().string());
}

}  // namespace

void print_listing(std::FILE* out, const RunPlan& plan) {
  const SelectedCases selected = select_plan_cases(plan);
  const Suite& suite = selected.suite;
  const std::vector<Case>& cases = selected.cases;
  fmt::print(out, "Suite '{}' ({}), definition {}: {} cases{}\n", printable_text(suite.name),
             printable_text(suite.workloads_path.string()), suite.definition.name, cases.size(),
             shards_note(plan.shards));
  fmt::print(out, "{:>3}  {:<36}  {:>3}  {:>5}  {:>6}  {:>7}  {:>9}\n", "#", "uuid", "B", "Lq", "Lv", "atol",
             "GFLOP");
  for (const Case& c : cases) {
    fmt::print(out, "{:>3}  {:<36}  {:>3}  {:>5}  {:>6}  {:>7.4g}  {:>9.1f}\n", c.index, printable_text(c.uuid),
               c.shape.batch,
               c.shape.lang_seq, c.shape.vision_seq, c.tolerance.atol, count_work(c.shape).flops / 1e9);
  }
  const auto solutions = listed_solutions(plan);
  fmt::print(out, "\nSolutions ({}):\n", solutions.size());
  for (const CatalogEntry& entry : solutions) {
    const SolutionInfo& info = entry.info;
    std::vector<std::string> targets;
    for (int cc : info.target_compute_capabilities) targets.push_back(fmt::format("sm_{}", cc));
    fmt::print(out, "  {:<14} {}\n  {:<14} author: {}; targets: {}; languages: {}\n  {:<14} from: {}\n",
               printable_text(info.name), printable_text(info.description), "", printable_text(info.author),
               targets.empty() ? std::string("any GPU") : fmt::format("{}", fmt::join(targets, ", ")),
               printable_text(fmt::format("{}", fmt::join(info.languages, ", "))), "",
               printable_text(origin_of(entry)));
  }
}

void print_listing_json(std::FILE* out, const RunPlan& plan) {
  using nlohmann::json;
  const SelectedCases selected = select_plan_cases(plan);  // --shard applies, as to the table
  const Suite& suite = selected.suite;
  json cases = json::array();
  for (const Case& c : selected.cases) {
    cases.push_back({{"index", c.index},
                     {"uuid", c.uuid},
                     {"shape",
                      {{"batch_size", c.shape.batch}, {"lang_seq_len", c.shape.lang_seq},
                       {"vision_seq_len", c.shape.vision_seq}}},
                     {"tolerance",
                      {{"atol", c.tolerance.atol}, {"rtol", c.tolerance.rtol},
                       {"required_match_ratio", c.tolerance.required_match_ratio}}},
                     {"flops", count_work(c.shape).flops}});
  }
  json solutions = json::array();
  for (const CatalogEntry& entry : listed_solutions(plan)) {
    const SolutionInfo& info = entry.info;
    solutions.push_back({{"name", info.name},
                         {"author", info.author},
                         {"description", info.description},
                         {"languages", info.languages},
                         {"target_compute_capabilities", info.target_compute_capabilities},
                         {"kind", entry.is_python_package() ? "python_package" : "module"},
                         {"source", entry.is_python_package() ? entry.source_file : entry.module.string()}});
  }
  json shards = json::array();  // the share of the cases listed (--shard), as the table's header says
  for (const ShardSpec& shard : plan.shards) shards.push_back({{"index", shard.index}, {"count", shard.count}});
  const json listing = {{"suite",
                         {{"name", suite.name},
                          {"workloads_path", suite.workloads_path.string()},
                          {"definition", suite.definition.name}}},
                        {"shards", shards},
                        {"cases", cases},
                        {"solutions", solutions}};
  fmt::print(out, "{}\n", dump_json(listing, 2));
}

}  // namespace vlb::cli
