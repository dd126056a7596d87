#include "harness/check/status.hpp"

#include <array>
#include <string>
#include <utility>

#include "harness/core/errors.hpp"

namespace vlb {

namespace {
constexpr std::array<std::pair<CaseStatus, std::string_view>, 8> kNames = {{
    {CaseStatus::kPassed, "PASSED"},
    {CaseStatus::kIncorrectNumerical, "INCORRECT_NUMERICAL"},
    {CaseStatus::kIncorrectShape, "INCORRECT_SHAPE"},
    {CaseStatus::kRuntimeError, "RUNTIME_ERROR"},
    {CaseStatus::kTimeout, "TIMEOUT"},
    {CaseStatus::kRewardHack, "REWARD_HACK"},
    {CaseStatus::kSkipped, "SKIPPED"},
    {CaseStatus::kCompileError, "COMPILE_ERROR"},
}};
}  // namespace

std::string_view status_name(CaseStatus status) {
  for (const auto& [value, name] : kNames) {
    if (value == status) return name;
  }
  return "UNKNOWN";
}

CaseStatus parse_status(std::string_view name) {
  for (const auto& [value, text] : kNames) {
    if (text == name) return value;
  }
  std::string known;
  for (const auto& [value, text] : kNames) known += (known.empty() ? "" : ", ") + std::string(text);
  throw InputError("unknown status '" + std::string(name) + "' (expected one of " + known + ")");
}

bool is_failure(CaseStatus status) { return status != CaseStatus::kPassed && status != CaseStatus::kSkipped; }

}  // namespace vlb
