#pragma once
// Per-architecture entry points behind projection_gemm.cpp's dispatcher for Blackwell (projection_gemm_sm100.cu),
// and the sm100 GEMM instantiations behind it (projection_{staged,plain}_{1sm,2sm}_sm100.cu).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "solutions/fused_b200/projection_gemm.hpp"
#include "solutions/fused_b200/projection_plan_sm100.hpp"

namespace vlb::fused_b200::sm100 {

std::size_t projection_workspace_bytes(const ProjectionShape& shape, int sm_count, OutputWork work);
// Both groups in one GEMM launch when the two weights' address difference is a valid TMA stride, else one each; then
// the staged epilogue for outputs with bias, RoPE or a scale. launch.plan must be unset (plans name sm90 kernels).
void launch_projection(const ProjectionLaunch& launch, int sm_count, Workspace workspace, cudaStream_t stream);

// One GEMM launch: `groups` products whose weights lie weight_group_stride elements apart, written to `output`
// (fp32 accumulators or bf16, row-major [rows, out_features] per group, output_group_stride elements apart).
struct GemmLaunch {
  const bf16* activations = nullptr;
  const bf16* weights = nullptr;
  void* output = nullptr;
  std::int64_t rows = 0;
  std::int64_t out_features = 0;
  std::int64_t in_features = 0;
  int groups = 1;
  std::int64_t weight_group_stride = 0;
  std::int64_t output_group_stride = 0;
};

// The instantiations (fp32 out: staged; bf16 out: plain), one per file.
std::size_t staged_1sm_workspace_bytes(const GemmLaunch& gemm, int sm_count);
void run_staged_1sm(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream);
std::size_t staged_2sm_workspace_bytes(const GemmLaunch& gemm, int sm_count);
void run_staged_2sm(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream);
std::size_t plain_1sm_workspace_bytes(const GemmLaunch& gemm, int sm_count);
void run_plain_1sm(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream);
std::size_t plain_2sm_workspace_bytes(const GemmLaunch& gemm, int sm_count);
void run_plain_2sm(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream);

}  // namespace vlb::fused_b200::sm100
