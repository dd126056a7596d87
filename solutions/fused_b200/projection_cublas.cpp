#include "solutions/fused_b200/projection_cublas.hpp"

#include <string>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/problem.hpp"
#include "solutions/fused_b200/projection_staged_epilogue.hpp"

namespace vlb::fused_b200 {
namespace {

void check_workspace(const Workspace& workspace, std::size_t needed, const char* what) {
  if (workspace.bytes < needed) {
    throw UsageError(std::string("fused_b200: the ") + what + " projection's cuBLAS workspace holds " +
                     std::to_string(workspace.bytes) + " bytes, fewer than the " + std::to_string(needed) +
                     " it needs");
  }
}

void check_lt(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw SystemError(std::string("fused_b200: ") + call + " failed: " + cublasGetStatusString(status));
  }
}

}  // namespace

bool o_projection_on_cublas(std::int64_t rows, KernelArchitecture architecture) {
  return architecture == KernelArchitecture::kSm90 && rows >= kCublasOProjectionMinRows &&
         rows < kCublasOProjectionRowLimit;
}

bool q_projection_on_cublas(std::int64_t rows, KernelArchitecture architecture) {
  return architecture == KernelArchitecture::kSm90 && rows >= kCublasQProjectionMinRows &&
         rows <= kCublasQProjectionMaxRows;
}

void CublasOProjection::launch(const bf16* attention, std::int64_t rows, const bf16* o_weight, bf16* output,
                               Workspace workspace, cudaStream_t stream) const {
  check_workspace(workspace, workspace_bytes(), "O");
  handle_.bind(stream, workspace.data);
  // Row-major out[rows, N] = act[rows, K] · W[N, K]ᵀ is column-major outᵀ[N, rows] = W · actᵀ.
  constexpr int n = static_cast<int>(ModelDims::kHidden);
  constexpr int k = static_cast<int>(ModelDims::kQProjDim);
  const float one = 1.0f;
  const float zero = 0.0f;
  VLB_CUBLAS_CHECK(cublasGemmEx(handle_.get(), CUBLAS_OP_T, CUBLAS_OP_N, n, static_cast<int>(rows), k, &one, o_weight,
                                CUDA_R_16BF, k, attention, CUDA_R_16BF, k, &zero, output, CUDA_R_16BF, n,
                                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

// One row count's cuBLASLt GEMM: column-major qᵀ[N, rows] = Wq[N, K] · langᵀ + bq, as PyTorch's F.linear asks for it.
struct CublasQProjection::Plan {
  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t weight = nullptr, activations = nullptr, output = nullptr;
  cublasLtMatmulAlgo_t algorithm{};

  Plan(cublasLtHandle_t handle, std::int64_t rows) {
    constexpr std::uint64_t n = ModelDims::kQProjDim;
    constexpr std::uint64_t k = ModelDims::kHidden;
    check_lt(cublasLtMatmulDescCreate(&operation, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    const cublasOperation_t transpose = CUBLAS_OP_T;
    const cublasOperation_t keep = CUBLAS_OP_N;
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    const cudaDataType_t bias_type = CUDA_R_16BF;
    set(CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof(transpose));
    set(CUBLASLT_MATMUL_DESC_TRANSB, &keep, sizeof(keep));
    set(CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue));
    set(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof(bias_type));
    const auto m = static_cast<std::uint64_t>(rows);
    check_lt(cublasLtMatrixLayoutCreate(&weight, CUDA_R_16BF, k, n, k), "cublasLtMatrixLayoutCreate");
    check_lt(cublasLtMatrixLayoutCreate(&activations, CUDA_R_16BF, k, m, k), "cublasLtMatrixLayoutCreate");
    check_lt(cublasLtMatrixLayoutCreate(&output, CUDA_R_16BF, n, m, n), "cublasLtMatrixLayoutCreate");

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
      throw SystemError("fused_b200: cuBLASLt has no bias GEMM for Q at " + std::to_string(rows) + " rows");
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

CublasQProjection::CublasQProjection() { check_lt(cublasLtCreate(&handle_), "cublasLtCreate"); }

CublasQProjection::~CublasQProjection() {
  plans_.clear();
  if (handle_ != nullptr) (void)cublasLtDestroy(handle_);
}

const CublasQProjection::Plan& CublasQProjection::plan_for(std::int64_t rows) const {
  auto found = plans_.find(rows);
  if (found == plans_.end()) found = plans_.emplace(rows, std::make_unique<Plan>(handle_, rows)).first;
  return *found->second;
}

void CublasQProjection::launch(const bf16* language_hidden, std::int64_t rows, const bf16* q_weight,
                               const bf16* q_bias, const std::int64_t* language_position_ids, bf16* q_out,
                               Workspace workspace, cudaStream_t stream, RopeArithmetic rope_arithmetic) const {
  check_workspace(workspace, workspace_bytes(), "Q");
  const Plan& plan = plan_for(rows);
  plan.set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &q_bias, sizeof(q_bias));
  const float one = 1.0f;
  const float zero = 0.0f;
  check_lt(cublasLtMatmul(handle_, plan.operation, &one, q_weight, plan.weight, language_hidden, plan.activations,
                          &zero, q_out, plan.output, q_out, plan.output, &plan.algorithm, workspace.data,
                          workspace_bytes(), stream),
           "cublasLtMatmul");
  // The bias is in: the rotation alone, in place.
  const ProjectionOutput rotated{nullptr, nullptr, q_out, RopeKind::kLanguage, language_position_ids, 1.0f,
                                 rope_arithmetic};
  launch_staged_epilogue(q_out, ProjectionShape{rows, ModelDims::kQProjDim, ModelDims::kHidden, 1}, &rotated,
                         stream);
}

}  // namespace vlb::fused_b200
