#pragma once
// The sm90a attention epilogue (included by attention_kernel_sm90.hpp): each consumer warpgroup rounds its 64 rows of
// O to bf16, stages them in shared memory (stmatrix, 128-byte swizzle) and stores them with two TMA boxes. The
// store clips rows past Lq (the tail token block), so no row of another batch element is ever written.
#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/numeric_conversion.h>

#include "solutions/fused_b200/attention_config_sm90.hpp"

namespace vlb::fused_b200::sm90 {

template <class Config>
struct AttentionEpilogue {
  using Element = typename Config::Element;
  static constexpr int kRows = Config::kRowsPerConsumer;

  template <class OutputFragment>
  CUTE_DEVICE static void store(const AttentionParams& params, typename Config::SharedStorage& storage,
                                const AttentionTile& tile, int thread, const OutputFragment& output_fragment) {
    using namespace cute;
    const int warp_group = thread / 128;
    const bool issuing_thread = thread % 128 == 0;

    // The warpgroup's previous store must have read its rows of the staging buffer before they are overwritten.
    if (issuing_thread) tma_store_wait<0>();
    named_barrier_sync(128, AttentionBarrier::kEpilogue0, warp_group);

    Tensor rounded = make_fragment_like<Element>(output_fragment);
    constexpr int kCount = decltype(size(output_fragment))::value;
    cutlass::NumericArrayConverter<Element, float, kCount> convert;
    *reinterpret_cast<cutlass::Array<Element, kCount>*>(rounded.data()) =
        convert(*reinterpret_cast<const cutlass::Array<float, kCount>*>(output_fragment.data()));

    typename Config::TiledMmaPV mma_pv;
    auto staging_copy = make_tiled_copy_C(Copy_Atom<SM90_U32x4_STSM_N, Element>{}, mma_pv);
    auto thread_copy = staging_copy.get_thread_slice(thread);
    Tensor staging = make_tensor(make_smem_ptr(storage.out.data()), typename Config::SmemLayoutO{});
    copy(staging_copy, thread_copy.retile_S(rounded), thread_copy.partition_D(staging));
    cutlass::arch::fence_view_async_shared();  // make the generic-proxy writes visible to TMA
    named_barrier_sync(128, AttentionBarrier::kEpilogue0, warp_group);

    if (issuing_thread) {
      // Rows of this warpgroup: [64 * w, 64 * w + 64) of each column half = 16 tokens x 4 heads.
      CUTE_UNROLL
      for (int half = 0; half < Config::kBoxesPerRow; ++half) {
        const Element* rows = storage.out.data() + half * Config::kBlockM * Config::kBoxColumns +
                              warp_group * kRows * Config::kBoxColumns;
        SM90_TMA_STORE_4D::copy(&params.out, rows, half * Config::kBoxColumns, tile.kv_head * kQueryHeadsPerKvHead,
                                tile.token_block * kTokensPerTile + warp_group * (kRows / kQueryHeadsPerKvHead),
                                tile.batch);
      }
      tma_store_arrive();
    }
  }

  // Before the CTA exits: its last stores must have finished reading shared memory.
  CUTE_DEVICE static void drain(int thread) {
    if (thread % 128 == 0) cute::tma_store_wait<0>();
  }
};

}  // namespace vlb::fused_b200::sm90
