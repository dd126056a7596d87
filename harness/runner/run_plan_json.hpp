#pragma once
// A RunPlan as JSON: how a parent hands its plan to a worker process, in full, without re-parsing a command line.
// The form is internal (written and read by the same vlbench build), so a malformed document is a system error.
#include <nlohmann/json.hpp>

#include "harness/runner/run_plan.hpp"

namespace vlb {

nlohmann::json plan_to_json(const RunPlan& plan);
RunPlan plan_from_json(const nlohmann::json& document);  // throws SystemError naming what is wrong

}  // namespace vlb
