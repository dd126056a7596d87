#pragma once
// The sm100a projection GEMM as a CUTLASS chain from the sm100 builders (included by the *_sm100.cu instantiation
// files only): TMA loads, tcgen05.mma with fp32 accumulators in tensor memory, CUTLASS's TMA epilogue (D = acc,
// no fusion), the cluster-launch-control persistent scheduler. The tile (1 SM 128x128x64 or 2 SMs 256x128x64 in a
// 2x1 cluster) and the type written (fp32 accumulators for the staged epilogue, or bf16 for plain outputs) are
// parameters.
//
// The launch's groups (K and V) are the GEMM's L mode, as on sm90: the activations' L stride is a static 0 and the
// weights' L stride is the distance between the two weights, so each is read where it is.
#include <cstdint>
#include <string>
#include <type_traits>

#include <cute/tensor.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/dispatch_policy.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/kernel_hardware_info.h>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"
#include "solutions/fused_b200/projection_kernels_sm100.hpp"

namespace vlb::fused_b200::sm100 {

template <class ElementOut, Sm100Tile kTile>
struct ProjectionGemm {
  using ElementInput = cutlass::bfloat16_t;
  using StrideActivations = cute::Stride<std::int64_t, cute::Int<1>, cute::Int<0>>;  // shared by every group
  using StrideWeights = cute::Stride<std::int64_t, cute::Int<1>, std::int64_t>;      // K-major; L = group
  using StrideOut = cute::Stride<std::int64_t, cute::Int<1>, std::int64_t>;          // row-major; L = group
  static constexpr int kInputAlignment = 8;                                          // bf16 per 16 bytes (TMA)
  static constexpr int kOutAlignment = 16 / static_cast<int>(sizeof(ElementOut));

  static constexpr bool kTwoSm = kTile == Sm100Tile::kTwoSm256x128;
  using MmaTileShape = cute::Shape<cute::Int<kTwoSm ? 256 : 128>, cute::_128, cute::_64>;
  using ClusterShape = cute::Shape<cute::Int<kTwoSm ? 2 : 1>, cute::_1, cute::_1>;
  using MainloopSchedule = std::conditional_t<kTwoSm, cutlass::gemm::KernelTmaWarpSpecialized2SmSm100,
                                              cutlass::gemm::KernelTmaWarpSpecialized1SmSm100>;
  using EpilogueSchedule = std::conditional_t<kTwoSm, cutlass::epilogue::TmaWarpSpecialized2Sm,
                                              cutlass::epilogue::TmaWarpSpecialized1Sm>;

  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm100, cutlass::arch::OpClassTensorOp, MmaTileShape, ClusterShape,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, void, StrideOut, kOutAlignment, ElementOut,
      StrideOut, kOutAlignment, EpilogueSchedule>::CollectiveOp;
  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm100, cutlass::arch::OpClassTensorOp, ElementInput, StrideActivations, kInputAlignment,
      ElementInput, StrideWeights, kInputAlignment, float, MmaTileShape, ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
      MainloopSchedule>::CollectiveOp;
  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, Mainloop, Epilogue>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;
  using Arguments = typename Gemm::Arguments;

  static Arguments arguments(const GemmLaunch& gemm, int sm_count) {
    Arguments arguments;
    arguments.mode =
        gemm.groups > 1 ? cutlass::gemm::GemmUniversalMode::kBatched : cutlass::gemm::GemmUniversalMode::kGemm;
    arguments.problem_shape = {static_cast<int>(gemm.rows), static_cast<int>(gemm.out_features),
                               static_cast<int>(gemm.in_features), gemm.groups};
    arguments.mainloop.ptr_A = reinterpret_cast<const ElementInput*>(gemm.activations);
    arguments.mainloop.dA = StrideActivations{gemm.in_features, cute::Int<1>{}, cute::Int<0>{}};
    arguments.mainloop.ptr_B = reinterpret_cast<const ElementInput*>(gemm.weights);
    arguments.mainloop.dB = StrideWeights{gemm.in_features, cute::Int<1>{}, gemm.weight_group_stride};
    arguments.epilogue.thread.alpha = 1.0f;
    arguments.epilogue.thread.beta = 0.0f;
    arguments.epilogue.ptr_C = nullptr;
    arguments.epilogue.dC = StrideOut{gemm.out_features, cute::Int<1>{}, gemm.output_group_stride};
    arguments.epilogue.ptr_D = static_cast<ElementOut*>(gemm.output);
    arguments.epilogue.dD = StrideOut{gemm.out_features, cute::Int<1>{}, gemm.output_group_stride};
    int device = 0;
    VLB_CUDA_CHECK(cudaGetDevice(&device));
    arguments.hw_info = cutlass::KernelHardwareInfo{device, sm_count};
    return arguments;
  }

  static void check_status(cutlass::Status status, const char* step, const GemmLaunch& gemm) {
    if (status != cutlass::Status::kSuccess) {
      throw SystemError(std::string("fused_b200 sm100 projection (") + std::string(sm100_tile_name(kTile)) + "): " +
                        step + " failed (" + cutlassGetStatusString(status) + ") for rows=" +
                        std::to_string(gemm.rows) + " N=" + std::to_string(gemm.out_features) +
                        " K=" + std::to_string(gemm.in_features) + " groups=" + std::to_string(gemm.groups));
    }
  }

  static std::size_t workspace_bytes(const GemmLaunch& gemm, int sm_count) {
    return Gemm::get_workspace_size(arguments(gemm, sm_count));
  }

  static void run(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream) {
    const Arguments args = arguments(gemm, sm_count);
    Gemm op;
    check_status(op.can_implement(args), "can_implement", gemm);
    const std::size_t needed = Gemm::get_workspace_size(args);
    if (needed > workspace.bytes) {
      throw UsageError("fused_b200 sm100 projection: workspace of " + std::to_string(workspace.bytes) +
                       " bytes is smaller than the " + std::to_string(needed) +
                       " bytes needed; size it with projection_workspace_bytes()");
    }
    check_status(op.initialize(args, workspace.data, stream), "initialize", gemm);
    check_status(op.run(stream), "run", gemm);
    VLB_CHECK_LAUNCH();
  }
};

}  // namespace vlb::fused_b200::sm100
