// The faithful GPU reference's stages: cuBLAS (bf16 in, fp32 compute) for the four products, simple kernels for the
// bias, RoPE, scaling and softmax, each rounding to bf16 where the reference does.
#include "reference/gpu_stages.hpp"

#include <algorithm>
#include <string>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"
#include "reference/block_reduce.cuh"
#include "harness/core/cublas_handle.hpp"
#include "reference/rope_math.hpp"
#include "reference/score_scale.hpp"

namespace vlb::reference {

namespace {
using D = ModelDims;
constexpr int kThreads = 256;

int grid_for(std::int64_t work) {
  return static_cast<int>(std::clamp<std::int64_t>((work + kThreads - 1) / kThreads, 1, 65536));
}

// y = bf16(acc + bias): the fp32 accumulator and the bias added in fp32, one rounding. (A GEMM with beta = 1 onto a
// bf16 C holding the bias is not the same: measured on an H200, 27% of its values were a bf16 ulp away from the single
// rounding, as if the product were rounded to bf16 before C was added.)
__global__ void bias_round_kernel(const float* acc, const bf16* bias, bf16* y, std::int64_t rows, std::int64_t cols) {
  const std::int64_t total = rows * cols;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < total;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    y[i] = __float2bfloat16_rn(acc[i] + __bfloat162float(bias[i % cols]));
  }
}

// In-place faithful RoPE on x [rows, heads, 128]; one thread per (row, head, pair).
// kThreeD: pairs and positions of the sectioned 3D rotation (positions [rows, 3]); else 1D (positions [rows]).
template <bool kThreeD>
__global__ void rope_bf16_kernel(bf16* x, const std::int64_t* positions, std::int64_t rows, int heads) {
  const std::int64_t total = rows * heads * rope::kNumPairs;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < total;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const int p = static_cast<int>(i % rope::kNumPairs);
    const std::int64_t head_row = i / rope::kNumPairs;  // row * heads + head
    const std::int64_t row = head_row / heads;
    const rope::RopePair pair = kThreeD ? rope::pair_3d(p) : rope::pair_1d(p);
    const std::int64_t position = kThreeD ? positions[row * 3 + pair.section] : positions[row];
    const rope::CosSin cs = rope::cos_sin_bf16(position, pair.freq_index, pair.width);
    bf16* head = x + head_row * rope::kHeadDim;
    float low = __bfloat162float(head[pair.low]);
    float high = __bfloat162float(head[pair.high]);
    rope::rotate_pair_bf16(low, high, cs);
    head[pair.low] = __float2bfloat16_rn(low);
    head[pair.high] = __float2bfloat16_rn(high);
  }
}

// One block per score row, in place: x = bf16(score * scale); p = bf16(exp(x - max) / sum) in fp32.
__global__ void scale_softmax_bf16_kernel(bf16* scores, std::int64_t cols) {
  bf16* row = scores + blockIdx.x * cols;
  float local_max = -INFINITY;
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
    const bf16 scaled = __float2bfloat16_rn(__bfloat162float(row[j]) * kFaithfulScoreScale);
    row[j] = scaled;
    local_max = fmaxf(local_max, __bfloat162float(scaled));
  }
  const float row_max = detail::block_reduce(local_max, detail::MaxOp{});
  float local_sum = 0.0f;
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) local_sum += expf(__bfloat162float(row[j]) - row_max);
  const float row_sum = detail::block_reduce(local_sum, detail::SumOp{});
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
    row[j] = __float2bfloat16_rn(__fdiv_rn(expf(__bfloat162float(row[j]) - row_max), row_sum));
  }
}

void bind_cublas(const ProblemShape& shape, const StageContext& ctx) {
  const std::size_t needed = stage_workspace_bytes(shape);
  if (ctx.workspace == nullptr || ctx.workspace_bytes < needed) {
    // (fmt v9 does not compile under nvcc: plain strings here.)
    throw UsageError("faithful reference stages for " + describe(shape) + " need a workspace of " +
                     std::to_string(needed) + " bytes, got " + std::to_string(ctx.workspace_bytes));
  }
  VLB_CUBLAS_CHECK(cublasSetStream(ctx.cublas, ctx.stream));  // resets the workspace: set it after
  VLB_CUBLAS_CHECK(cublasSetWorkspace(ctx.cublas, ctx.workspace, kCublasWorkspaceBytes));
}

// y[rows, out_dim] = x[rows, in] @ w[out_dim, in]^T, fp32 accumulation, written as `y_type` (bf16: one rounding).
// Column-major view: y^T = w x^T, so w is transposed and x is not.
void linear(const StageContext& ctx, const bf16* x, std::int64_t rows, const bf16* w, std::int64_t out_dim,
            std::int64_t in_dim, void* y, cudaDataType_t y_type) {
  const float alpha = 1.0f, beta = 0.0f;
  VLB_CUBLAS_CHECK(cublasGemmEx(ctx.cublas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(out_dim),
                                static_cast<int>(rows), static_cast<int>(in_dim), &alpha, w, CUDA_R_16BF,
                                static_cast<int>(in_dim), x, CUDA_R_16BF, static_cast<int>(in_dim), &beta, y, y_type,
                                static_cast<int>(out_dim), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

float* stage_scratch(const StageContext& ctx) {
  return reinterpret_cast<float*>(static_cast<char*>(ctx.workspace) + kCublasWorkspaceBytes);
}

// bf16(fp32(x @ w^T) + bias) into y, in chunks of projection_chunk_rows(shape) rows through the fp32 scratch.
void biased_projection(const ProblemShape& shape, const StageContext& ctx, const bf16* x, std::int64_t rows,
                       const bf16* w, const bf16* bias, std::int64_t out_dim, bf16* y) {
  float* acc = stage_scratch(ctx);
  const std::int64_t chunk = projection_chunk_rows(shape);
  for (std::int64_t row0 = 0; row0 < rows; row0 += chunk) {
    const std::int64_t n = std::min(chunk, rows - row0);
    linear(ctx, x + row0 * D::kHidden, n, w, out_dim, D::kHidden, acc, CUDA_R_32F);
    bias_round_kernel<<<grid_for(n * out_dim), kThreads, 0, ctx.stream>>>(acc, bias, y + row0 * out_dim, n, out_dim);
    VLB_CHECK_LAUNCH();
  }
}

template <bool kThreeD>
void rotate(const StageContext& ctx, bf16* x, const std::int64_t* positions, std::int64_t rows, int heads) {
  rope_bf16_kernel<kThreeD><<<grid_for(rows * heads * rope::kNumPairs), kThreads, 0, ctx.stream>>>(x, positions,
                                                                                                      rows, heads);
  VLB_CHECK_LAUNCH();
}

// One chunk of attention for kv head g: `rows` query rows starting at q_rows / o_rows (row stride 4096).
void attention_chunk(const StageContext& ctx, std::int64_t rows, std::int64_t lv, const bf16* q_rows,
                     const bf16* k_head, const bf16* v_head, bf16* o_rows, bf16* scores) {
  const float alpha = 1.0f, beta = 0.0f;
  const int heads = static_cast<int>(D::kHeadsPerKvHead);
  const long long score_stride = static_cast<long long>(rows * lv);
  // scores[h][i][j] = Q[i, h] . K[j]: column-major C (Lv x rows) = K (Lv x 128) * Q^T (128 x rows).
  VLB_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
      ctx.cublas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(lv), static_cast<int>(rows),
      static_cast<int>(D::kHeadDim), &alpha, k_head, CUDA_R_16BF, static_cast<int>(D::kKvProjDim), 0, q_rows,
      CUDA_R_16BF, static_cast<int>(D::kQProjDim), D::kHeadDim, &beta, scores, CUDA_R_16BF, static_cast<int>(lv),
      score_stride, heads, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  scale_softmax_bf16_kernel<<<static_cast<unsigned>(heads * rows), kThreads, 0, ctx.stream>>>(scores, lv);
  VLB_CHECK_LAUNCH();
  // O[i, h] = P[h][i] @ V: column-major C (128 x rows) = V^T (128 x Lv) * P^T (Lv x rows).
  VLB_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
      ctx.cublas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(D::kHeadDim), static_cast<int>(rows),
      static_cast<int>(lv), &alpha, v_head, CUDA_R_16BF, static_cast<int>(D::kKvProjDim), 0, scores, CUDA_R_16BF,
      static_cast<int>(lv), score_stride, &beta, o_rows, CUDA_R_16BF, static_cast<int>(D::kQProjDim), D::kHeadDim,
      heads, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}
}  // namespace

std::int64_t score_chunk_rows(const ProblemShape& shape) {
  const auto per_row = static_cast<std::int64_t>(D::kHeadsPerKvHead * shape.vision_seq * sizeof(bf16));
  const std::int64_t rows = static_cast<std::int64_t>(kScoreChunkBytes) / std::max<std::int64_t>(per_row, 1);
  return std::clamp<std::int64_t>(rows, 1, std::max<std::int64_t>(shape.lang_seq, 1));
}

std::int64_t projection_chunk_rows(const ProblemShape& shape) {
  const std::int64_t rows = std::max(shape.lang_rows(), shape.vision_rows());
  return std::clamp<std::int64_t>(rows, 1, kProjectionChunkRows);
}

std::size_t stage_workspace_bytes(const ProblemShape& shape) {
  const auto scores = static_cast<std::size_t>(D::kHeadsPerKvHead * score_chunk_rows(shape) * shape.vision_seq) *
                      sizeof(bf16);
  const auto projection = static_cast<std::size_t>(projection_chunk_rows(shape) * D::kHidden) * sizeof(float);
  return kCublasWorkspaceBytes + align_256(std::max(scores, projection));  // the stages run one after the other
}

void faithful_q_stage(const ProblemShape& shape, const FusionInputs& inputs, bf16* q, const StageContext& ctx) {
  bind_cublas(shape, ctx);
  biased_projection(shape, ctx, inputs.language_hidden_states.data, shape.lang_rows(), inputs.q_proj_weight.data,
                    inputs.q_proj_bias.data, D::kQProjDim, q);
  rotate<false>(ctx, q, inputs.language_position_ids.data, shape.lang_rows(), static_cast<int>(D::kNumHeads));
}

void faithful_kv_stage(const ProblemShape& shape, const FusionInputs& inputs, bf16* k, bf16* v,
                       const StageContext& ctx) {
  bind_cublas(shape, ctx);
  biased_projection(shape, ctx, inputs.vision_hidden_states.data, shape.vision_rows(), inputs.k_proj_weight.data,
                    inputs.k_proj_bias.data, D::kKvProjDim, k);
  biased_projection(shape, ctx, inputs.vision_hidden_states.data, shape.vision_rows(), inputs.v_proj_weight.data,
                    inputs.v_proj_bias.data, D::kKvProjDim, v);
  rotate<true>(ctx, k, inputs.vision_grid_thw.data, shape.vision_rows(), static_cast<int>(D::kNumKvHeads));
}

void faithful_attention_stage(const ProblemShape& shape, const bf16* q, const bf16* k, const bf16* v, bf16* o,
                              const StageContext& ctx) {
  bind_cublas(shape, ctx);
  bf16* scores = reinterpret_cast<bf16*>(stage_scratch(ctx));
  const std::int64_t lq = shape.lang_seq, lv = shape.vision_seq;
  const std::int64_t chunk = ctx.max_chunk_rows > 0 ? std::min(ctx.max_chunk_rows, score_chunk_rows(shape))
                                                    : score_chunk_rows(shape);
  for (std::int64_t b = 0; b < shape.batch; ++b) {
    for (std::int64_t row0 = 0; row0 < lq; row0 += chunk) {
      const std::int64_t rows = std::min(chunk, lq - row0);
      for (std::int64_t g = 0; g < D::kNumKvHeads; ++g) {
        const std::int64_t q_offset = ((b * lq + row0) * D::kNumHeads + g * D::kHeadsPerKvHead) * D::kHeadDim;
        const std::int64_t kv_offset = (b * lv * D::kNumKvHeads + g) * D::kHeadDim;
        attention_chunk(ctx, rows, lv, q + q_offset, k + kv_offset, v + kv_offset, o + q_offset, scores);
      }
    }
  }
}

void faithful_output_stage(const ProblemShape& shape, const bf16* o, const bf16* o_proj_weight, bf16* output,
                           const StageContext& ctx) {
  bind_cublas(shape, ctx);
  linear(ctx, o, shape.lang_rows(), o_proj_weight, D::kHidden, D::kQProjDim, output, CUDA_R_16BF);
}

}  // namespace vlb::reference
