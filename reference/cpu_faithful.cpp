// The CPU faithful reference: the reference's bf16 rounding points (docs/operation.md steps 1-6).
// fp32 accumulations are modelled by a double sum rounded to fp32 once (the GPU's fp32 summation order is
// unknown; the difference is far below the bf16 rounding that follows every product).
#include <algorithm>
#include <cmath>

#include "reference/cpu_common.hpp"
#include "reference/cpu_parallel.hpp"
#include "reference/cpu_reference.hpp"
#include "reference/cpu_stages.hpp"
#include "reference/rope_math.hpp"
#include "reference/score_scale.hpp"

namespace vlb::reference {

namespace {
using D = ModelDims;

// bf16(fp32(x @ W^T) + bias), values kept as floats that are exact bf16 values.
std::vector<float> project(const HostInputs& in, TensorId x_id, std::int64_t rows, TensorId w_id, TensorId b_id,
                           std::int64_t out_dim) {
  const auto x = cpu::to_float(in.bf16_tensor(x_id));
  const auto w = cpu::to_float(in.bf16_tensor(w_id));
  const auto bias = cpu::to_float(in.bf16_tensor(b_id));
  const auto accumulated = cpu::linear_double(x, rows, w, out_dim, D::kHidden);
  std::vector<float> y(accumulated.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < out_dim; ++c) {
      y[r * out_dim + c] = rope::round_bf16(static_cast<float>(accumulated[r * out_dim + c]) + bias[c]);
    }
  }
  return y;
}

template <class PairOf, class PositionOf>
void rotate_faithful(std::vector<float>& x, std::int64_t rows, std::int64_t heads, PairOf pair_of,
                     PositionOf position_of) {
  for (std::int64_t r = 0; r < rows; ++r) {
    for (int p = 0; p < rope::kNumPairs; ++p) {
      const rope::RopePair pair = pair_of(p);
      const rope::CosSin cs = rope::cos_sin_bf16(position_of(r, pair.section), pair.freq_index, pair.width);
      for (std::int64_t h = 0; h < heads; ++h) {
        float* head = x.data() + (r * heads + h) * D::kHeadDim;
        rope::rotate_pair_bf16(head[pair.low], head[pair.high], cs);
      }
    }
  }
}

}  // namespace

std::vector<float> faithful_attention_cpu(const ProblemShape& shape, const std::vector<float>& q,
                                      const std::vector<float>& k, const std::vector<float>& v) {
  const std::int64_t lq = shape.lang_seq, lv = shape.vision_seq;
  std::vector<float> o(static_cast<std::size_t>(shape.lang_rows() * D::kQProjDim));
  parallel_for(shape.batch * D::kNumHeads * lq, [&](std::int64_t begin, std::int64_t end) {
    std::vector<float> weights(static_cast<std::size_t>(lv));
    std::vector<double> o_sum(D::kHeadDim);
    for (std::int64_t index = begin; index < end; ++index) {
      const std::int64_t i = index % lq, h = (index / lq) % D::kNumHeads, b = index / (lq * D::kNumHeads);
      const std::int64_t g = h / D::kHeadsPerKvHead;
      const float* q_row = q.data() + ((b * lq + i) * D::kNumHeads + h) * D::kHeadDim;
      float max_score = -INFINITY;
      for (std::int64_t j = 0; j < lv; ++j) {
        const float* k_row = k.data() + ((b * lv + j) * D::kNumKvHeads + g) * D::kHeadDim;
        double score = 0.0;
        for (std::int64_t d = 0; d < D::kHeadDim; ++d) score += static_cast<double>(q_row[d]) * k_row[d];
        const float score_bf16 = cpu::round_to_bf16(score);
        weights[j] = rope::round_bf16(score_bf16 * kFaithfulScoreScale);
        max_score = std::max(max_score, weights[j]);
      }
      float sum = 0.0f;
      for (std::int64_t j = 0; j < lv; ++j) sum += (weights[j] = std::exp(weights[j] - max_score));
      std::fill(o_sum.begin(), o_sum.end(), 0.0);
      for (std::int64_t j = 0; j < lv; ++j) {
        const float* v_row = v.data() + ((b * lv + j) * D::kNumKvHeads + g) * D::kHeadDim;
        const double p = rope::round_bf16(weights[j] / sum);
        for (std::int64_t d = 0; d < D::kHeadDim; ++d) o_sum[d] += p * v_row[d];
      }
      float* o_row = o.data() + ((b * lq + i) * D::kNumHeads + h) * D::kHeadDim;
      for (std::int64_t d = 0; d < D::kHeadDim; ++d) o_row[d] = cpu::round_to_bf16(o_sum[d]);
    }
  });
  return o;
}

std::vector<float> faithful_q_cpu(const HostInputs& in) {
  const ProblemShape& shape = in.shape;
  auto q = project(in, TensorId::kLanguageHiddenStates, shape.lang_rows(), TensorId::kQProjWeight,
                   TensorId::kQProjBias, D::kQProjDim);
  const auto positions = in.int64_tensor(TensorId::kLanguagePositionIds);
  rotate_faithful(q, shape.lang_rows(), D::kNumHeads, rope::pair_1d,
                  [&](std::int64_t row, int) { return positions[row]; });
  return q;
}

FaithfulKv faithful_kv_cpu(const HostInputs& in) {
  const ProblemShape& shape = in.shape;
  FaithfulKv kv;
  kv.k = project(in, TensorId::kVisionHiddenStates, shape.vision_rows(), TensorId::kKProjWeight, TensorId::kKProjBias,
                 D::kKvProjDim);
  kv.v = project(in, TensorId::kVisionHiddenStates, shape.vision_rows(), TensorId::kVProjWeight, TensorId::kVProjBias,
                 D::kKvProjDim);
  const auto grid = in.int64_tensor(TensorId::kVisionGridThw);
  rotate_faithful(kv.k, shape.vision_rows(), D::kNumKvHeads, rope::pair_3d,
                  [&](std::int64_t row, int section) { return grid[row * D::kThwDim + section]; });
  return kv;
}

std::vector<double> faithful_output_projection_cpu(const HostInputs& in, const std::vector<float>& o) {
  const auto wo = cpu::to_float(in.bf16_tensor(TensorId::kOProjWeight));
  const auto accumulated = cpu::linear_double(o, in.shape.lang_rows(), wo, D::kHidden, D::kQProjDim);
  std::vector<double> output(accumulated.size());
  for (std::size_t i = 0; i < output.size(); ++i) output[i] = cpu::round_to_bf16(accumulated[i]);
  return output;
}

std::vector<double> faithful_output_cpu(const HostInputs& in) {
  const auto q = faithful_q_cpu(in);
  const auto kv = faithful_kv_cpu(in);
  return faithful_output_projection_cpu(in, faithful_attention_cpu(in.shape, q, kv.k, kv.v));
}

}  // namespace vlb::reference
