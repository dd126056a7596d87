// The ping-pong instantiation (the two consumer warpgroups on alternate tiles, so that one's epilogue runs under the
// other's mainloop) with the persistent data-parallel tile scheduler: data-parallel plans only.
#include "solutions/fused_b200/projection_gemm_sm90_kernel.hpp"

namespace vlb::fused_b200::sm90 {
namespace {
using Pingpong = ProjectionGemm<cutlass::gemm::KernelTmaWarpSpecializedPingpong, cutlass::gemm::PersistentScheduler>;
}  // namespace

std::size_t pingpong_workspace_bytes(const GemmLaunch& gemm, int sm_count) {
  return Pingpong::workspace_bytes(gemm, sm_count);
}

void run_pingpong(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream) {
  Pingpong::run(gemm, sm_count, workspace, stream);
}

}  // namespace vlb::fused_b200::sm90
