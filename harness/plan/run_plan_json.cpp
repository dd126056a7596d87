#include "harness/plan/run_plan_json.hpp"

#include <string>

#include "harness/core/atomic_file.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/text_file.hpp"

namespace vlb {

void JsonCodec<PositionPattern>::read(const JsonValue& node, PositionPattern& pattern) {
  read_json_by_name(node, pattern, parse_position_pattern);
}

nlohmann::json plan_to_json(const RunPlan& plan) { return write_json(plan); }

namespace {

RunPlan read_plan(const JsonDocument& document, const std::string& source) {
  try {
    return read_json<RunPlan>(JsonValue(document, source));
  } catch (const InputError& error) {
    throw SystemError(error.message() + " (a vlbench build mismatch?)");
  }
}

}  // namespace

RunPlan plan_from_json(const nlohmann::json& document) { return read_plan(JsonDocument(document), "a worker's plan"); }

void write_plan_file(const std::filesystem::path& path, const RunPlan& plan) {
  write_file_atomically(path, plan_to_json(plan).dump(), "cannot write a worker's plan: ");
}

RunPlan read_plan_file(const std::filesystem::path& path) {
  try {
    return read_plan(parse_json(read_text_file(path, "worker plan"), path.string()), path.string());
  } catch (const InputError& error) {
    throw SystemError(error.message() + " (a vlbench build mismatch, or a folder that is not a worker's?)");
  }
}

}  // namespace vlb
