#include "solutions/fused_b200/o_projection_cublas.hpp"

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/problem.hpp"

namespace vlb::fused_b200 {

bool o_projection_on_cublas(std::int64_t rows, KernelArchitecture architecture) {
  return architecture == KernelArchitecture::kSm90 && rows >= kCublasOProjectionMinRows &&
         rows < kCublasOProjectionRowLimit;
}

void CublasOProjection::launch(const bf16* attention, std::int64_t rows, const bf16* o_weight, bf16* output,
                               Workspace workspace, cudaStream_t stream) const {
  if (workspace.bytes < workspace_bytes()) {
    throw UsageError("fused_b200: the O projection's cuBLAS workspace holds " + std::to_string(workspace.bytes) +
                     " bytes, fewer than the " + std::to_string(workspace_bytes()) + " it needs");
  }
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

}  // namespace vlb::fused_b200
