// Ping-pong 128x128x64 (the two consumer warpgroups on alternate tiles, so that one's epilogue runs under the
// other's mainloop), no cluster, with the persistent data-parallel tile scheduler: data-parallel plans only.
// CUTLASS compiles its kernels' waits for the previous kernel (griddepcontrol) only with this defined, before any of
// its headers: this file's kernel may then be launched LaunchOrder::kOverlapPrevious (launch_order.hpp).
#define CUTLASS_ENABLE_GDC_FOR_SM90 1
#include "solutions/fused_b200/projection_gemm_sm90_kernel.hpp"

namespace vlb::fused_b200::sm90 {
namespace {
using Pingpong128x128 = ProjectionGemm<cutlass::gemm::KernelTmaWarpSpecializedPingpong,
                                       cutlass::gemm::PersistentScheduler>;
}  // namespace

std::size_t pingpong_128x128_workspace_bytes(const GemmLaunch& gemm, int sm_count) {
  return Pingpong128x128::workspace_bytes(gemm, sm_count);
}

void run_pingpong_128x128(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream) {
  Pingpong128x128::run(gemm, sm_count, workspace, stream);
}

}  // namespace vlb::fused_b200::sm90
