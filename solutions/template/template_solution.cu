// The template: a complete, deliberately simple solution to copy when you start your own
// (docs/adding-a-solution.md). cuBLAS does the four projections; one small kernel adds the biases and applies RoPE;
// one warp per (token, query head) computes attention with an online softmax in fp32. It is correct on every
// workload and slow on large ones: it is the structure to keep, not the speed.
#include <cublas_v2.h>

#include <cmath>

#include "harness/core/cuda_check.hpp"
#include "harness/solution/registry.hpp"

namespace vlb::solutions {
namespace {

using D = ModelDims;

constexpr int kWarpSize = 32;
constexpr int kDimsPerLane = D::kHeadDim / kWarpSize;  // 4

// Rotate-half RoPE inside one section [begin, begin + width) of a head, at position `position`.
__device__ void rotate_section(float* head, int begin, int width, float position) {
  const int half = width / 2;
  for (int i = 0; i < half; ++i) {
    const float inv_freq = powf(static_cast<float>(D::kRopeTheta), -2.0f * i / width);
    float sin_angle, cos_angle;
    sincosf(position * inv_freq, &sin_angle, &cos_angle);
    const float x = head[begin + i], y = head[begin + i + half];
    head[begin + i] = x * cos_angle - y * sin_angle;
    head[begin + i + half] = y * cos_angle + x * sin_angle;
  }
}

enum class Rope { kNone, kLanguage1d, kVision3d };

// One thread per head of one token: bias, then RoPE, in fp32; rounded to bf16 once.
__global__ void add_bias_and_rope(bf16* rows, const bf16* bias, std::int64_t tokens, int heads, Rope rope,
                                  const std::int64_t* positions) {
  const std::int64_t index = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (index >= tokens * heads) return;
  const std::int64_t token = index / heads;
  const int head_index = static_cast<int>(index % heads);
  bf16* out = rows + token * heads * D::kHeadDim + head_index * D::kHeadDim;
  float head[D::kHeadDim];
  for (int d = 0; d < D::kHeadDim; ++d) {
    head[d] = __bfloat162float(out[d]) + __bfloat162float(bias[head_index * D::kHeadDim + d]);
  }
  if (rope == Rope::kLanguage1d) {
    rotate_section(head, 0, D::kHeadDim, static_cast<float>(positions[token]));
  } else if (rope == Rope::kVision3d) {
    const std::int64_t* thw = positions + token * D::kThwDim;
    for (int section = 0; section < KRopeSections::kCount; ++section) {
      rotate_section(head, KRopeSections::start(section), KRopeSections::width(section),
                     static_cast<float>(thw[section]));
    }
  }
  for (int d = 0; d < D::kHeadDim; ++d) out[d] = __float2bfloat16(head[d]);
}

__device__ float warp_sum(float value) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

// Block = the 4 query heads of one kv head for one token; warp = one query head; lane = 4 of its 128 dims.
__global__ void attention_online_softmax(const bf16* q, const bf16* k, const bf16* v, bf16* o,
                                         std::int64_t lang_seq, std::int64_t vision_seq) {
  const std::int64_t token = blockIdx.x;  // b * Lq + i
  const std::int64_t batch = token / lang_seq;
  const int kv_head = blockIdx.y;
  const int head = kv_head * static_cast<int>(D::kHeadsPerKvHead) + threadIdx.x / kWarpSize;
  const int lane = threadIdx.x % kWarpSize;
  const float scale = 1.0f / sqrtf(static_cast<float>(D::kHeadDim));

  float query[kDimsPerLane], accumulator[kDimsPerLane] = {};
  const bf16* q_row = q + token * D::kQProjDim + head * D::kHeadDim + lane * kDimsPerLane;
  for (int d = 0; d < kDimsPerLane; ++d) query[d] = __bfloat162float(q_row[d]) * scale;

  float running_max = -INFINITY, running_sum = 0.0f;
  for (std::int64_t j = 0; j < vision_seq; ++j) {
    const std::int64_t kv_offset = (batch * vision_seq + j) * D::kKvProjDim + kv_head * D::kHeadDim + lane * kDimsPerLane;
    float partial = 0.0f;
    for (int d = 0; d < kDimsPerLane; ++d) partial += query[d] * __bfloat162float(k[kv_offset + d]);
    const float score = warp_sum(partial);
    const float new_max = fmaxf(running_max, score);
    const float correction = expf(running_max - new_max);
    const float weight = expf(score - new_max);
    running_sum = running_sum * correction + weight;
    for (int d = 0; d < kDimsPerLane; ++d) {
      accumulator[d] = accumulator[d] * correction + weight * __bfloat162float(v[kv_offset + d]);
    }
    running_max = new_max;
  }
  bf16* o_row = o + token * D::kQProjDim + head * D::kHeadDim + lane * kDimsPerLane;
  for (int d = 0; d < kDimsPerLane; ++d) o_row[d] = __float2bfloat16(accumulator[d] / running_sum);
}

// out[rows, N] = in[rows, K] @ weight[N, K]^T in bf16 with fp32 accumulation (row-major, through cuBLAS's
// column-major view: out^T = weight * in^T).
void project(cublasHandle_t handle, const bf16* in, const bf16* weight, bf16* out, std::int64_t rows, std::int64_t n,
             std::int64_t k) {
  const float one = 1.0f, zero = 0.0f;
  VLB_CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(rows),
                                static_cast<int>(k), &one, weight, CUDA_R_16BF, static_cast<int>(k), in, CUDA_R_16BF,
                                static_cast<int>(k), &zero, out, CUDA_R_16BF, static_cast<int>(n), CUBLAS_COMPUTE_32F,
                                CUBLAS_GEMM_DEFAULT));
}

unsigned blocks_for(std::int64_t threads, int per_block) {
  return static_cast<unsigned>((threads + per_block - 1) / per_block);
}

// The workspace holds Q, K, V and the attention output, each bf16.
struct Workspace {
  bf16 *q, *k, *v, *o;
  static std::size_t bytes(const ProblemShape& s) {
    return sizeof(bf16) * (2 * s.lang_rows() * D::kQProjDim + 2 * s.vision_rows() * D::kKvProjDim);
  }
  Workspace(void* base, const ProblemShape& s) {
    q = static_cast<bf16*>(base);
    o = q + s.lang_rows() * D::kQProjDim;
    k = o + s.lang_rows() * D::kQProjDim;
    v = k + s.vision_rows() * D::kKvProjDim;
  }
};

class TemplateSolution final : public Solution {
 public:
  TemplateSolution() { VLB_CUBLAS_CHECK(cublasCreate(&cublas_)); }
  ~TemplateSolution() override { (void)cublasDestroy(cublas_); }

  static SolutionInfo describe() {
    return {.name = "template",
            .author = "vlbench",
            .description = "Start here: cuBLAS projections, a RoPE kernel and a warp-per-row attention kernel",
            .languages = {"cuda"},
            .target_compute_capabilities = {}};
  }

  std::size_t workspace_bytes(const ProblemShape& shape) const override { return Workspace::bytes(shape); }

  void run(const FusionArgs& args) override {
    const ProblemShape& s = args.shape;
    const FusionInputs& in = args.inputs;
    const Workspace ws(args.workspace, s);
    VLB_CUBLAS_CHECK(cublasSetStream(cublas_, args.stream));

    project(cublas_, in.language_hidden_states.data, in.q_proj_weight.data, ws.q, s.lang_rows(), D::kQProjDim, D::kHidden);
    project(cublas_, in.vision_hidden_states.data, in.k_proj_weight.data, ws.k, s.vision_rows(), D::kKvProjDim, D::kHidden);
    project(cublas_, in.vision_hidden_states.data, in.v_proj_weight.data, ws.v, s.vision_rows(), D::kKvProjDim, D::kHidden);

    constexpr int kThreads = 128;
    const std::int64_t q_heads = s.lang_rows() * D::kNumHeads, kv_heads = s.vision_rows() * D::kNumKvHeads;
    add_bias_and_rope<<<blocks_for(q_heads, kThreads), kThreads, 0, args.stream>>>(
        ws.q, in.q_proj_bias.data, s.lang_rows(), D::kNumHeads, Rope::kLanguage1d, in.language_position_ids.data);
    add_bias_and_rope<<<blocks_for(kv_heads, kThreads), kThreads, 0, args.stream>>>(
        ws.k, in.k_proj_bias.data, s.vision_rows(), D::kNumKvHeads, Rope::kVision3d, in.vision_grid_thw.data);
    add_bias_and_rope<<<blocks_for(kv_heads, kThreads), kThreads, 0, args.stream>>>(
        ws.v, in.v_proj_bias.data, s.vision_rows(), D::kNumKvHeads, Rope::kNone, nullptr);
    VLB_CHECK_LAUNCH();

    const dim3 grid(static_cast<unsigned>(s.lang_rows()), static_cast<unsigned>(D::kNumKvHeads));
    attention_online_softmax<<<grid, kWarpSize * D::kHeadsPerKvHead, 0, args.stream>>>(ws.q, ws.k, ws.v, ws.o,
                                                                                       s.lang_seq, s.vision_seq);
    VLB_CHECK_LAUNCH();

    project(cublas_, ws.o, in.o_proj_weight.data, args.output.data, s.lang_rows(), D::kHidden, D::kQProjDim);
  }

 private:
  cublasHandle_t cublas_ = nullptr;
};

}  // namespace
}  // namespace vlb::solutions

VLBENCH_REGISTER_SOLUTION(vlb::solutions::TemplateSolution);
