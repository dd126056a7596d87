// Plain cooperative 128x256x64 in a 2x1 cluster (the weight tile multicast to both CTAs), CUTLASS's TMA epilogue:
// the O projection's kernel where its wide tiles win (projection_plan.hpp).
// CUTLASS compiles its kernels' waits for the previous kernel (griddepcontrol) only with this defined, before any of
// its headers: this file's kernel may then be launched LaunchOrder::kOverlapPrevious (launch_order.hpp).
#define CUTLASS_ENABLE_GDC_FOR_SM90 1
#include "solutions/fused_b200/plain_gemm_sm90_kernel.hpp"
#include "solutions/fused_b200/projection_kernels.hpp"

namespace vlb::fused_b200::sm90 {
namespace {
using Plain128x256 = PlainGemm<128, 256, 2, 1, cutlass::gemm::KernelTmaWarpSpecializedCooperative,
                               cutlass::epilogue::TmaWarpSpecializedCooperative>;
}  // namespace

std::size_t plain_128x256_workspace_bytes(const GemmLaunch& gemm, int sm_count) {
  return Plain128x256::workspace_bytes(gemm.shape.rows, gemm.shape.out_features, gemm.shape.in_features, sm_count);
}

void run_plain_128x256(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream) {
  Plain128x256::run(gemm.activations, gemm.outputs[0].weight, gemm.outputs[0].output, gemm.shape.rows,
                    gemm.shape.out_features, gemm.shape.in_features, gemm.plan.swizzle, sm_count, workspace.data,
                    workspace.bytes, stream, gemm.order);
}

}  // namespace vlb::fused_b200::sm90
