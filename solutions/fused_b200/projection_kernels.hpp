#pragma once
// Per-architecture entry points behind projection_gemm.cpp's dispatcher (projection_gemm_sm90.cu), and the sm90
// kernel instantiations behind it (projection_{cooperative_128x128,pingpong_128x128,pingpong_64x128,
// plain_128x256}_sm90.cu).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "solutions/fused_b200/projection_gemm.hpp"

namespace vlb::fused_b200::sm90 {

std::size_t projection_workspace_bytes(const ProjectionShape& shape, int sm_count,
                                       const std::optional<ProjectionPlan>& plan, OutputWork work);
// Both groups in one launch when the two weights' address difference is a valid TMA stride, else one launch each.
void launch_projection(const ProjectionLaunch& launch, int sm_count, Workspace workspace, cudaStream_t stream);

// One kernel launch over `groups` outputs in address order, whose weights lie `group_stride` elements apart.
struct GemmLaunch {
  const bf16* activations = nullptr;
  ProjectionShape shape;              // groups = this launch's
  const ProjectionOutput* outputs = nullptr;
  std::int64_t group_stride = 0;
  ProjectionPlan plan;
  OutputWork work = OutputWork::kFusedEpilogue;
  LaunchOrder order = LaunchOrder::kAfterPrevious;
};

std::size_t cooperative_128x128_workspace_bytes(const GemmLaunch& gemm, int sm_count);
void run_cooperative_128x128(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream);
std::size_t pingpong_128x128_workspace_bytes(const GemmLaunch& gemm, int sm_count);
void run_pingpong_128x128(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream);
std::size_t pingpong_64x128_workspace_bytes(const GemmLaunch& gemm, int sm_count);
void run_pingpong_64x128(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream);
std::size_t plain_128x256_workspace_bytes(const GemmLaunch& gemm, int sm_count);
void run_plain_128x256(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream);

}  // namespace vlb::fused_b200::sm90
