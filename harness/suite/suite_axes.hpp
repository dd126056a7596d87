#pragma once
// What a definition file must declare for this operation: its axes (constants from ModelDims), and how the
// variable axes map onto ProblemShape. Shared by the definition and workload loaders and by case selection.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "harness/core/problem.hpp"
#include "harness/suite/suite.hpp"

namespace vlb::suite_detail {

inline constexpr std::string_view kBatchAxis = "batch_size";
inline constexpr std::string_view kLangSeqAxis = "lang_seq_len";
inline constexpr std::string_view kVisionSeqAxis = "vision_seq_len";

struct ExpectedAxis {
  std::string_view name;
  bool is_constant = false;
  std::int64_t value = 0;  // constants only
};

// All axes in the order the definition file lists them: the three variable axes, then the constants.
std::span<const ExpectedAxis> expected_axes();
const ExpectedAxis* find_expected_axis(std::string_view name);

// The value of variable axis `name` in `shape`; nullopt if `name` is not a variable axis.
std::optional<std::int64_t> variable_axis_value(std::string_view name, const ProblemShape& shape);

// Why `shape` is rejected (non-positive or beyond `limits`), or nullopt when it is acceptable.
std::optional<std::string> shape_limit_violation(const ProblemShape& shape, const AxisLimits& limits = {});

}  // namespace vlb::suite_detail
