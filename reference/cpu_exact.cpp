// The CPU exact reference: docs/operation.md steps 1-6 in double precision, no intermediate rounding.
#include <algorithm>
#include <cmath>

#include "reference/cpu_common.hpp"
#include "reference/cpu_parallel.hpp"
#include "reference/cpu_reference.hpp"
#include "reference/rope_math.hpp"
#include "reference/score_scale.hpp"

namespace vlb::reference {

namespace {
using D = ModelDims;

std::vector<double> project(const HostInputs& in, TensorId x_id, std::int64_t rows, TensorId w_id, TensorId b_id,
                            std::int64_t out_dim) {
  const auto x = cpu::to_float(in.bf16_tensor(x_id));
  const auto w = cpu::to_float(in.bf16_tensor(w_id));
  const auto bias = cpu::to_float(in.bf16_tensor(b_id));
  auto y = cpu::linear_double(x, rows, w, out_dim, D::kHidden);
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < out_dim; ++c) y[r * out_dim + c] += bias[c];
  }
  return y;
}

// Rotates every head of every row; pair_of(p) gives the pair, position_of(row, section) the position.
template <class PairOf, class PositionOf>
void rotate_exact(std::vector<double>& x, std::int64_t rows, std::int64_t heads, PairOf pair_of,
                  PositionOf position_of) {
  for (std::int64_t r = 0; r < rows; ++r) {
    for (int p = 0; p < rope::kNumPairs; ++p) {
      const rope::RopePair pair = pair_of(p);
      const double angle = rope::angle_exact(position_of(r, pair.section), pair.freq_index, pair.width);
      const double c = std::cos(angle), s = std::sin(angle);
      for (std::int64_t h = 0; h < heads; ++h) {
        double* head = x.data() + (r * heads + h) * D::kHeadDim;
        const double low = head[pair.low], high = head[pair.high];
        head[pair.low] = low * c - high * s;
        head[pair.high] = high * c + low * s;
      }
    }
  }
}

// O [B*Lq, 4096] (head-major inside a token) of softmax(Q K^T / sqrt(128)) V, all in double.
std::vector<double> attention_exact(const ProblemShape& shape, const std::vector<double>& q,
                                    const std::vector<double>& k, const std::vector<double>& v) {
  const std::int64_t lq = shape.lang_seq, lv = shape.vision_seq;
  std::vector<double> o(static_cast<std::size_t>(shape.lang_rows() * D::kQProjDim));
  parallel_for(shape.batch * D::kNumHeads * lq, [&](std::int64_t begin, std::int64_t end) {
    std::vector<double> weights(static_cast<std::size_t>(lv));
    for (std::int64_t index = begin; index < end; ++index) {
      const std::int64_t i = index % lq, h = (index / lq) % D::kNumHeads, b = index / (lq * D::kNumHeads);
      const std::int64_t g = h / D::kHeadsPerKvHead;
      const double* q_row = q.data() + ((b * lq + i) * D::kNumHeads + h) * D::kHeadDim;
      double max_score = -INFINITY;
      for (std::int64_t j = 0; j < lv; ++j) {
        const double* k_row = k.data() + ((b * lv + j) * D::kNumKvHeads + g) * D::kHeadDim;
        double score = 0.0;
        for (std::int64_t d = 0; d < D::kHeadDim; ++d) score += q_row[d] * k_row[d];
        weights[j] = score * kExactScoreScale;
        max_score = std::max(max_score, weights[j]);
      }
      double sum = 0.0;
      for (std::int64_t j = 0; j < lv; ++j) sum += (weights[j] = std::exp(weights[j] - max_score));
      double* o_row = o.data() + ((b * lq + i) * D::kNumHeads + h) * D::kHeadDim;
      for (std::int64_t j = 0; j < lv; ++j) {
        const double* v_row = v.data() + ((b * lv + j) * D::kNumKvHeads + g) * D::kHeadDim;
        const double p = weights[j] / sum;
        for (std::int64_t d = 0; d < D::kHeadDim; ++d) o_row[d] += p * v_row[d];
      }
    }
  });
  return o;
}
}  // namespace

std::vector<double> exact_output_cpu(const HostInputs& in) {
  const ProblemShape& shape = in.shape;
  auto q = project(in, TensorId::kLanguageHiddenStates, shape.lang_rows(), TensorId::kQProjWeight,
                   TensorId::kQProjBias, D::kQProjDim);
  auto k = project(in, TensorId::kVisionHiddenStates, shape.vision_rows(), TensorId::kKProjWeight,
                   TensorId::kKProjBias, D::kKvProjDim);
  const auto v = project(in, TensorId::kVisionHiddenStates, shape.vision_rows(), TensorId::kVProjWeight,
                         TensorId::kVProjBias, D::kKvProjDim);
  const auto positions = in.int64_tensor(TensorId::kLanguagePositionIds);  // [B*Lq]
  const auto grid = in.int64_tensor(TensorId::kVisionGridThw);             // [B*Lv, 3]
  rotate_exact(q, shape.lang_rows(), D::kNumHeads, rope::pair_1d,
               [&](std::int64_t row, int) { return positions[row]; });
  rotate_exact(k, shape.vision_rows(), D::kNumKvHeads, rope::pair_3d,
               [&](std::int64_t row, int section) { return grid[row * D::kThwDim + section]; });
  const auto o = attention_exact(shape, q, k, v);
  const auto wo = cpu::to_float(in.bf16_tensor(TensorId::kOProjWeight));
  return cpu::linear_double(o, shape.lang_rows(), wo, D::kHidden, D::kQProjDim);
}

}  // namespace vlb::reference
