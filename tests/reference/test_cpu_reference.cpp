// The CPU exact and CPU faithful references agree within the suite's tolerance rule on tiny random shapes, differ
// where they should (the faithful one rounds), and read the position inputs.
#include <catch2/catch.hpp>

#include <cmath>
#include <utility>

#include "harness/check/comparison.hpp"
#include "harness/inputs/input_set.hpp"
#include "reference/cpu_reference.hpp"
#include "support_reference_inputs.hpp"

using vlb::CaseStatus;
using vlb::PositionPattern;

namespace {
bool is_bf16_value(double x) {
  return static_cast<double>(__bfloat162float(__float2bfloat16_rn(static_cast<float>(x)))) == x;
}

double rms(const std::vector<double>& values) {
  double sum = 0.0;
  for (double v : values) sum += v * v;
  return std::sqrt(sum / static_cast<double>(values.size()));
}
}  // namespace

TEST_CASE("CPU faithful and CPU exact agree within the tolerance rule", "[reference][cpu]") {
  // Lv 196 as the smallest workloads: the tolerance rule is calibrated for that much averaging over vision tokens
  // (with Lv 12 the output is about 4x larger and the faithful roundings show beyond 1% of the elements).
  const auto [pattern, seed] = GENERATE(std::pair{PositionPattern::kOfficial, 11u}, std::pair{PositionPattern::kRandom, 12u});
  const vlb::ProblemShape shape{1, 8, 196};
  INFO("seed " << seed << " positions " << vlb::position_pattern_name(pattern));
  const auto inputs = vlb::make_host_inputs(shape, {seed, pattern});
  const auto exact = vlb::reference::exact_output_cpu(inputs);
  const auto faithful = vlb::reference::faithful_output_cpu(inputs);
  REQUIRE(exact.size() == static_cast<std::size_t>(shape.lang_rows() * vlb::ModelDims::kHidden));
  REQUIRE(faithful.size() == exact.size());

  for (double x : exact) REQUIRE(std::isfinite(x));
  for (double x : faithful) REQUIRE(is_bf16_value(x));
  CHECK(rms(exact) > 0.05);  // a real signal, not a degenerate output

  const auto faithful_bf16 = vlb::testing::to_bf16(faithful);
  const auto tolerance = vlb::testing::workload_tolerance(0.0088);  // the tightest atol of the Lv 196 workloads
  const auto stats = vlb::compare_on_host(faithful_bf16, exact, tolerance);
  const auto verdict = vlb::judge(stats, tolerance);
  INFO(verdict.reason << " ratio " << stats.matched_ratio << " max abs " << stats.max_abs_error << " rms "
                      << rms(exact));
  CHECK(verdict.status == CaseStatus::kPassed);
  // The faithful path rounds: it is not the exact result rounded once.
  const auto exact_bf16 = vlb::testing::to_bf16(exact);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < exact.size(); ++i) {
    if (__bfloat162float(exact_bf16[i]) != __bfloat162float(faithful_bf16[i])) ++differing;
  }
  CHECK(differing > exact.size() / 100);
}

TEST_CASE("the CPU references read the positions: changing them changes the output beyond tolerance",
          "[reference][cpu]") {
  const vlb::ProblemShape shape{1, 8, 12};
  const auto official = vlb::make_host_inputs(shape, {21, PositionPattern::kOfficial});
  auto moved = official;
  auto positions = moved.bytes(vlb::TensorId::kLanguagePositionIds);
  auto* language_positions = reinterpret_cast<std::int64_t*>(positions.data());
  for (std::int64_t i = 0; i < shape.lang_seq; ++i) language_positions[i] += 5000;
  const auto tolerance = vlb::testing::workload_tolerance(0.0088);
  const auto reference = vlb::reference::exact_output_cpu(official);
  const auto language_moved = vlb::reference::exact_output_cpu(moved);
  CHECK(vlb::judge(vlb::compare_on_host(vlb::testing::to_bf16(language_moved), reference, tolerance), tolerance)
            .status == CaseStatus::kIncorrectNumerical);

  auto grid_moved = official;
  auto grid = grid_moved.bytes(vlb::TensorId::kVisionGridThw);
  auto* thw = reinterpret_cast<std::int64_t*>(grid.data());
  for (std::int64_t j = 0; j < shape.vision_seq; ++j) thw[j * 3 + 2] += 7;  // only the w component
  const auto faithful_reference = vlb::reference::faithful_output_cpu(official);
  const auto faithful_moved = vlb::reference::faithful_output_cpu(grid_moved);
  CHECK(vlb::judge(vlb::compare_on_host(vlb::testing::to_bf16(faithful_moved), faithful_reference, tolerance),
                   tolerance)
            .status == CaseStatus::kIncorrectNumerical);
}
