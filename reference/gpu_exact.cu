// The exact-math GPU path: fp32 storage, no intermediate rounding, its own kernels (independent of the faithful
// stages). Products: the bf16 inputs are converted to fp32 and multiplied by cuBLAS SGEMM on a handle in
// CUBLAS_PEDANTIC_MATH (true fp32 FMA, no TF32 or other tensor-op down-conversion, whatever NVIDIA_TF32_OVERRIDE says).
// RoPE: bias added in fp32, angle, cos/sin and the rotation in double, rounded to fp32 once. Softmax: fp32.
// Memory is bounded: K and V per batch element, Q/O/scores per chunk of query rows, hidden states per row chunk.
#include <algorithm>
#include <string>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"
#include "reference/block_reduce.cuh"
#include "harness/core/cublas_handle.hpp"
#include "reference/gpu_reference.hpp"
#include "reference/rope_math.hpp"
#include "reference/score_scale.hpp"

namespace vlb::reference {

namespace {
using D = ModelDims;
constexpr int kThreads = 256;
constexpr std::int64_t kHiddenChunkRows = 1024;                        // rows of hidden states converted at once
constexpr std::size_t kExactScoreChunkBytes = std::size_t{64} << 20;  // fp32 scores of 4 heads per chunk

int grid_for(std::int64_t work) {
  return static_cast<int>(std::clamp<std::int64_t>((work + kThreads - 1) / kThreads, 1, 65536));
}

std::int64_t exact_chunk_rows(const ProblemShape& shape) {
  const auto per_row = static_cast<std::int64_t>(D::kHeadsPerKvHead * shape.vision_seq * sizeof(float));
  const std::int64_t rows = static_cast<std::int64_t>(kExactScoreChunkBytes) / std::max<std::int64_t>(per_row, 1);
  return std::clamp<std::int64_t>(rows, 1, kHiddenChunkRows);
}

__global__ void widen_kernel(const bf16* in, float* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    out[i] = __bfloat162float(in[i]);
  }
}

// x [rows, heads, 128] fp32 += bias, then rotated exactly (double angle and rotation); one thread per pair.
template <bool kThreeD>
__global__ void bias_rope_exact_kernel(float* x, const bf16* bias, const std::int64_t* positions, std::int64_t rows,
                                       int heads) {
  const std::int64_t total = rows * heads * rope::kNumPairs;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < total;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const int p = static_cast<int>(i % rope::kNumPairs);
    const std::int64_t head_row = i / rope::kNumPairs;
    const std::int64_t row = head_row / heads;
    const int head = static_cast<int>(head_row % heads);
    const rope::RopePair pair = kThreeD ? rope::pair_3d(p) : rope::pair_1d(p);
    const std::int64_t position = kThreeD ? positions[row * 3 + pair.section] : positions[row];
    double sin_angle, cos_angle;
    sincos(rope::angle_exact(position, pair.freq_index, pair.width), &sin_angle, &cos_angle);
    float* x_head = x + head_row * rope::kHeadDim;
    const bf16* b_head = bias + head * rope::kHeadDim;
    const double low = static_cast<double>(x_head[pair.low]) + __bfloat162float(b_head[pair.low]);
    const double high = static_cast<double>(x_head[pair.high]) + __bfloat162float(b_head[pair.high]);
    x_head[pair.low] = static_cast<float>(low * cos_angle - high * sin_angle);
    x_head[pair.high] = static_cast<float>(high * cos_angle + low * sin_angle);
  }
}

__global__ void add_bias_exact_kernel(float* x, const bf16* bias, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < rows * cols;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    x[i] += __bfloat162float(bias[i % cols]);
  }
}

// One block per row, in place: softmax(scores * scale) in fp32.
__global__ void softmax_exact_kernel(float* scores, std::int64_t cols, float scale) {
  float* row = scores + blockIdx.x * cols;
  float local_max = -INFINITY;
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) local_max = fmaxf(local_max, row[j] * scale);
  const float row_max = detail::block_reduce(local_max, detail::MaxOp{});
  float local_sum = 0.0f;
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
    const float e = expf(row[j] * scale - row_max);
    row[j] = e;
    local_sum += e;
  }
  const float inverse_sum = 1.0f / detail::block_reduce(local_sum, detail::SumOp{});
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) row[j] *= inverse_sum;
}

void widen(cudaStream_t stream, const bf16* in, float* out, std::int64_t n) {
  widen_kernel<<<grid_for(n), kThreads, 0, stream>>>(in, out, n);
  VLB_CHECK_LAUNCH();
}

// y[rows, out_dim] (row stride ldy) = x[rows, in] @ w[out_dim, in]^T in fp32.
void sgemm_linear(cublasHandle_t handle, const float* x, std::int64_t rows, const float* w, std::int64_t out_dim,
                  std::int64_t in_dim, float* y, std::int64_t ldy) {
  const float alpha = 1.0f, beta = 0.0f;
  VLB_CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(out_dim), static_cast<int>(rows),
                               static_cast<int>(in_dim), &alpha, w, static_cast<int>(in_dim), x,
                               static_cast<int>(in_dim), &beta, y, static_cast<int>(ldy)));
}

// Carves the workspace into named fp32 buffers, in order.
struct ExactBuffers {
  float *wq, *wk, *wv, *wo, *hidden, *k, *v, *q, *o, *scores;
  void* cublas;
  std::size_t total = 0;

  ExactBuffers(const ProblemShape& shape, void* base) {
    char* cursor = static_cast<char*>(base);
    auto take = [&](std::int64_t floats) {
      float* slice = reinterpret_cast<float*>(cursor);
      const std::size_t bytes = align_256(static_cast<std::size_t>(floats) * sizeof(float));
      if (cursor != nullptr) cursor += bytes;
      total += bytes;
      return slice;
    };
    const std::int64_t chunk = exact_chunk_rows(shape);
    cublas = take(kCublasWorkspaceBytes / sizeof(float));
    wq = take(D::kQProjDim * D::kHidden);
    wk = take(D::kKvProjDim * D::kHidden);
    wv = take(D::kKvProjDim * D::kHidden);
    wo = take(D::kHidden * D::kQProjDim);
    hidden = take(kHiddenChunkRows * D::kHidden);
    k = take(shape.vision_seq * D::kKvProjDim);
    v = take(shape.vision_seq * D::kKvProjDim);
    q = take(chunk * D::kQProjDim);
    o = take(chunk * D::kQProjDim);
    scores = take(D::kHeadsPerKvHead * chunk * shape.vision_seq);
  }
};

// K and V of batch element b, fp32 [Lv, 1024] each, biased, K rotated.
void exact_kv(cublasHandle_t handle, cudaStream_t stream, const ProblemShape& shape, const FusionInputs& in,
              const ExactBuffers& buf, std::int64_t b) {
  const std::int64_t lv = shape.vision_seq;
  for (std::int64_t row0 = 0; row0 < lv; row0 += kHiddenChunkRows) {
    const std::int64_t rows = std::min(kHiddenChunkRows, lv - row0);
    widen(stream, in.vision_hidden_states.data + (b * lv + row0) * D::kHidden, buf.hidden, rows * D::kHidden);
    sgemm_linear(handle, buf.hidden, rows, buf.wk, D::kKvProjDim, D::kHidden, buf.k + row0 * D::kKvProjDim,
                 D::kKvProjDim);
    sgemm_linear(handle, buf.hidden, rows, buf.wv, D::kKvProjDim, D::kHidden, buf.v + row0 * D::kKvProjDim,
                 D::kKvProjDim);
  }
  const int kv_heads = static_cast<int>(D::kNumKvHeads);
  bias_rope_exact_kernel<true><<<grid_for(lv * kv_heads * rope::kNumPairs), kThreads, 0, stream>>>(
      buf.k, in.k_proj_bias.data, in.vision_grid_thw.data + b * lv * D::kThwDim, lv, kv_heads);
  VLB_CHECK_LAUNCH();
  add_bias_exact_kernel<<<grid_for(lv * D::kKvProjDim), kThreads, 0, stream>>>(buf.v, in.v_proj_bias.data, lv,
                                                                               D::kKvProjDim);
  VLB_CHECK_LAUNCH();
}

// Output rows [row0, row0 + rows) of batch element b.
void exact_query_chunk(cublasHandle_t handle, cudaStream_t stream, const ProblemShape& shape, const FusionInputs& in,
                       const ExactBuffers& buf, std::int64_t b, std::int64_t row0, std::int64_t rows, float* output) {
  const std::int64_t lq = shape.lang_seq, lv = shape.vision_seq, token0 = b * lq + row0;
  widen(stream, in.language_hidden_states.data + token0 * D::kHidden, buf.hidden, rows * D::kHidden);
  sgemm_linear(handle, buf.hidden, rows, buf.wq, D::kQProjDim, D::kHidden, buf.q, D::kQProjDim);
  const int heads = static_cast<int>(D::kNumHeads);
  bias_rope_exact_kernel<false><<<grid_for(rows * heads * rope::kNumPairs), kThreads, 0, stream>>>(
      buf.q, in.q_proj_bias.data, in.language_position_ids.data + token0, rows, heads);
  VLB_CHECK_LAUNCH();
  const float alpha = 1.0f, beta = 0.0f;
  const int group = static_cast<int>(D::kHeadsPerKvHead);
  const long long score_stride = static_cast<long long>(rows * lv);
  for (std::int64_t g = 0; g < D::kNumKvHeads; ++g) {
    const float* q_heads = buf.q + g * D::kHeadsPerKvHead * D::kHeadDim;
    float* o_heads = buf.o + g * D::kHeadsPerKvHead * D::kHeadDim;
    VLB_CUBLAS_CHECK(cublasSgemmStridedBatched(
        handle, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(lv), static_cast<int>(rows), static_cast<int>(D::kHeadDim),
        &alpha, buf.k + g * D::kHeadDim, static_cast<int>(D::kKvProjDim), 0, q_heads, static_cast<int>(D::kQProjDim),
        D::kHeadDim, &beta, buf.scores, static_cast<int>(lv), score_stride, group));
    softmax_exact_kernel<<<static_cast<unsigned>(group * rows), kThreads, 0, stream>>>(
        buf.scores, lv, static_cast<float>(kExactScoreScale));
    VLB_CHECK_LAUNCH();
    VLB_CUBLAS_CHECK(cublasSgemmStridedBatched(
        handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(D::kHeadDim), static_cast<int>(rows), static_cast<int>(lv),
        &alpha, buf.v + g * D::kHeadDim, static_cast<int>(D::kKvProjDim), 0, buf.scores, static_cast<int>(lv),
        score_stride, &beta, o_heads, static_cast<int>(D::kQProjDim), D::kHeadDim, group));
  }
  sgemm_linear(handle, buf.o, rows, buf.wo, D::kHidden, D::kQProjDim, output + token0 * D::kHidden, D::kHidden);
}
}  // namespace

std::size_t exact_fp32_workspace_bytes(const ProblemShape& shape) { return ExactBuffers(shape, nullptr).total; }

void exact_output_fp32_gpu(const ProblemShape& shape, const FusionInputs& inputs, float* output, void* workspace,
                           std::size_t workspace_bytes, cudaStream_t stream) {
  const ExactBuffers buf(shape, workspace);
  if (workspace == nullptr || workspace_bytes < buf.total) {
    throw UsageError("the exact fp32 GPU reference for " + describe(shape) + " needs a workspace of " +
                     std::to_string(buf.total) + " bytes, got " + std::to_string(workspace_bytes));
  }
  const CublasHandle cublas;
  cublas.bind(stream, buf.cublas);
  VLB_CUBLAS_CHECK(cublasSetMathMode(cublas.get(), CUBLAS_PEDANTIC_MATH));
  widen(stream, inputs.q_proj_weight.data, buf.wq, D::kQProjDim * D::kHidden);
  widen(stream, inputs.k_proj_weight.data, buf.wk, D::kKvProjDim * D::kHidden);
  widen(stream, inputs.v_proj_weight.data, buf.wv, D::kKvProjDim * D::kHidden);
  widen(stream, inputs.o_proj_weight.data, buf.wo, D::kHidden * D::kQProjDim);
  const std::int64_t chunk = exact_chunk_rows(shape);
  for (std::int64_t b = 0; b < shape.batch; ++b) {
    exact_kv(cublas.get(), stream, shape, inputs, buf, b);
    for (std::int64_t row0 = 0; row0 < shape.lang_seq; row0 += chunk) {
      exact_query_chunk(cublas.get(), stream, shape, inputs, buf, b, row0, std::min(chunk, shape.lang_seq - row0),
                        output);
    }
  }
  // The handle is destroyed on return: wait for the work that uses it and its workspace.
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace vlb::reference
