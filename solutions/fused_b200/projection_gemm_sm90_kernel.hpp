#pragma once
// The sm90a projection GEMM as a CUTLASS 3.x chain (included by the instantiation files only): the TMA + wgmma
// warp-specialized mainloop from the CollectiveBuilder (kBlockM x 128 x 64 tiles, bf16 in, fp32 accumulate, cluster
// 1x1), our epilogue collective, and a persistent GemmUniversal; the kernel schedule, tile scheduler and M tile are
// parameters.
//
// The launch's groups (K and V) are the GEMM's L mode: the activations' L stride is a static 0 (both read the same
// rows) and the weights' L stride is the distance between the two weights, so each is read where it is.
#include <cstdint>
#include <string>
#include <type_traits>

#include <cute/tensor.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/epilogue/collective/detail.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/dispatch_policy.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/gemm/kernel/tile_scheduler.hpp>
#include <cutlass/kernel_hardware_info.h>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"
#include "solutions/fused_b200/projection_epilogue_sm90.hpp"
#include "solutions/fused_b200/projection_kernels.hpp"

namespace vlb::fused_b200::sm90 {

template <class KernelSchedule, class TileSchedulerTag, int kBlockM_ = 128>
struct ProjectionGemm {
  using ElementInput = cutlass::bfloat16_t;
  using StrideActivations = cute::Stride<std::int64_t, cute::Int<1>, cute::Int<0>>;  // shared by every group
  using StrideWeights = cute::Stride<std::int64_t, cute::Int<1>, std::int64_t>;      // K-major; L = group
  static constexpr int kAlignment = 8;                                               // bf16 per 16 bytes (TMA)
  static constexpr bool kStreamK = std::is_same_v<TileSchedulerTag, cutlass::gemm::StreamKScheduler>;

  static constexpr int kBlockM = kBlockM_;
  static constexpr int kBlockN = 128;
  static constexpr int kBlockK = 64;
  // Consumer warpgroups on one tile; the epilogue stages 32 rows per warpgroup and pass (ping-pong: 19 KB of shared
  // memory, 6 mainloop stages at 128x128; cooperative: 37 KB, 5 stages).
  static constexpr int kTileWarpGroups =
      std::is_same_v<KernelSchedule, cutlass::gemm::KernelTmaWarpSpecializedCooperative> ? 2 : 1;

  using TileShape = cute::Shape<cute::Int<kBlockM>, cute::Int<kBlockN>, cute::Int<kBlockK>>;
  using ClusterShape = cute::Shape<cute::_1, cute::_1, cute::_1>;
  using Epilogue = cutlass::epilogue::collective::detail::Sm90TmaWarpSpecializedAdapter<
      ProjectionEpilogue<kBlockM, kBlockN, kTileWarpGroups>>;
  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementInput, StrideActivations, kAlignment, ElementInput,
      StrideWeights, kAlignment, float, TileShape, ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
      KernelSchedule>::CollectiveOp;
  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, Mainloop, Epilogue,
                                                      TileSchedulerTag>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;
  using Arguments = typename Gemm::Arguments;

  static EpilogueGroup epilogue_group(const ProjectionOutput& output) {
    EpilogueGroup group;
    group.output = output.output;
    group.bias = output.bias;
    group.positions = output.positions;
    group.rope = static_cast<int>(output.rope);
    group.rope_arithmetic = output.rope_arithmetic;
    group.scale = output.scale;
    return group;
  }

  static typename Kernel::TileSchedulerArguments scheduler_arguments(const ProjectionPlan& plan) {
    typename Kernel::TileSchedulerArguments scheduler;
    scheduler.max_swizzle_size = plan.swizzle;
    if constexpr (kStreamK) {
      using DecompositionMode = typename Kernel::TileScheduler::DecompositionMode;
      scheduler.splits = plan.splits;
      switch (plan.decomposition) {
        case Decomposition::kDataParallel: scheduler.decomposition_mode = DecompositionMode::DataParallel; break;
        case Decomposition::kSplitK: scheduler.decomposition_mode = DecompositionMode::SplitK; break;
        case Decomposition::kStreamK: scheduler.decomposition_mode = DecompositionMode::StreamK; break;
      }
    }
    return scheduler;
  }

  static Arguments arguments(const GemmLaunch& gemm, int sm_count) {
    const ProjectionShape& shape = gemm.shape;
    Arguments arguments;
    arguments.mode =
        shape.groups > 1 ? cutlass::gemm::GemmUniversalMode::kBatched : cutlass::gemm::GemmUniversalMode::kGemm;
    arguments.problem_shape = {static_cast<int>(shape.rows), static_cast<int>(shape.out_features),
                               static_cast<int>(shape.in_features), shape.groups};
    arguments.mainloop.ptr_A = reinterpret_cast<const ElementInput*>(gemm.activations);
    arguments.mainloop.dA = StrideActivations{shape.in_features, cute::Int<1>{}, cute::Int<0>{}};
    arguments.mainloop.ptr_B = reinterpret_cast<const ElementInput*>(gemm.outputs[0].weight);
    arguments.mainloop.dB = StrideWeights{shape.in_features, cute::Int<1>{}, gemm.group_stride};
    arguments.epilogue.groups[0] = epilogue_group(gemm.outputs[0]);
    if (shape.groups > 1) arguments.epilogue.groups[1] = epilogue_group(gemm.outputs[1]);
    arguments.epilogue.output_ld = shape.out_features;
    int device = 0;
    VLB_CUDA_CHECK(cudaGetDevice(&device));
    arguments.hw_info = cutlass::KernelHardwareInfo{device, sm_count};
    arguments.scheduler = scheduler_arguments(gemm.plan);
    return arguments;
  }

  static void check_status(cutlass::Status status, const char* step, const ProjectionShape& shape) {
    if (status != cutlass::Status::kSuccess) {
      throw SystemError(std::string("fused_b200 sm90 projection: ") + step + " failed (" +
                        cutlassGetStatusString(status) + ") for rows=" + std::to_string(shape.rows) +
                        " N=" + std::to_string(shape.out_features) + " K=" + std::to_string(shape.in_features) +
                        " groups=" + std::to_string(shape.groups));
    }
  }

  static std::size_t workspace_bytes(const GemmLaunch& gemm, int sm_count) {
    return Gemm::get_workspace_size(arguments(gemm, sm_count));
  }

  static void run(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream) {
    const Arguments args = arguments(gemm, sm_count);
    Gemm op;
    check_status(op.can_implement(args), "can_implement", gemm.shape);
    const std::size_t needed = Gemm::get_workspace_size(args);
    if (needed > workspace.bytes) {
      throw UsageError("fused_b200 sm90 projection: workspace of " + std::to_string(workspace.bytes) +
                       " bytes is smaller than the " + std::to_string(needed) +
                       " bytes needed; size it with projection_workspace_bytes()");
    }
    check_status(op.initialize(args, workspace.data, stream), "initialize", gemm.shape);
    check_status(op.run(stream, nullptr, gemm.order == LaunchOrder::kOverlapPrevious), "run", gemm.shape);
    VLB_CHECK_LAUNCH();
  }
};

}  // namespace vlb::fused_b200::sm90
