// CUTLASS's stock sm90 GEMMs for the stage benchmark (see stock_cutlass_gemm.hpp): plain_gemm_sm90_kernel.hpp's
// builder chain (mainloop and TMA epilogue both from CUTLASS) in three configurations.
// As in solutions/fused_b200/projection_plain_128x256_sm90.cu, which instantiates one of these kernels too: the two
// instantiations must be the same code.
#define CUTLASS_ENABLE_GDC_FOR_SM90 1
#include "bench/fused_b200/stock_cutlass_gemm.hpp"
#include "solutions/fused_b200/plain_gemm_sm90_kernel.hpp"

namespace vlb::fused_b200::bench {
namespace {

template <int kM, int kN, int kClusterM, int kClusterN, class KernelSchedule, class EpilogueSchedule>
void run_stock(const bf16* a, const bf16* w, bf16* out, std::int64_t rows, std::int64_t n, std::int64_t k,
               int swizzle, int sm_count, void* workspace, cudaStream_t stream) {
  sm90::PlainGemm<kM, kN, kClusterM, kClusterN, KernelSchedule, EpilogueSchedule>::run(
      a, w, out, rows, n, k, swizzle, sm_count, workspace, kStockWorkspaceBytes, stream);
}

using cutlass::epilogue::TmaWarpSpecialized;
using cutlass::epilogue::TmaWarpSpecializedCooperative;
using cutlass::gemm::KernelTmaWarpSpecializedCooperative;
using cutlass::gemm::KernelTmaWarpSpecializedPingpong;

}  // namespace

std::vector<StockGemm> stock_gemms() {
  return {
      {"cutlass-coop-128x256-c2x1",
       run_stock<128, 256, 2, 1, KernelTmaWarpSpecializedCooperative, TmaWarpSpecializedCooperative>},
      {"cutlass-coop-128x256-c1x1",
       run_stock<128, 256, 1, 1, KernelTmaWarpSpecializedCooperative, TmaWarpSpecializedCooperative>},
      {"cutlass-pingpong-128x128-c1x1",
       run_stock<128, 128, 1, 1, KernelTmaWarpSpecializedPingpong, TmaWarpSpecialized>},
  };
}

}  // namespace vlb::fused_b200::bench
