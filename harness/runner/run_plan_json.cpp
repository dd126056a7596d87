#include "harness/runner/run_plan_json.hpp"

#include <string>

#include "harness/core/errors.hpp"

namespace vlb {

void JsonCodec<PositionPattern>::read(const JsonValue& node, PositionPattern& pattern) {
  read_json_by_name(node, pattern, parse_position_pattern);
}

nlohmann::json plan_to_json(const RunPlan& plan) { return write_json(plan); }

RunPlan plan_from_json(const nlohmann::json& document) {
  const JsonDocument ordered(document);
  try {
    return read_json<RunPlan>(JsonValue(ordered, "a worker's plan"));
  } catch (const InputError& error) {
    throw SystemError(error.message() + " (a vlbench build mismatch?)");
  }
}

}  // namespace vlb
