#include "solutions/fused_b200/projection_cublas.hpp"

#include <string>

#include "harness/core/errors.hpp"
#include "harness/core/problem.hpp"
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

// The bias is in and rounded: the staged epilogue kernel rotates `values` in place.
void rotate_in_place(bf16* values, std::int64_t rows, std::int64_t columns, RopeKind rope,
                     const std::int64_t* positions, RopeArithmetic arithmetic, cudaStream_t stream) {
  const ProjectionOutput rotated{nullptr, nullptr, values, rope, positions, 1.0f, arithmetic};
  launch_staged_epilogue(values, ProjectionShape{rows, columns, ModelDims::kHidden, 1}, &rotated, stream);
}

bool on_hopper_from(std::int64_t rows, std::int64_t min_rows, KernelArchitecture architecture) {
  return architecture == KernelArchitecture::kSm90 && rows >= min_rows;
}

}  // namespace

bool q_projection_on_cublas(std::int64_t rows, KernelArchitecture architecture) {
  return on_hopper_from(rows, kCublasQProjectionMinRows, architecture);
}

bool kv_projection_on_cublas(std::int64_t rows, KernelArchitecture architecture) {
  return on_hopper_from(rows, kCublasKvProjectionMinRows, architecture);
}

bool o_projection_on_cublas(std::int64_t rows, KernelArchitecture architecture) {
  return on_hopper_from(rows, kCublasOProjectionMinRows, architecture);
}

// One GEMM shape: row-major out[rows, n] = act[rows, k] · W[n, k]ᵀ is column-major outᵀ[n, rows] = W · actᵀ,
// the form PyTorch's F.linear hands cuBLASLt.
struct CublasLinear::Plan {
  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t weight = nullptr, activations = nullptr, output = nullptr;
  cublasLtMatmulAlgo_t algorithm{};

  Plan(cublasLtHandle_t handle, const PlanKey& key) {
    const auto [rows, n, k, has_bias] = key;
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
};

CublasLinear::CublasLinear() { check_lt(cublasLtCreate(&handle_), "cublasLtCreate"); }

CublasLinear::~CublasLinear() {
  plans_.clear();
  if (handle_ != nullptr) (void)cublasLtDestroy(handle_);
}

const CublasLinear::Plan& CublasLinear::plan_for(const PlanKey& key) const {
  auto found = plans_.find(key);
  if (found == plans_.end()) found = plans_.emplace(key, std::make_unique<Plan>(handle_, key)).first;
  return *found->second;
}

void CublasLinear::launch(const bf16* activations, std::int64_t rows, std::int64_t n, std::int64_t k,
                          const bf16* weight, const bf16* bias, bf16* out, Workspace workspace,
                          cudaStream_t stream) const {
  check_workspace(workspace, workspace_bytes());
  const Plan& plan = plan_for(PlanKey{rows, n, k, bias != nullptr});
  if (bias != nullptr) plan.set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias));
  const float one = 1.0f;
  const float zero = 0.0f;
  check_lt(cublasLtMatmul(handle_, plan.operation, &one, weight, plan.weight, activations, plan.activations, &zero,
                          out, plan.output, out, plan.output, &plan.algorithm, workspace.data, workspace_bytes(),
                          stream),
           "cublasLtMatmul");
}

void CublasProjections::project_q(const bf16* language_hidden, std::int64_t rows, const bf16* q_weight,
                                  const bf16* q_bias, bf16* q_out, Workspace workspace, cudaStream_t stream) const {
  linear_.launch(language_hidden, rows, ModelDims::kQProjDim, ModelDims::kHidden, q_weight, q_bias, q_out,
                 workspace, stream);
}

void CublasProjections::project_kv(const bf16* vision_hidden, std::int64_t rows, const bf16* k_weight,
                                   const bf16* k_bias, const bf16* v_weight, const bf16* v_bias,
                                   const std::int64_t* vision_grid_thw, bf16* k_out, bf16* v_out,
                                   Workspace workspace, cudaStream_t stream, RopeArithmetic rope_arithmetic) const {
  linear_.launch(vision_hidden, rows, ModelDims::kKvProjDim, ModelDims::kHidden, k_weight, k_bias, k_out, workspace,
                 stream);
  linear_.launch(vision_hidden, rows, ModelDims::kKvProjDim, ModelDims::kHidden, v_weight, v_bias, v_out, workspace,
                 stream);
  rotate_in_place(k_out, rows, ModelDims::kKvProjDim, RopeKind::kVision, vision_grid_thw, rope_arithmetic, stream);
}

void CublasProjections::project_o(const bf16* attention, std::int64_t rows, const bf16* o_weight, bf16* output,
                                  Workspace workspace, cudaStream_t stream) const {
  linear_.launch(attention, rows, ModelDims::kHidden, ModelDims::kQProjDim, o_weight, nullptr, output, workspace,
                 stream);
}

}  // namespace vlb::fused_b200
