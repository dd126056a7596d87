#include "harness/runner/run_plan_json.hpp"

#include <optional>

#include "harness/core/errors.hpp"

// std::optional as null or the value (nlohmann/json 3.11 has no built-in form for it).
namespace nlohmann {
template <class T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& document, const std::optional<T>& value) {
    if (value) {
      document = *value;
    } else {
      document = nullptr;
    }
  }
  static void from_json(const json& document, std::optional<T>& value) {
    if (document.is_null()) {
      value.reset();
    } else {
      value = document.get<T>();
    }
  }
};
}  // namespace nlohmann

namespace vlb {

NLOHMANN_JSON_SERIALIZE_ENUM(PositionPattern, {{PositionPattern::kOfficial, "official"},
                                               {PositionPattern::kRandom, "random"}})
NLOHMANN_JSON_SERIALIZE_ENUM(TimerKind, {{TimerKind::kEvents, "events"}, {TimerKind::kCupti, "cupti"}})
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CorrectnessPlan, rounds, forced_positions, max_abs_error_cap)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(AdaptiveStop, min_samples, min_time_s, target_relative_noise, timeout_s, max_samples)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TimingSettings, warmup_iterations, timed_iterations, adaptive, timer, flush_l2)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RunPlan, suite, workloads_dir, solutions, case_selectors, custom_case_atol, seed,
                                   correctness, time_cases, timing, device, gpu_spec_key, baseline_path, json_path,
                                   dump_dir, isolation, case_timeout_s, argv)

nlohmann::json plan_to_json(const RunPlan& plan) { return plan; }

RunPlan plan_from_json(const nlohmann::json& document) {
  try {
    return document.get<RunPlan>();
  } catch (const nlohmann::json::exception& error) {
    throw SystemError(std::string("a worker's plan is malformed (a vlbench build mismatch?): ") + error.what());
  }
}

}  // namespace vlb
