#include "solutions/fused_b200/projection_cublas.hpp"

#include <cstdint>
#include <string>
#include <utility>

#include "harness/core/errors.hpp"
#include "harness/core/problem.hpp"
#include "solutions/fused_b200/projection_groups.hpp"
#include "solutions/fused_b200/projection_kv_pair.hpp"
#include "solutions/fused_b200/projection_staged_epilogue.hpp"

namespace vlb::fused_b200 {
namespace {

void check_workspace(const Workspace& workspace, std::size_t needed) {
  if (workspace.bytes < needed) {
    throw UsageError("fused_b200: a cuBLAS projection's workspace holds " + std::to_string(workspace.bytes) +
                     " bytes, fewer than the " + std::to_string(needed) + " it needs");
  }
}

void check_lt(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw SystemError(std::string("fused_b200: ") + call + " failed: " + cublasGetStatusString(status));
  }
}

// The staged epilogue kernel rotates `values` in place, adding `bias` (nullptr: the GEMM added it) first in fp32.
void rotate_in_place(bf16* values, const bf16* bias, std::int64_t rows, std::int64_t columns, RopeKind rope,
                     const std::int64_t* positions, RopeArithmetic arithmetic, cudaStream_t stream,
                     LaunchOrder order) {
  const ProjectionOutput rotated{nullptr, bias, values, rope, positions, 1.0f, arithmetic};
  launch_staged_epilogue(values, ProjectionShape{rows, columns, ModelDims::kHidden, 1}, &rotated, stream, order);
}

bool on_hopper_from(std::int64_t rows, std::int64_t min_rows, KernelArchitecture architecture) {
  return architecture == KernelArchitecture::kSm90 && rows >= min_rows;
}

void set_layout(cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attribute, const void* value,
                std::size_t bytes) {
  check_lt(cublasLtMatrixLayoutSetAttribute(layout, attribute, value, bytes), "cublasLtMatrixLayoutSetAttribute");
}

}  // namespace

bool kv_batch_starts_with_v(const bf16* k_weight, const bf16* v_weight) {
  return reinterpret_cast<std::uintptr_t>(v_weight) < reinterpret_cast<std::uintptr_t>(k_weight);
}

std::optional<BatchedPairStrides> batched_pair_strides(const bf16* const (&weights)[2], const bf16* const (&biases)[2],
                                                       const bf16* const (&outs)[2]) {
  const auto weight = forward_stride(weights[0], weights[1], kMaxPairStrideBytes);
  const auto bias = forward_stride(biases[0], biases[1], kMaxBiasStrideBytes);
  const auto out = forward_stride(outs[0], outs[1], kMaxPairStrideBytes);
  if (!weight || !bias || !out) return std::nullopt;
  return BatchedPairStrides{*weight, *bias, *out};
}

std::optional<BatchedPairStrides> batched_pair_strides(const bf16* const (&weights)[2], const bf16* const (&outs)[2]) {
  const auto weight = forward_stride(weights[0], weights[1], kMaxPairStrideBytes);
  const auto out = forward_stride(outs[0], outs[1], kMaxPairStrideBytes);
  if (!weight || !out) return std::nullopt;
  return BatchedPairStrides{*weight, 0, *out};
}

std::optional<BatchedPairStrides> cutlass_pair_strides(const bf16* const (&weights)[2], const bf16* const (&biases)[2],
                                                       const bf16* const (&outs)[2]) {
  std::optional<BatchedPairStrides> strides = batched_pair_strides(weights, outs);
  if (!strides || biases[0] == nullptr || biases[1] == nullptr) return std::nullopt;
  const std::optional<std::int64_t> bias = element_stride(biases[0], biases[1]);
  if (!bias) return std::nullopt;
  strides->bias = *bias;
  return strides;
}

bool q_projection_on_cublas(std::int64_t rows, KernelArchitecture architecture) {
  return on_hopper_from(rows, kCublasQProjectionMinRows, architecture);
}

bool kv_projection_on_cublas(std::int64_t rows, KernelArchitecture architecture) {
  return on_hopper_from(rows, kCublasKvProjectionMinRows, architecture);
}

bool o_projection_on_cublas(std::int64_t rows, int sm_count, KernelArchitecture architecture) {
  const ProjectionShape o_shape{rows, ModelDims::kHidden, ModelDims::kQProjDim, 1};
  return on_hopper_from(rows, kCublasOProjectionMinRows, architecture) &&
         !plain_kernel_fills_one_wave(o_shape, sm_count);
}

// One GEMM shape: row-major out[rows, n] = act[rows, k] · W[n, k]ᵀ is column-major outᵀ[n, rows] = W · actᵀ,
// the form PyTorch's F.linear hands cuBLASLt.
struct CublasLinear::Plan {
  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t weight = nullptr, activations = nullptr, output = nullptr;
  cublasLtMatmulAlgo_t algorithm{};

  bool available = true;  // false: cuBLASLt has no batched GEMM for this pair (single GEMMs always have one)
  bool has_bias = false;

  // `pair`: the strides of the first batched call of this shape (the heuristic sees real ones; later calls set
  // theirs, set_pair_strides).
  Plan(cublasLtHandle_t handle, const PlanKey& key, const BatchedPairStrides* pair) {
    const auto [rows, n, k, with_bias, batched] = key;
    has_bias = with_bias;
    check_lt(cublasLtMatmulDescCreate(&operation, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    const cublasOperation_t transpose = CUBLAS_OP_T;
    const cublasOperation_t keep = CUBLAS_OP_N;
    set(CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof(transpose));
    set(CUBLASLT_MATMUL_DESC_TRANSB, &keep, sizeof(keep));
    if (has_bias) {
      const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
      const cudaDataType_t bias_type = CUDA_R_16BF;
      set(CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue));
      set(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof(bias_type));
    }
    const auto m = static_cast<std::uint64_t>(rows);
    const auto n_out = static_cast<std::uint64_t>(n);
    const auto k_in = static_cast<std::uint64_t>(k);
    check_lt(cublasLtMatrixLayoutCreate(&weight, CUDA_R_16BF, k_in, n_out, k), "cublasLtMatrixLayoutCreate");
    check_lt(cublasLtMatrixLayoutCreate(&activations, CUDA_R_16BF, k_in, m, k), "cublasLtMatrixLayoutCreate");
    check_lt(cublasLtMatrixLayoutCreate(&output, CUDA_R_16BF, n_out, m, n), "cublasLtMatrixLayoutCreate");
    if (batched) {
      const std::int32_t count = 2;
      for (cublasLtMatrixLayout_t layout : {weight, activations, output}) {
        set_layout(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count));
      }
      set_pair_strides(*pair);  // the activations keep stride 0: both batches read them
    }

    cublasLtMatmulPreference_t preference = nullptr;
    check_lt(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
    const std::uint64_t workspace = kCublasWorkspaceBytes;
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    const cublasStatus_t status = [&] {
      const cublasStatus_t set_status = cublasLtMatmulPreferenceSetAttribute(
          preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof(workspace));
      if (set_status != CUBLAS_STATUS_SUCCESS) return set_status;
      return cublasLtMatmulAlgoGetHeuristic(handle, operation, weight, activations, output, output, preference, 1,
                                            &result, &found);
    }();
    (void)cublasLtMatmulPreferenceDestroy(preference);
    if (batched && (status != CUBLAS_STATUS_SUCCESS || found == 0)) {
      available = false;
      return;
    }
    check_lt(status, "cublasLtMatmulAlgoGetHeuristic");
    if (found == 0) {
      throw SystemError("fused_b200: cuBLASLt has no GEMM for " + std::to_string(rows) + "x" + std::to_string(n) +
                        "x" + std::to_string(k) + (has_bias ? " with bias" : ""));
    }
    algorithm = result.algo;
  }
  ~Plan() {
    if (output != nullptr) (void)cublasLtMatrixLayoutDestroy(output);
    if (activations != nullptr) (void)cublasLtMatrixLayoutDestroy(activations);
    if (weight != nullptr) (void)cublasLtMatrixLayoutDestroy(weight);
    if (operation != nullptr) (void)cublasLtMatmulDescDestroy(operation);
  }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  void set(cublasLtMatmulDescAttributes_t attribute, const void* value, std::size_t bytes) const {
    check_lt(cublasLtMatmulDescSetAttribute(operation, attribute, value, bytes), "cublasLtMatmulDescSetAttribute");
  }
  void set_pair_strides(const BatchedPairStrides& strides) const {
    set_layout(weight, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strides.weight, sizeof(strides.weight));
    set_layout(output, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strides.out, sizeof(strides.out));
    if (has_bias) set(CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &strides.bias, sizeof(strides.bias));
  }
};

CublasLinear::CublasLinear() { check_lt(cublasLtCreate(&handle_), "cublasLtCreate"); }

CublasLinear::~CublasLinear() {
  plans_.clear();
  if (handle_ != nullptr) (void)cublasLtDestroy(handle_);
}

const CublasLinear::Plan& CublasLinear::plan_for(const PlanKey& key, const BatchedPairStrides* pair) const {
  auto found = plans_.find(key);
  if (found == plans_.end()) found = plans_.emplace(key, std::make_unique<Plan>(handle_, key, pair)).first;
  return *found->second;
}

cublasStatus_t CublasLinear::matmul(const Plan& plan, const bf16* activations, const bf16* weight, const bf16* bias,
                                    bf16* out, Workspace workspace, cudaStream_t stream) const {
  if (bias != nullptr) plan.set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias));
  const float one = 1.0f;
  const float zero = 0.0f;
  return cublasLtMatmul(handle_, plan.operation, &one, weight, plan.weight, activations, plan.activations, &zero, out,
                        plan.output, out, plan.output, &plan.algorithm, workspace.data, workspace_bytes(), stream);
}

void CublasLinear::launch(const bf16* activations, std::int64_t rows, std::int64_t n, std::int64_t k,
                          const bf16* weight, const bf16* bias, bf16* out, Workspace workspace,
                          cudaStream_t stream) const {
  check_workspace(workspace, workspace_bytes());
  const Plan& plan = plan_for(PlanKey{rows, n, k, bias != nullptr, false}, nullptr);
  check_lt(matmul(plan, activations, weight, bias, out, workspace, stream), "cublasLtMatmul");
}

bool CublasLinear::launch_pair(const bf16* activations, std::int64_t rows, std::int64_t n, std::int64_t k,
                               const bf16* weight, const bf16* bias, bf16* out, const BatchedPairStrides& strides,
                               Workspace workspace, cudaStream_t stream) const {
  check_workspace(workspace, workspace_bytes());
  const Plan& plan = plan_for(PlanKey{rows, n, k, bias != nullptr, true}, &strides);
  if (!plan.available) return false;
  plan.set_pair_strides(strides);
  // cuBLASLt checks the first call's algorithm against these strides before it enqueues anything, and one it refuses
  // leaves the pair to two GEMMs. It does not refuse every stride it mishandles: batched_pair_strides keeps those out.
  return matmul(plan, activations, weight, bias, out, workspace, stream) == CUBLAS_STATUS_SUCCESS;
}

void CublasProjections::project_q(const bf16* language_hidden, std::int64_t rows, const bf16* q_weight,
                                  const bf16* q_bias, bf16* q_out, Workspace workspace, cudaStream_t stream) const {
  linear_.launch(language_hidden, rows, ModelDims::kQProjDim, ModelDims::kHidden, q_weight, q_bias, q_out,
                 workspace, stream);
}

KvGemms CublasProjections::project_kv(const bf16* vision_hidden, std::int64_t rows, const bf16* k_weight,
                                      const bf16* k_bias, const bf16* v_weight, const bf16* v_bias,
                                      const std::int64_t* vision_grid_thw, bf16* k_out, bf16* v_out,
                                      Workspace workspace, cudaStream_t stream, RopeArithmetic rope_arithmetic,
                                      LaunchOrder later, KvBiasPlacement placement) const {
  // One launch fills the GPU where each GEMM alone is a thin wave (1568 rows: 52 tiles each on 132 SMs).
  struct Batch {
    const bf16* weight;
    const bf16* bias;
    bf16* out;
  };
  Batch first{k_weight, k_bias, k_out}, second{v_weight, v_bias, v_out};
  if (kv_batch_starts_with_v(k_weight, v_weight)) std::swap(first, second);
  KvGemms ran = KvGemms::kBatched;
  std::optional<BatchedPairStrides> strides;
  if (placement != KvBiasPlacement::kAfterGemm) {
    strides = batched_pair_strides({first.weight, second.weight}, {first.bias, second.bias}, {first.out, second.out});
    // CUTLASS's pair takes the biases in either order: PyTorch's allocator order keeps them in its epilogue too.
    const auto either_order =
        strides ? std::nullopt
                : cutlass_pair_strides({first.weight, second.weight}, {first.bias, second.bias},
                                       {first.out, second.out});
    if (either_order && kv_pair_runs_on_cutlass(KvPairLaunch{vision_hidden, rows, first.weight, first.bias, first.out,
                                                             either_order->weight, either_order->bias,
                                                             either_order->out})) {
      strides = either_order;
    }
  }
  if (!strides && placement != KvBiasPlacement::kGemmOnly) {
    // The biases after the GEMM: where they do not step as the weights do (v24 replaced v15's copy of them side by
    // side, a launch and a gap), or where asked to.
    strides = batched_pair_strides({first.weight, second.weight}, {first.out, second.out});
    ran = KvGemms::kBatchedBiasesAfter;
  }
  const bf16* gemm_bias = ran == KvGemms::kBatched ? first.bias : nullptr;
  const bool batched = strides && launch_kv_pair(vision_hidden, rows, first.weight, gemm_bias, first.out, *strides,
                                                 workspace, stream, later);
  if (!batched) {
    linear_.launch(vision_hidden, rows, ModelDims::kKvProjDim, ModelDims::kHidden, k_weight, k_bias, k_out,
                   workspace, stream);
    linear_.launch(vision_hidden, rows, ModelDims::kKvProjDim, ModelDims::kHidden, v_weight, v_bias, v_out,
                   workspace, stream);
    ran = KvGemms::kTwoGemms;
  }
  rotate_in_place(k_out, ran == KvGemms::kBatchedBiasesAfter ? k_bias : nullptr, rows, ModelDims::kKvProjDim,
                  RopeKind::kVision, vision_grid_thw, rope_arithmetic, stream, later);
  return ran;
}

bool CublasProjections::kv_pair_runs_on_cutlass(const KvPairLaunch& pair) const {
#if defined(VLBENCH_HAS_SM90)
  return kv_pair_on_cutlass(pair.rows, sm_count_) && kv_pair_aligned(pair) &&
         current_kernel_architecture() == KernelArchitecture::kSm90;
#else
  (void)pair;
  return false;
#endif
}

bool CublasProjections::launch_kv_pair(const bf16* vision_hidden, std::int64_t rows, const bf16* weight,
                                       const bf16* bias, bf16* out, const BatchedPairStrides& strides,
                                       Workspace workspace, cudaStream_t stream, LaunchOrder order) const {
#if defined(VLBENCH_HAS_SM90)
  const KvPairLaunch pair{vision_hidden, rows, weight, bias, out, strides.weight, strides.bias, strides.out};
  if (kv_pair_runs_on_cutlass(pair)) {
    sm90::run_kv_pair_128x208(pair, sm_count_, workspace, stream, order);
    return true;
  }
#endif
  (void)order;
  // cuBLAS's batched bias steps forward only, and not as far as CUTLASS's may (cutlass_pair_strides).
  const std::int64_t bias_bytes = strides.bias * static_cast<std::int64_t>(sizeof(bf16));
  if (bias != nullptr && (bias_bytes <= 0 || bias_bytes >= kMaxBiasStrideBytes)) return false;
  return linear_.launch_pair(vision_hidden, rows, ModelDims::kKvProjDim, ModelDims::kHidden, weight, bias, out,
                             strides, workspace, stream);
}

bool kv_pair_aligned(const KvPairLaunch& launch) {
  const auto aligned = [](const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; };
  const auto whole_steps = [](std::int64_t stride) {
    return stride * static_cast<std::int64_t>(sizeof(bf16)) % 16 == 0;
  };
  const auto steps = [&](std::int64_t stride) { return stride > 0 && whole_steps(stride); };
  // The biases are read with plain loads: any multiple of 16 bytes apart, in either order.
  const bool bias_ok = launch.bias == nullptr || (aligned(launch.bias) && whole_steps(launch.bias_stride));
  return aligned(launch.activations) && aligned(launch.weight) && aligned(launch.out) &&
         steps(launch.weight_stride) && steps(launch.out_stride) && bias_ok;
}

void CublasProjections::project_o(const bf16* attention, std::int64_t rows, const bf16* o_weight, bf16* output,
                                  Workspace workspace, cudaStream_t stream) const {
  linear_.launch(attention, rows, ModelDims::kHidden, ModelDims::kQProjDim, o_weight, nullptr, output, workspace,
                 stream);
}

}  // namespace vlb::fused_b200
