// CUTLASS's stock sm90 GEMMs for the stage benchmark (see stock_cutlass_gemm.hpp): mainloop and TMA epilogue both
// from CUTLASS's builders, persistent data-parallel scheduler.
#include <cute/tensor.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/kernel_hardware_info.h>
#include <cutlass/util/packed_stride.hpp>

#include <string>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"
#include "solutions/fused_b200/bench/stock_cutlass_gemm.hpp"

namespace vlb::fused_b200::bench {
namespace {

template <int kM, int kN, int kClusterM, int kClusterN, class KernelSchedule, class EpilogueSchedule>
struct Stock {
  using Element = cutlass::bfloat16_t;
  using TileShape = cute::Shape<cute::Int<kM>, cute::Int<kN>, cute::_64>;
  using ClusterShape = cute::Shape<cute::Int<kClusterM>, cute::Int<kClusterN>, cute::_1>;
  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, void, cutlass::layout::RowMajor, 8, Element,
      cutlass::layout::RowMajor, 8, EpilogueSchedule>::CollectiveOp;
  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Element, cutlass::layout::RowMajor, 8, Element,
      cutlass::layout::ColumnMajor, 8, float, TileShape, ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
      KernelSchedule>::CollectiveOp;
  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, Mainloop, Epilogue>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;

  static void run(const bf16* a, const bf16* w, bf16* out, std::int64_t rows, std::int64_t n, std::int64_t k,
                  int swizzle, int sm_count, void* workspace, cudaStream_t stream) {
    const int m_ = static_cast<int>(rows);
    const int n_ = static_cast<int>(n);
    const int k_ = static_cast<int>(k);
    typename Gemm::Arguments args;
    args.mode = cutlass::gemm::GemmUniversalMode::kGemm;
    args.problem_shape = {m_, n_, k_, 1};
    args.mainloop.ptr_A = reinterpret_cast<const Element*>(a);
    args.mainloop.dA = cutlass::make_cute_packed_stride(typename Kernel::StrideA{}, {m_, k_, 1});
    args.mainloop.ptr_B = reinterpret_cast<const Element*>(w);
    args.mainloop.dB = cutlass::make_cute_packed_stride(typename Kernel::StrideB{}, {n_, k_, 1});
    args.epilogue.thread.alpha = 1.0f;
    args.epilogue.thread.beta = 0.0f;
    args.epilogue.ptr_C = nullptr;
    args.epilogue.dC = cutlass::make_cute_packed_stride(typename Kernel::StrideC{}, {m_, n_, 1});
    args.epilogue.ptr_D = reinterpret_cast<Element*>(out);
    args.epilogue.dD = cutlass::make_cute_packed_stride(typename Kernel::StrideD{}, {m_, n_, 1});
    int device = 0;
    VLB_CUDA_CHECK(cudaGetDevice(&device));
    args.hw_info = cutlass::KernelHardwareInfo{device, sm_count};
    args.scheduler.max_swizzle_size = swizzle;
    Gemm gemm;
    if (gemm.can_implement(args) != cutlass::Status::kSuccess) {
      throw SystemError("stock CUTLASS GEMM cannot run rows=" + std::to_string(rows));
    }
    if (Gemm::get_workspace_size(args) > kStockWorkspaceBytes) throw SystemError("stock CUTLASS GEMM: workspace");
    if (gemm.initialize(args, workspace, stream) != cutlass::Status::kSuccess ||
        gemm.run(stream) != cutlass::Status::kSuccess) {
      throw SystemError("stock CUTLASS GEMM failed rows=" + std::to_string(rows));
    }
    VLB_CHECK_LAUNCH();
  }
};

using cutlass::epilogue::TmaWarpSpecialized;
using cutlass::epilogue::TmaWarpSpecializedCooperative;
using cutlass::gemm::KernelTmaWarpSpecializedCooperative;
using cutlass::gemm::KernelTmaWarpSpecializedPingpong;

}  // namespace

std::vector<StockGemm> stock_gemms() {
  return {
      {"cutlass-coop-128x256-c2x1",
       Stock<128, 256, 2, 1, KernelTmaWarpSpecializedCooperative, TmaWarpSpecializedCooperative>::run},
      {"cutlass-coop-128x256-c1x1",
       Stock<128, 256, 1, 1, KernelTmaWarpSpecializedCooperative, TmaWarpSpecializedCooperative>::run},
      {"cutlass-pingpong-128x128-c1x1",
       Stock<128, 128, 1, 1, KernelTmaWarpSpecializedPingpong, TmaWarpSpecialized>::run},
  };
}

}  // namespace vlb::fused_b200::bench
