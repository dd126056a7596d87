// The K/V pair on CUTLASS's sm90 builders (projection_kv_pair.hpp): cooperative 128 x 208 x 64 tiles, no cluster
// (clusters of 2 along the features were 4-6 us slower at 1568 rows, of 4 a second wave: NOTES.md, v25).
// CUTLASS compiles its kernels' waits for the previous kernel (griddepcontrol) only with this defined, before any of
// its headers: the pair may then be launched LaunchOrder::kOverlapPrevious (launch_order.hpp).
#define CUTLASS_ENABLE_GDC_FOR_SM90 1
// CuTe's GMMA selector takes N = 208 only with the extended shapes; without them a 208-token tile is 13 wgmma
// instructions of N = 16, each reading its A slice from shared memory again: twice cuBLAS's time (NOTES.md, v25).
#define CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED 1
#include <cute/tensor.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/kernel_hardware_info.h>

#include <string>
#include <type_traits>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/problem.hpp"
#include "solutions/fused_b200/projection_kv_pair.hpp"

namespace vlb::fused_b200::sm90 {
namespace {

constexpr int kHidden = static_cast<int>(ModelDims::kHidden);
constexpr int kKvOut = static_cast<int>(ModelDims::kKvProjDim);

// With kBias each feature's bias is added in fp32 before the one rounding to bf16 (the reference's rounding point).
template <bool kBias>
struct KvPairGemm {
  using Element = cutlass::bfloat16_t;
  using Fusion = std::conditional_t<kBias, cutlass::epilogue::fusion::LinCombPerRowBias<Element, float, Element>,
                                    cutlass::epilogue::fusion::LinearCombination<Element, float, void, float>>;
  // The activations are the same for K and V: a batch stride of 0 known at compile time, so that CuTe leaves that
  // mode out of the TMA descriptor.
  using ActivationStride = cute::Stride<std::int64_t, cute::_1, cute::_0>;
  using TileShape = cute::Shape<cute::Int<kKvPairFeatureTile>, cute::Int<kKvPairTokenTile>, cute::_64>;
  using ClusterShape = cute::Shape<cute::_1, cute::_1, cute::_1>;
  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, void, cutlass::layout::ColumnMajor, 8, Element,
      cutlass::layout::ColumnMajor, 8, cutlass::epilogue::TmaWarpSpecializedCooperative, Fusion>::CollectiveOp;
  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Element, cutlass::layout::RowMajor, 8, Element,
      ActivationStride, 8, float, TileShape, ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
      cutlass::gemm::KernelTmaWarpSpecializedCooperative>::CollectiveOp;
  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, Mainloop, Epilogue>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;

  static typename Gemm::Arguments arguments(const KvPairLaunch& launch, int sm_count) {
    using cute::_1;
    typename Gemm::Arguments args;
    args.mode = cutlass::gemm::GemmUniversalMode::kBatched;
    args.problem_shape = {kKvOut, static_cast<int>(launch.rows), kHidden, 2};
    args.mainloop.ptr_A = reinterpret_cast<const Element*>(launch.weight);
    args.mainloop.dA = typename Kernel::StrideA{std::int64_t(kHidden), _1{}, launch.weight_stride};
    args.mainloop.ptr_B = reinterpret_cast<const Element*>(launch.activations);
    args.mainloop.dB = typename Kernel::StrideB{std::int64_t(kHidden), _1{}, cute::_0{}};
    args.epilogue.thread.alpha = 1.0f;
    args.epilogue.thread.beta = 0.0f;
    args.epilogue.ptr_C = nullptr;
    args.epilogue.dC = typename Kernel::StrideC{_1{}, std::int64_t(kKvOut), launch.out_stride};
    args.epilogue.ptr_D = reinterpret_cast<Element*>(launch.out);
    args.epilogue.dD = typename Kernel::StrideD{_1{}, std::int64_t(kKvOut), launch.out_stride};
    if constexpr (kBias) {
      args.epilogue.thread.bias_ptr = reinterpret_cast<const Element*>(launch.bias);
      args.epilogue.thread.dBias = {_1{}, cute::_0{}, launch.bias_stride};
    }
    int device = 0;
    VLB_CUDA_CHECK(cudaGetDevice(&device));
    args.hw_info = cutlass::KernelHardwareInfo{device, sm_count};
    return args;
  }

  static void run(const KvPairLaunch& launch, int sm_count, Workspace workspace, cudaStream_t stream,
                  LaunchOrder order) {
    const auto args = arguments(launch, sm_count);
    const auto fail = [&](const char* step, cutlass::Status status) {
      throw SystemError(std::string("K/V pair on CUTLASS: ") + step + " failed (" + cutlassGetStatusString(status) +
                        ") for " + std::to_string(launch.rows) + " vision rows");
    };
    Gemm gemm;
    if (const auto status = gemm.can_implement(args); status != cutlass::Status::kSuccess) {
      fail("can_implement", status);
    }
    const std::size_t needed = Gemm::get_workspace_size(args);
    if (needed > workspace.bytes) {
      throw UsageError("K/V pair on CUTLASS: workspace of " + std::to_string(workspace.bytes) +
                       " bytes is smaller than " + std::to_string(needed));
    }
    if (const auto status = gemm.initialize(args, workspace.data, stream); status != cutlass::Status::kSuccess) {
      fail("initialize", status);
    }
    const bool overlap_previous = order == LaunchOrder::kOverlapPrevious;
    if (const auto status = gemm.run(stream, nullptr, overlap_previous); status != cutlass::Status::kSuccess) {
      fail("run", status);
    }
    VLB_CHECK_LAUNCH();
  }
};

}  // namespace

void run_kv_pair_128x208(const KvPairLaunch& launch, int sm_count, Workspace workspace, cudaStream_t stream,
                         LaunchOrder order) {
  if (launch.bias != nullptr) {
    KvPairGemm<true>::run(launch, sm_count, workspace, stream, order);
  } else {
    KvPairGemm<false>::run(launch, sm_count, workspace, stream, order);
  }
}

}  // namespace vlb::fused_b200::sm90
