// The attention's reference rounding points (solutions/fused_b200/attention_rounding.hpp, used where a row's every
// key is in one KV block) against the reference's own CPU code (reference/cpu_faithful.cpp's steps), on seeded
// scores and probabilities: the scores' bits equal (their double rounding visible where one rounding differs), P's
// but for the rare draw where the row's reciprocal moves it by one bf16 step.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "reference/rope_math.hpp"
#include "reference/score_scale.hpp"
#include "solutions/fused_b200/attention_rounding.hpp"

using namespace vlb::fused_b200;

namespace {

std::uint32_t bits(float value) {
  std::uint32_t out;
  std::memcpy(&out, &value, sizeof(out));
  return out;
}

}  // namespace

TEST_CASE("attention rounding: the score scale is the reference's, bit for bit", "[fused_b200][attention]") {
  CHECK(bits(kReferenceScoreScale) == bits(vlb::reference::kFaithfulScoreScale));
  // And it is 1/sqrt(128) to fp32 precision (not, say, the reciprocal of bf16's 11.3125).
  CHECK(std::abs(static_cast<double>(kReferenceScoreScale) - 1.0 / std::sqrt(128.0)) < 1e-8);
}

TEST_CASE("attention rounding: scaled scores equal the reference's steps on seeded values", "[fused_b200][attention]") {
  std::mt19937_64 rng(20261207);
  std::normal_distribution<float> score(0.0f, 20.0f);  // Q K^T of the projections' outputs: |s| up to ~100
  int double_rounded = 0;
  for (int i = 0; i < 200000; ++i) {
    const float s = score(rng);
    // reference/cpu_faithful.cpp: the GEMM's bf16 output, then bf16(that * scale).
    const float expected = vlb::reference::rope::round_bf16(vlb::reference::rope::round_bf16(s) *
                                                            vlb::reference::kFaithfulScoreScale);
    REQUIRE(bits(reference_scaled_score(s)) == bits(expected));
    double_rounded += bits(expected) != bits(vlb::reference::rope::round_bf16(s * kReferenceScoreScale));
  }
  // The first rounding matters: rounding once instead would differ on a share of the draws.
  CHECK(double_rounded > 1000);
}

TEST_CASE("attention rounding: P by the row's reciprocal is the reference's quotient but for rare draws",
          "[fused_b200][attention]") {
  std::mt19937_64 rng(20261208);
  std::uniform_real_distribution<float> exponential(0.0f, 1.0f);
  std::uniform_real_distribution<float> row_sum(1.0f, 200.0f);
  constexpr int kDraws = 1000000;
  int differing = 0;
  for (int i = 0; i < kDraws; ++i) {
    const float e = exponential(rng), sum = row_sum(rng);
    const float expected = vlb::reference::rope::round_bf16(e / sum);  // reference/cpu_faithful.cpp's P
    const float p = reference_probability(e, 1.0f / sum);
    differing += bits(p) != bits(expected);
    // Where they differ, by one bf16 step at most.
    REQUIRE(std::abs(p - expected) <= std::abs(expected) * (1.0f / 128.0f));
  }
  INFO(differing << " of " << kDraws << " draws differ");
  CHECK(differing <= kDraws / 10000);
}

TEST_CASE("attention rounding: masked scores stay -inf and give a zero probability", "[fused_b200][attention]") {
  const float masked = reference_scaled_score(-INFINITY);
  CHECK(std::isinf(masked));
  CHECK(masked < 0.0f);
  CHECK(reference_probability(std::exp(masked - 3.0f), 0.5f) == 0.0f);
}
