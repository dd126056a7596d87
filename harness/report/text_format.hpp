#pragma once
// Small text helpers shared by the report's printers. Internal to the report unit.
#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <string>

#include "harness/report/results.hpp"

namespace vlb::report_detail {

inline constexpr const char* kAbsent = "-";

// A finite value with a fmt spec such as "{:.2f}", or "-" when absent or not finite.
template <typename Value>
std::string format_or_dash(const char* spec, const std::optional<Value>& value) {
  if (!value || !std::isfinite(static_cast<double>(*value))) return kAbsent;
  return fmt::format(fmt::runtime(spec), *value);
}

inline std::string short_uuid(const std::string& uuid) { return uuid.empty() ? "custom" : uuid.substr(0, 8); }

inline std::string case_number(int case_index) { return case_index < 0 ? "-" : std::to_string(case_index); }

// As the suite labels cases: "#3 9df4cc20", or "custom B=1 Lq=64 Lv=196".
inline std::string case_label(const CaseResult& result) {
  if (result.case_index < 0) return "custom " + describe(result.shape);
  return fmt::format("#{} {}", result.case_index, short_uuid(result.uuid));
}

// The per-case latency that tables, summaries and comparisons use: the median of the chosen timer's samples.
inline std::optional<double> median_latency_ms(const CaseResult& result) {
  if (!result.timing || result.timing->stats.count == 0) return std::nullopt;
  return result.timing->stats.median;
}

}  // namespace vlb::report_detail
