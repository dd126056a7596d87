#include "harness/sol/baselines.hpp"

#include <fmt/format.h>

#include "harness/core/errors.hpp"
#include "harness/suite/json_diagnostics.hpp"

namespace vlb {
namespace {

using suite_detail::child_path;
using suite_detail::Json;
using suite_detail::JsonSource;

double read_positive_ms(const JsonSource& source, const Json& value, const std::string& path) {
  const double milliseconds = suite_detail::require_finite_number(source, value, path);
  if (milliseconds <= 0) source.fail(path, fmt::format("must be a positive latency in ms, got {}", milliseconds));
  return milliseconds;
}

void read_workload(const JsonSource& source, const std::string& uuid, const Json& entry, const std::string& path,
                   BaselineTable& table) {
  suite_detail::require_object(source, entry, path);
  suite_detail::reject_unknown_fields(source, entry, path, {"latency_ms", "t_sol_ms"});
  table.latency_ms[uuid] =
      read_positive_ms(source, suite_detail::require_field(source, entry, path, "latency_ms"), child_path(path, "latency_ms"));
  if (const auto t_sol = entry.find("t_sol_ms"); t_sol != entry.end()) {
    table.published_t_sol_ms[uuid] = read_positive_ms(source, *t_sol, child_path(path, "t_sol_ms"));
  }
}

}  // namespace

std::optional<double> BaselineTable::latency_for(const std::string& uuid) const {
  const auto found = latency_ms.find(uuid);
  if (found == latency_ms.end()) return std::nullopt;
  return found->second;
}

BaselineTable load_baselines(const std::string& path) {
  const JsonSource source{path};
  const Json document = suite_detail::parse_json(source, suite_detail::read_text_file(path, "baseline table"));
  suite_detail::require_object(source, document, "");
  suite_detail::reject_unknown_fields(source, document, "", {"gpu_key", "source", "method", "workloads"});
  const auto read_string = [&](std::string_view key) {
    return suite_detail::require_non_empty_string(source, suite_detail::require_field(source, document, "", key),
                                                  std::string(key));
  };
  BaselineTable table;
  table.gpu_key = read_string("gpu_key");
  table.source = read_string("source");
  table.method = read_string("method");
  const Json& workloads = suite_detail::require_object(
      source, suite_detail::require_field(source, document, "", "workloads"), "workloads");
  if (workloads.empty()) source.fail("workloads", "must list at least one workload uuid");
  for (const auto& [uuid, entry] : workloads.items()) {
    read_workload(source, uuid, entry, child_path("workloads", uuid), table);
  }
  return table;
}

}  // namespace vlb
