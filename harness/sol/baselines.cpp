#include "harness/sol/baselines.hpp"

#include <fmt/format.h>

#include "harness/core/json_value.hpp"
#include "harness/core/text_file.hpp"

namespace vlb {
namespace {

double read_positive_ms(const JsonValue& value) {
  const double milliseconds = value.as_finite_number();
  if (milliseconds <= 0) value.fail(fmt::format("must be a positive latency in ms, got {}", milliseconds));
  return milliseconds;
}

void read_workload(const std::string& uuid, const JsonValue& entry, BaselineTable& table) {
  entry.expect_object();
  entry.reject_unknown_fields({"latency_ms", "t_sol_ms"});
  table.latency_ms[uuid] = read_positive_ms(entry.at("latency_ms"));
  if (const std::optional<JsonValue> t_sol = entry.find("t_sol_ms")) {
    table.published_t_sol_ms[uuid] = read_positive_ms(*t_sol);
  }
}

}  // namespace

std::optional<double> BaselineTable::latency_for(const std::string& uuid) const {
  const auto found = latency_ms.find(uuid);
  if (found == latency_ms.end()) return std::nullopt;
  return found->second;
}

BaselineTable load_baselines(const std::string& path) {
  const JsonDocument document = parse_json(read_text_file(path, "baseline table"), path);
  const JsonValue root(document, path);
  root.expect_object();
  root.reject_unknown_fields({"gpu_key", "source", "method", "workloads"});
  BaselineTable table;
  table.gpu_key = root.at("gpu_key").as_non_empty_string();
  table.source = root.at("source").as_non_empty_string();
  table.method = root.at("method").as_non_empty_string();
  const JsonValue workloads = root.at("workloads");
  const auto entries = workloads.members();
  if (entries.empty()) workloads.fail("must list at least one workload uuid");
  for (const auto& [uuid, entry] : entries) read_workload(uuid, entry, table);
  return table;
}

}  // namespace vlb
