#pragma once
// A plain sm90a GEMM from CUTLASS's builders, mainloop and TMA epilogue alike (included by instantiation files only):
// out[rows, n] = a[rows, k] * w[n, k]^T, bf16 in and out, fp32 accumulation, persistent data-parallel scheduler.
// The O projection runs on it where its wide tiles win (projection_plan.hpp); the stage bench times its variants as
// "what a user could build from the library".
#include <cute/tensor.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/kernel_hardware_info.h>
#include <cutlass/util/packed_stride.hpp>

#include <cstdint>
#include <string>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"
#include "solutions/fused_b200/launch_order.hpp"

namespace vlb::fused_b200::sm90 {

template <int kM, int kN, int kClusterM, int kClusterN, class KernelSchedule, class EpilogueSchedule>
struct PlainGemm {
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

  static typename Gemm::Arguments arguments(const void* a, const void* w, void* out, std::int64_t rows,
                                            std::int64_t n, std::int64_t k, int swizzle, int sm_count) {
    const int m_ = static_cast<int>(rows);
    const int n_ = static_cast<int>(n);
    const int k_ = static_cast<int>(k);
    typename Gemm::Arguments args;
    args.mode = cutlass::gemm::GemmUniversalMode::kGemm;
    args.problem_shape = {m_, n_, k_, 1};
    args.mainloop.ptr_A = static_cast<const Element*>(a);
    args.mainloop.dA = cutlass::make_cute_packed_stride(typename Kernel::StrideA{}, {m_, k_, 1});
    args.mainloop.ptr_B = static_cast<const Element*>(w);
    args.mainloop.dB = cutlass::make_cute_packed_stride(typename Kernel::StrideB{}, {n_, k_, 1});
    args.epilogue.thread.alpha = 1.0f;
    args.epilogue.thread.beta = 0.0f;
    args.epilogue.ptr_C = nullptr;
    args.epilogue.dC = cutlass::make_cute_packed_stride(typename Kernel::StrideC{}, {m_, n_, 1});
    args.epilogue.ptr_D = static_cast<Element*>(out);
    args.epilogue.dD = cutlass::make_cute_packed_stride(typename Kernel::StrideD{}, {m_, n_, 1});
    int device = 0;
    VLB_CUDA_CHECK(cudaGetDevice(&device));
    args.hw_info = cutlass::KernelHardwareInfo{device, sm_count};
    args.scheduler.max_swizzle_size = swizzle;
    return args;
  }

  static std::size_t workspace_bytes(std::int64_t rows, std::int64_t n, std::int64_t k, int sm_count) {
    return Gemm::get_workspace_size(arguments(nullptr, nullptr, nullptr, rows, n, k, 1, sm_count));
  }

  static void run(const void* a, const void* w, void* out, std::int64_t rows, std::int64_t n, std::int64_t k,
                  int swizzle, int sm_count, void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
                  LaunchOrder order = LaunchOrder::kAfterPrevious) {
    const auto args = arguments(a, w, out, rows, n, k, swizzle, sm_count);
    const auto fail = [&](const char* step, cutlass::Status status) {
      throw SystemError(std::string("plain CUTLASS GEMM: ") + step + " failed (" + cutlassGetStatusString(status) +
                        ") for rows=" + std::to_string(rows) + " N=" + std::to_string(n) + " K=" + std::to_string(k));
    };
    Gemm gemm;
    if (const auto status = gemm.can_implement(args); status != cutlass::Status::kSuccess) {
      fail("can_implement", status);
    }
    const std::size_t needed = Gemm::get_workspace_size(args);
    if (needed > workspace_bytes) {
      throw UsageError("plain CUTLASS GEMM: workspace of " + std::to_string(workspace_bytes) +
                       " bytes is smaller than " + std::to_string(needed));
    }
    if (const auto status = gemm.initialize(args, workspace, stream); status != cutlass::Status::kSuccess) {
      fail("initialize", status);
    }
    const bool overlap_previous = order == LaunchOrder::kOverlapPrevious;
    if (const auto status = gemm.run(stream, nullptr, overlap_previous); status != cutlass::Status::kSuccess) {
      fail("run", status);
    }
    VLB_CHECK_LAUNCH();
  }
};

}  // namespace vlb::fused_b200::sm90
