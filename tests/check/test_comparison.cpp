// compare_on_host and judge on crafted outputs: NaN, Inf, all zero, slightly wrong, and exactly at the boundaries.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "harness/check/comparison.hpp"

using vlb::CaseStatus;
using vlb::Tolerance;

namespace {
using bf16 = __nv_bfloat16;

Tolerance tolerance_of(double atol, double rtol = 0.05, double ratio = 0.99) {
  Tolerance t;
  t.atol = atol;
  t.rtol = rtol;
  t.required_match_ratio = ratio;
  return t;
}

// Seeded reference values that are exact bf16 values, and an output equal to them.
struct Crafted {
  std::vector<double> reference;
  std::vector<bf16> output;
};

Crafted crafted(std::size_t n, std::uint32_t seed) {
  std::mt19937 engine(seed);
  std::normal_distribution<float> normal(0.0f, 0.4f);
  Crafted c;
  for (std::size_t i = 0; i < n; ++i) {
    const bf16 value = __float2bfloat16_rn(normal(engine));
    c.output.push_back(value);
    c.reference.push_back(__bfloat162float(value));
  }
  return c;
}

float value_of(bf16 x) { return __bfloat162float(x); }
}  // namespace

TEST_CASE("identical output passes with every element matched", "[check]") {
  const auto c = crafted(1000, 1);
  const auto tolerance = tolerance_of(0.01);
  const auto stats = vlb::compare_on_host(c.output, c.reference, tolerance);
  CHECK(stats.elements == 1000);
  CHECK(stats.matched == 1000);
  CHECK(stats.matched_ratio == 1.0);
  CHECK(stats.max_abs_error == 0.0);
  CHECK(stats.nan_count == 0);
  CHECK(stats.inf_count == 0);
  CHECK_FALSE(stats.output_all_zero);
  const auto verdict = vlb::judge(stats, tolerance);
  CHECK(verdict.status == CaseStatus::kPassed);
  CHECK(verdict.reason.empty());
}

TEST_CASE("NaN and Inf outputs fail whatever the ratio", "[check]") {
  auto c = crafted(1000, 2);
  const auto tolerance = tolerance_of(0.01);
  c.output[3] = c.output[400] = c.output[999] = __float2bfloat16_rn(std::numeric_limits<float>::quiet_NaN());
  auto stats = vlb::compare_on_host(c.output, c.reference, tolerance);
  CHECK(stats.nan_count == 3);
  CHECK(stats.matched == 997);  // 99.7% would pass on its own
  auto verdict = vlb::judge(stats, tolerance);
  CHECK(verdict.status == CaseStatus::kIncorrectNumerical);
  CHECK(verdict.reason.rfind("3 NaN elements", 0) == 0);

  c = crafted(1000, 3);
  c.output[10] = __float2bfloat16_rn(std::numeric_limits<float>::infinity());
  c.output[11] = __float2bfloat16_rn(-std::numeric_limits<float>::infinity());
  stats = vlb::compare_on_host(c.output, c.reference, tolerance);
  CHECK(stats.inf_count == 2);
  CHECK(stats.nan_count == 0);
  CHECK(stats.worst_index == 10);  // a non-finite element is the worst; the lower index wins a tie
  verdict = vlb::judge(stats, tolerance);
  CHECK(verdict.status == CaseStatus::kIncorrectNumerical);
  CHECK(verdict.reason.find("2 Inf elements") != std::string::npos);
}

TEST_CASE("an all-zero output fails against a non-zero reference, passes against a zero one", "[check]") {
  auto c = crafted(1000, 4);
  const auto tolerance = tolerance_of(10.0);  // so loose that every zero matches
  std::vector<bf16> zeros(1000, __float2bfloat16_rn(0.0f));
  auto stats = vlb::compare_on_host(zeros, c.reference, tolerance);
  CHECK(stats.output_all_zero);
  CHECK_FALSE(stats.reference_all_zero);
  CHECK(stats.matched_ratio == 1.0);
  const auto verdict = vlb::judge(stats, tolerance);
  CHECK(verdict.status == CaseStatus::kIncorrectNumerical);
  CHECK(verdict.reason.find("all zero") != std::string::npos);

  const std::vector<double> zero_reference(1000, 0.0);
  stats = vlb::compare_on_host(zeros, zero_reference, tolerance);
  CHECK(stats.reference_all_zero);
  CHECK(vlb::judge(stats, tolerance).status == CaseStatus::kPassed);
}

TEST_CASE("slightly wrong beyond 1% of the elements fails, naming the worst element", "[check]") {
  auto c = crafted(1000, 5);
  const auto tolerance = tolerance_of(0.01);
  // 20 elements (2%) off by 0.03 + 10% of |ref|: beyond atol + rtol|ref| by at least 0.02, more than the bf16
  // rounding of the output can take back; element 777 off the most.
  for (std::size_t i = 0; i < 1000; i += 50) {
    c.output[i] = __float2bfloat16_rn(static_cast<float>(c.reference[i] + 0.03 + 0.1 * std::fabs(c.reference[i])));
  }
  c.output[777] = __float2bfloat16_rn(static_cast<float>(c.reference[777] + 0.5));
  const auto stats = vlb::compare_on_host(c.output, c.reference, tolerance);
  CHECK(stats.matched == 1000 - 21);
  CHECK(stats.matched_ratio == Approx(0.979));
  CHECK(stats.worst_index == 777);
  CHECK(stats.worst_output == value_of(c.output[777]));
  CHECK(stats.worst_reference == c.reference[777]);
  CHECK(stats.max_abs_error == Approx(0.5).margin(0.01));
  const auto verdict = vlb::judge(stats, tolerance);
  CHECK(verdict.status == CaseStatus::kIncorrectNumerical);
  CHECK(verdict.reason.find("97.9000%") != std::string::npos);
  CHECK(verdict.reason.find("worst element 777") != std::string::npos);
}

TEST_CASE("the ratio boundary: exactly 99% passes, one element less fails", "[check]") {
  auto c = crafted(100, 6);
  const auto tolerance = tolerance_of(0.01);
  c.output[0] = __float2bfloat16_rn(static_cast<float>(c.reference[0] + 1.0));
  auto stats = vlb::compare_on_host(c.output, c.reference, tolerance);
  CHECK(stats.matched == 99);
  CHECK(vlb::judge(stats, tolerance).status == CaseStatus::kPassed);
  c.output[1] = __float2bfloat16_rn(static_cast<float>(c.reference[1] + 1.0));
  stats = vlb::compare_on_host(c.output, c.reference, tolerance);
  CHECK(stats.matched == 98);
  CHECK(vlb::judge(stats, tolerance).status == CaseStatus::kIncorrectNumerical);
}

TEST_CASE("the element boundary: |out - ref| == atol + rtol|ref| passes, the next bf16 fails", "[check]") {
  const auto tolerance = tolerance_of(0.25, 0.25, 1.0);
  const std::vector<double> reference = {1.0, -1.0};
  // allowed = 0.25 + 0.25 * 1 = 0.5, exact in binary.
  std::vector<bf16> output = {__float2bfloat16_rn(1.5f), __float2bfloat16_rn(-1.5f)};
  auto stats = vlb::compare_on_host(output, reference, tolerance);
  CHECK(stats.matched == 2);
  CHECK(stats.max_abs_error == 0.5);
  CHECK(stats.max_rel_error == 0.5);
  CHECK(vlb::judge(stats, tolerance).status == CaseStatus::kPassed);
  output[1] = __float2bfloat16_rn(-1.5078125f);  // one bf16 ulp further
  stats = vlb::compare_on_host(output, reference, tolerance);
  CHECK(stats.matched == 1);
  CHECK(stats.worst_index == 1);
  CHECK(stats.worst_output == -1.5078125);
  CHECK(vlb::judge(stats, tolerance).status == CaseStatus::kIncorrectNumerical);
}

TEST_CASE("the optional max abs error cap", "[check]") {
  auto c = crafted(1000, 7);
  const auto tolerance = tolerance_of(0.01);
  c.output[5] = __float2bfloat16_rn(static_cast<float>(c.reference[5] + 0.25));
  const auto stats = vlb::compare_on_host(c.output, c.reference, tolerance);
  CHECK(vlb::judge(stats, tolerance).status == CaseStatus::kPassed);           // 99.9% matched
  CHECK(vlb::judge(stats, tolerance, 1.0).status == CaseStatus::kPassed);      // cap above the error
  const auto capped = vlb::judge(stats, tolerance, 0.1);
  CHECK(capped.status == CaseStatus::kIncorrectNumerical);
  CHECK(capped.reason.find("cap") != std::string::npos);
}

TEST_CASE("compare_on_host rejects mismatched sizes", "[check]") {
  const std::vector<bf16> output(3, __float2bfloat16_rn(1.0f));
  const std::vector<double> reference(4, 1.0);
  CHECK_THROWS(vlb::compare_on_host(output, reference, tolerance_of(0.01)));
}
