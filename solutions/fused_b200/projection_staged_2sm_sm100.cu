// sm100a GEMM instantiation: 2 SMs, 256x128x64 tile, cluster 2x1;
// writes fp32 accumulators for the staged bias/RoPE epilogue.
#include "solutions/fused_b200/projection_gemm_sm100_kernel.hpp"

namespace vlb::fused_b200::sm100 {
namespace {
using Instance = ProjectionGemm<float, Sm100Tile::kTwoSm256x128>;
}  // namespace

std::size_t staged_2sm_workspace_bytes(const GemmLaunch& gemm, int sm_count) {
  return Instance::workspace_bytes(gemm, sm_count);
}

void run_staged_2sm(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream) {
  Instance::run(gemm, sm_count, workspace, stream);
}

}  // namespace vlb::fused_b200::sm100
