// Ping-pong 64x128x64 (each consumer warpgroup owns whole 64-row tiles), no cluster, with the persistent data-parallel
// tile scheduler: the small problems' kernel, twice the tiles of 128x128 and no split-K workspace to reset.
// CUTLASS compiles its kernels' waits for the previous kernel (griddepcontrol) only with this defined, before any of
// its headers: this file's kernel may then be launched LaunchOrder::kOverlapPrevious (launch_order.hpp).
#define CUTLASS_ENABLE_GDC_FOR_SM90 1
#include "solutions/fused_b200/projection_gemm_sm90_kernel.hpp"

namespace vlb::fused_b200::sm90 {
namespace {
using Pingpong64x128 = ProjectionGemm<cutlass::gemm::KernelTmaWarpSpecializedPingpong,
                                      cutlass::gemm::PersistentScheduler, /*kBlockM=*/64>;
}  // namespace

std::size_t pingpong_64x128_workspace_bytes(const GemmLaunch& gemm, int sm_count) {
  return Pingpong64x128::workspace_bytes(gemm, sm_count);
}

void run_pingpong_64x128(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream) {
  Pingpong64x128::run(gemm, sm_count, workspace, stream);
}

}  // namespace vlb::fused_b200::sm90
