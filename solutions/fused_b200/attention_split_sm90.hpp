#pragma once
// The split last wave's partial results on sm90a (included by attention_kernel_sm90.hpp; which CTA runs which piece
// is AttentionSplit's, attention_schedule.hpp). A piece that does not hold its tile's last KV block leaves each
// warpgroup's O (fp32, unnormalized) and softmax state in its CTA's slot and raises that warpgroup's flag; the tile's
// first piece waits for its peers' flags and merges their partials into its registers as two online-softmax states
// of a row: m = max(m1, m2), O = O1 2^(m1 - m) + O2 2^(m2 - m), and the sums alike (in the scores' exp2 scale).
//
// Workspace: the flags (one per CTA and warpgroup, zero before the launch), then the slots. A warpgroup's slot holds
// its 128 threads' 64 accumulators as 16 float4 chunks, chunk-major so that a warp's stores and loads are 512
// contiguous bytes, then each thread's (max, max, sum, sum) as one float4. Thread t of a warpgroup reads back what
// thread t of the same warpgroup of the peer wrote: both fragments have one layout, and each row's max is the same on
// the quad of lanes that shares the row, so the per-thread shares of the sum merge as they are.
#include <cute/tensor.hpp>

#include <cstddef>

#include "solutions/fused_b200/attention_config_sm90.hpp"
#include "solutions/fused_b200/attention_mainloop_sm90.hpp"

namespace vlb::fused_b200::sm90 {

struct AttentionSplitLayout {
  static constexpr int kWarpGroupThreads = 128;
  static constexpr int kWarpGroups = 2;
  static constexpr int kAccumulators = 64;  // per thread: 64 rows x 128 columns over a warpgroup
  static constexpr int kChunks = kAccumulators / 4;
  static constexpr int kFloatsPerSlot = kWarpGroupThreads * (kAccumulators + 4);
  static constexpr std::size_t kFlagAlignment = 256;

  static std::size_t flag_bytes(int ctas) {
    const std::size_t bytes = sizeof(unsigned) * kWarpGroups * static_cast<std::size_t>(ctas);
    return (bytes + kFlagAlignment - 1) / kFlagAlignment * kFlagAlignment;
  }
  static std::size_t bytes(int ctas) {
    return flag_bytes(ctas) + sizeof(float) * kFloatsPerSlot * kWarpGroups * static_cast<std::size_t>(ctas);
  }
};

CUTE_DEVICE unsigned load_acquire(const unsigned* flag) {
  unsigned value;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(value) : "l"(flag) : "memory");
  return value;
}

CUTE_DEVICE void store_release(unsigned* flag, unsigned value) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
}

template <class Config>
struct AttentionSplitPartials {
  using Layout = AttentionSplitLayout;
  using Softmax = typename AttentionMainloop<Config>::Softmax;
  static constexpr int kRows = AttentionMainloop<Config>::kRowsPerThread;
  static_assert(kRows == 2, "a thread's (max, max, sum, sum) is one float4");

  CUTE_DEVICE static int slot_index(int cta, int warp_group) { return cta * Layout::kWarpGroups + warp_group; }
  CUTE_DEVICE static float* slot(const AttentionParams& params, int cta, int warp_group) {
    return params.split_partials + static_cast<std::size_t>(slot_index(cta, warp_group)) * Layout::kFloatsPerSlot;
  }

  // This CTA's piece of a tile whose first piece another CTA runs: its partial into the CTA's slot, then its flag.
  template <class OutputFragment>
  CUTE_DEVICE static void write(const AttentionParams& params, int thread, const Softmax& softmax,
                                const OutputFragment& output_fragment) {
    static_assert(decltype(cute::size(output_fragment))::value == Layout::kAccumulators);
    const int warp_group = thread / Layout::kWarpGroupThreads;
    const int lane = thread % Layout::kWarpGroupThreads;
    float* partial = slot(params, static_cast<int>(blockIdx.x), warp_group);
    auto* chunks = reinterpret_cast<float4*>(partial);
    CUTE_UNROLL
    for (int chunk = 0; chunk < Layout::kChunks; ++chunk) {
      __stcg(chunks + chunk * Layout::kWarpGroupThreads + lane,
             make_float4(output_fragment(4 * chunk), output_fragment(4 * chunk + 1), output_fragment(4 * chunk + 2),
                         output_fragment(4 * chunk + 3)));
    }
    __stcg(chunks + Layout::kChunks * Layout::kWarpGroupThreads + lane,
           make_float4(softmax.row_max[0], softmax.row_max[1], softmax.row_sum[0], softmax.row_sum[1]));
    __threadfence();
    named_barrier_sync(Layout::kWarpGroupThreads, AttentionBarrier::kSplit0, warp_group);
    if (lane == 0) {
      store_release(params.split_flags + slot_index(static_cast<int>(blockIdx.x), warp_group), 1u);
    }
  }

  // The tile's first piece: the partials of the CTAs (this one, step.merge_until] merged into its own O and softmax.
  template <class OutputFragment>
  CUTE_DEVICE static void merge(const AttentionParams& params, const AttentionStep& step, int thread,
                                Softmax& softmax, OutputFragment& output_fragment) {
    using namespace cute;
    const int warp_group = thread / Layout::kWarpGroupThreads;
    const int lane = thread % Layout::kWarpGroupThreads;
    const AttentionSplit& split = params.walk.split;
    Tensor output = make_tensor(output_fragment.data(), accumulator_rows_cols(output_fragment.layout()));
    for (int peer = static_cast<int>(blockIdx.x) + 1; peer <= step.merge_until; ++peer) {
      if (split.segment_begin(peer) == split.segment_begin(peer + 1)) continue;  // no units, no piece
      if (lane == 0) {
        const unsigned* flag = params.split_flags + slot_index(peer, warp_group);
        while (load_acquire(flag) == 0) __nanosleep(32);
      }
      named_barrier_sync(Layout::kWarpGroupThreads, AttentionBarrier::kSplit0, warp_group);

      const auto* chunks = reinterpret_cast<const float4*>(slot(params, peer, warp_group));
      Tensor peer_fragment = make_fragment_like(output_fragment);
      CUTE_UNROLL
      for (int chunk = 0; chunk < Layout::kChunks; ++chunk) {
        const float4 values = __ldcg(chunks + chunk * Layout::kWarpGroupThreads + lane);
        peer_fragment(4 * chunk) = values.x;
        peer_fragment(4 * chunk + 1) = values.y;
        peer_fragment(4 * chunk + 2) = values.z;
        peer_fragment(4 * chunk + 3) = values.w;
      }
      const float4 state = __ldcg(chunks + Layout::kChunks * Layout::kWarpGroupThreads + lane);
      const float peer_max[kRows] = {state.x, state.y};
      const float peer_sum[kRows] = {state.z, state.w};
      Tensor theirs = make_tensor(peer_fragment.data(), accumulator_rows_cols(peer_fragment.layout()));
      CUTE_UNROLL
      for (int row = 0; row < kRows; ++row) {
        const float new_max = fmaxf(softmax.row_max[row], peer_max[row]);
        const float own_scale = fast_exp2((softmax.row_max[row] - new_max) * Softmax::kExp2Scale);
        const float peer_scale = fast_exp2((peer_max[row] - new_max) * Softmax::kExp2Scale);
        softmax.row_max[row] = new_max;
        softmax.row_sum[row] = fmaf(softmax.row_sum[row], own_scale, peer_sum[row] * peer_scale);
        CUTE_UNROLL
        for (int col = 0; col < size<1>(output); ++col) {
          output(row, col) = fmaf(output(row, col), own_scale, theirs(row, col) * peer_scale);
        }
      }
    }
  }
};

}  // namespace vlb::fused_b200::sm90
