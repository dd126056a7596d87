// The tests' double-precision attention (support_attention_reference) on cases whose answer is known in closed form,
// so that the GPU tests compare against something itself checked.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "support_attention_reference.hpp"

using vlb::fused_b200::testing::AttentionInputsHost;
using vlb::fused_b200::testing::make_attention_inputs;
using vlb::fused_b200::testing::reference_attention;

namespace {
constexpr std::int64_t kHeads = 32, kKvHeads = 8, kHeadDim = 128;
float value_of(__nv_bfloat16 x) { return __bfloat162float(x); }
}  // namespace

TEST_CASE("reference attention: equal scores give the mean of V over the keys of the head's own batch and group",
          "[fused_b200][attention]") {
  AttentionInputsHost inputs = make_attention_inputs(2, 3, 5, 11);
  for (auto& q : inputs.q) q = __float2bfloat16(0.0f);  // every score 0: uniform weights
  const std::vector<std::int64_t> tokens = {0, 4};       // batch 0 token 0, batch 1 token 1
  const std::vector<double> out = reference_attention(inputs, tokens);
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    const std::int64_t batch = tokens[t] / inputs.lang_seq;
    for (std::int64_t head : {0, 3, 4, 31}) {
      const std::int64_t kv_head = head / 4;
      for (std::int64_t d : {0, 77, 127}) {
        double mean = 0.0;
        for (std::int64_t j = 0; j < inputs.vision_seq; ++j) {
          mean += value_of(inputs.v[((batch * inputs.vision_seq + j) * kKvHeads + kv_head) * kHeadDim + d]);
        }
        mean /= static_cast<double>(inputs.vision_seq);
        CHECK(out[(t * kHeads + head) * kHeadDim + d] == Approx(mean).margin(1e-12));
      }
    }
  }
}

TEST_CASE("reference attention: one dominant key selects its V row", "[fused_b200][attention]") {
  AttentionInputsHost inputs = make_attention_inputs(1, 1, 4, 12);
  for (auto& k : inputs.k) k = __float2bfloat16(0.0f);
  for (auto& q : inputs.q) q = __float2bfloat16(1.0f);
  // Key 2 of kv head 5: score 128 * 8 / sqrt(128) ~ 90 against 0: weight 1 - e^-90.
  for (std::int64_t d = 0; d < kHeadDim; ++d) inputs.k[(2 * kKvHeads + 5) * kHeadDim + d] = __float2bfloat16(8.0f);
  const std::vector<double> out = reference_attention(inputs, std::vector<std::int64_t>{0});
  for (std::int64_t head = 20; head < 24; ++head) {  // the heads of kv head 5
    for (std::int64_t d = 0; d < kHeadDim; d += 31) {
      CHECK(out[head * kHeadDim + d] == Approx(value_of(inputs.v[(2 * kKvHeads + 5) * kHeadDim + d])).margin(1e-9));
    }
  }
}

TEST_CASE("reference attention: seeded inputs are reproducible, spread like projections, never all zero",
          "[fused_b200][attention]") {
  const AttentionInputsHost a = make_attention_inputs(1, 7, 9, 5), b = make_attention_inputs(1, 7, 9, 5);
  const AttentionInputsHost c = make_attention_inputs(1, 7, 9, 6);
  REQUIRE(a.q.size() == 7 * kHeads * kHeadDim);
  CHECK(std::memcmp(a.q.data(), b.q.data(), a.q.size() * sizeof(a.q[0])) == 0);
  CHECK(std::memcmp(a.q.data(), c.q.data(), a.q.size() * sizeof(a.q[0])) != 0);
  double sum_squares = 0.0;
  for (auto x : a.k) sum_squares += value_of(x) * value_of(x);
  CHECK(std::sqrt(sum_squares / static_cast<double>(a.k.size())) == Approx(1.3).epsilon(0.1));
}
