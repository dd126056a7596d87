#include "support_attention_reference.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "harness/core/problem.hpp"
#include "reference/cpu_stages.hpp"

namespace vlb::fused_b200::testing {
namespace {

constexpr std::int64_t kHeads = 32, kKvHeads = 8, kHeadDim = 128;

std::vector<__nv_bfloat16> normal_bf16(std::size_t count, double stddev, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, stddev);
  std::vector<__nv_bfloat16> values(count);
  for (auto& value : values) value = __float2bfloat16_rn(static_cast<float>(normal(rng)));
  return values;
}

}  // namespace

AttentionInputsHost make_attention_inputs(std::int64_t batch, std::int64_t lang_seq, std::int64_t vision_seq,
                                          std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  AttentionInputsHost inputs;
  inputs.batch = batch;
  inputs.lang_seq = lang_seq;
  inputs.vision_seq = vision_seq;
  const auto lang = static_cast<std::size_t>(batch * lang_seq), vision = static_cast<std::size_t>(batch * vision_seq);
  inputs.q = normal_bf16(lang * kHeads * kHeadDim, 1.3, rng);
  inputs.k = normal_bf16(vision * kKvHeads * kHeadDim, 1.3, rng);
  inputs.v = normal_bf16(vision * kKvHeads * kHeadDim, 1.3, rng);
  return inputs;
}

std::vector<double> reference_attention(const AttentionInputsHost& inputs, std::span<const std::int64_t> tokens) {
  const std::int64_t lv = inputs.vision_seq;
  const double inverse_sqrt_dim = 1.0 / std::sqrt(static_cast<double>(kHeadDim));
  std::vector<double> out(tokens.size() * kHeads * kHeadDim, 0.0);
  std::vector<double> logits(static_cast<std::size_t>(lv));
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    const std::int64_t token = tokens[t];
    const std::int64_t batch = token / inputs.lang_seq;
    for (std::int64_t head = 0; head < kHeads; ++head) {
      const std::int64_t kv_head = head / (kHeads / kKvHeads);
      const __nv_bfloat16* q = inputs.q.data() + (token * kHeads + head) * kHeadDim;
      for (std::int64_t j = 0; j < lv; ++j) {
        const __nv_bfloat16* k = inputs.k.data() + ((batch * lv + j) * kKvHeads + kv_head) * kHeadDim;
        double score = 0.0;
        for (std::int64_t d = 0; d < kHeadDim; ++d) {
          score += static_cast<double>(__bfloat162float(q[d])) * static_cast<double>(__bfloat162float(k[d]));
        }
        logits[j] = score * inverse_sqrt_dim;
      }
      const double max_logit = *std::max_element(logits.begin(), logits.end());
      double sum = 0.0;
      for (double& logit : logits) sum += (logit = std::exp(logit - max_logit));
      double* o = out.data() + (t * kHeads + head) * kHeadDim;
      for (std::int64_t j = 0; j < lv; ++j) {
        const __nv_bfloat16* v = inputs.v.data() + ((batch * lv + j) * kKvHeads + kv_head) * kHeadDim;
        const double weight = logits[j] / sum;
        for (std::int64_t d = 0; d < kHeadDim; ++d) o[d] += weight * static_cast<double>(__bfloat162float(v[d]));
      }
    }
  }
  return out;
}

std::vector<float> as_floats(const std::vector<__nv_bfloat16>& values) {
  std::vector<float> out(values.size());
  std::transform(values.begin(), values.end(), out.begin(), [](__nv_bfloat16 x) { return __bfloat162float(x); });
  return out;
}

std::vector<float> reference_rounded_attention(const AttentionInputsHost& inputs) {
  return vlb::reference::faithful_attention_cpu(ProblemShape{inputs.batch, inputs.lang_seq, inputs.vision_seq},
                                                as_floats(inputs.q), as_floats(inputs.k), as_floats(inputs.v));
}

}  // namespace vlb::fused_b200::testing
