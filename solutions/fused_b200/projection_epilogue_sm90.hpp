#pragma once
// The epilogue collective of the sm90 projection GEMMs (included by projection_gemm_sm90_kernel.hpp only).
//
// It follows the interface of CUTLASS's no-smem DefaultEpilogue (wrapped by Sm90TmaWarpSpecializedAdapter, so the
// warp-specialized kernels call it with a whole tile's fp32 accumulators: both consumer warpgroups' on the
// cooperative kernel, one warpgroup's on ping-pong, where the kernel runs the two warpgroups' epilogues one after the
// other), but stages the tile through shared memory, a few rows per pass: the RoPE partner of an element (distance
// 64 for Q, 21 or 22 for K's sections) lives in another thread's registers, and staging makes that independent of
// the wgmma accumulator layout.
//
// Per pass: the accumulators of the pass's rows go to an fp32 stage, and the (cos, sin) of the rows' 64 rotary
// slots to a table, computed once per row and slot and shared by every head of the tile (v2 computed them per
// element: 2x the work with one head per tile, 4x with two). After a barrier each thread finishes column pairs:
// bias, rotation with the partner's staged value, scale, one rounding to bf16, and a 4-byte store, a warp covering
// 64 consecutive columns of a row (coalesced; the stage reads are free of bank conflicts). Per group (the L index of
// the launch): its own output, bias, RoPE kind and positions.
#include <cuda_bf16.h>

#include <cstdint>

#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/cutlass.h>
#include <cutlass/epilogue/thread/linear_combination.h>
#include <cutlass/numeric_types.h>

#include "solutions/fused_b200/epilogue_math.hpp"

namespace vlb::fused_b200::sm90 {

// Device-side view of one output of the launch.
struct EpilogueGroup {
  __nv_bfloat16* output = nullptr;           // [rows, ld]
  const __nv_bfloat16* bias = nullptr;       // [N] or null
  const std::int64_t* positions = nullptr;   // kLanguage: [rows]; kVision: [rows, 3]; else null
  int rope = static_cast<int>(RopeKind::kNone);
  float scale = 1.0f;
};

template <int kBlockM_, int kBlockN_, int kStageRows_>
class ProjectionEpilogue {
 public:
  static constexpr int kBlockM = kBlockM_;
  static constexpr int kBlockN = kBlockN_;
  static constexpr int kStageRows = kStageRows_;             // rows of the tile staged per pass
  static constexpr int kStageLd = kBlockN + 8;               // padding: at most 2-way bank conflicts on the writes
  static constexpr int kBarrierId = 0;                       // first user named barrier (after CUTLASS's reserved ones)
  static_assert(kBlockN % kHeadDim == 0, "an N tile holds whole heads, so that RoPE pairs stay inside the tile");
  static_assert(kBlockM % kStageRows == 0, "the tile is staged in whole passes");

  // Types the kernel and the device adapter read.
  using ThreadEpilogueOp = cutlass::epilogue::thread::LinearCombination<cutlass::bfloat16_t, 1, float, float>;
  using ElementOutput = cutlass::bfloat16_t;
  using ElementAccumulator = float;
  using ElementCompute = float;
  using ElementScalar = float;
  using ElementC = cutlass::bfloat16_t;
  using ElementD = cutlass::bfloat16_t;
  using StrideC = cute::Stride<std::int64_t, cute::Int<1>, std::int64_t>;
  using StrideD = StrideC;
  using GmemTiledCopyC = void;
  using GmemTiledCopyD = void;

  // One element's rotation partner, in 4 bytes: the table of a head's 128 elements is read two at a time.
  struct PackedPair {
    std::int16_t partner;   // column in the head
    std::int8_t slot;       // rotary slot of the pair's angle
    std::int8_t negative;   // 1 in the first half of the rotated width
  };

  struct SharedStorage {
    alignas(16) float stage[kStageRows * kStageLd];
    alignas(16) float2 rotary[kStageRows][kRotarySlots];  // (cos, sin) of this pass's rows
    alignas(16) float bias[kBlockN];                      // the tile's bias, loaded once per tile
    alignas(16) PackedPair pairs[kHeadDim];               // the group's RoPE pairing, set once per tile
    float positions[kBlockM][3];                          // the tile's rows' positions (t only for Q; t, h, w for K)
  };
  using TensorStorage = SharedStorage;

  struct Arguments {
    EpilogueGroup groups[2];
    std::int64_t output_ld = 0;  // elements between rows of every output
  };
  using Params = Arguments;

  template <class ProblemShape>
  static constexpr Params to_underlying_arguments(ProblemShape const&, Arguments const& args, void*) {
    return args;
  }
  template <class ProblemShape>
  static size_t get_workspace_size(ProblemShape const&, Arguments const&) {
    return 0;
  }
  template <class ProblemShape>
  static cutlass::Status initialize_workspace(ProblemShape const&, Arguments const&, void*, cudaStream_t,
                                              cutlass::CudaHostAdapter* = nullptr) {
    return cutlass::Status::kSuccess;
  }
  template <class ProblemShape>
  static bool can_implement(ProblemShape const& problem_shape, Arguments const& args) {
    const auto n = cute::get<1>(problem_shape);
    const auto l = cute::get<3>(problem_shape);
    bool ok = n % kBlockN == 0 && args.output_ld >= n && args.output_ld % 2 == 0 && l >= 1 && l <= 2;
    for (int group = 0; group < l && ok; ++group) {
      ok = args.groups[group].output != nullptr &&
           reinterpret_cast<std::uintptr_t>(args.groups[group].output) % 4 == 0 &&
           (args.groups[group].rope == static_cast<int>(RopeKind::kNone) || args.groups[group].positions != nullptr);
    }
    return ok;
  }

  CUTLASS_HOST_DEVICE explicit ProjectionEpilogue(Params const& params) : params_(params) {}

  CUTLASS_DEVICE bool is_source_needed() { return false; }

  template <class ProblemShapeMNKL, class BlockShapeMNK, class BlockCoordMNKL, class FrgEngine, class FrgLayout,
            class TiledMma, class ResidueMNK>
  CUTLASS_DEVICE void operator()(ProblemShapeMNKL problem_shape_mnkl, BlockShapeMNK blk_shape_mnk,
                                 BlockCoordMNKL blk_coord_mnkl, cute::Tensor<FrgEngine, FrgLayout> const& accumulators,
                                 TiledMma tiled_mma, ResidueMNK, int thread_idx, char* smem) {
    using namespace cute;
    static_assert(size<0>(BlockShapeMNK{}) == kBlockM && size<1>(BlockShapeMNK{}) == kBlockN);
    constexpr int kThreads = size(TiledMma{});

    const int rows = static_cast<int>(get<0>(problem_shape_mnkl));
    const int m_coord = static_cast<int>(get<0>(blk_coord_mnkl));
    const int n_coord = static_cast<int>(get<1>(blk_coord_mnkl));
    const int l_coord = static_cast<int>(get<3>(blk_coord_mnkl));
    // A select, not a run-time array index, keeps the groups out of local memory.
    const EpilogueGroup group = l_coord == 0 ? params_.groups[0] : params_.groups[1];
    const int tile_row0 = m_coord * kBlockM;
    const int tile_col0 = n_coord * kBlockN;

    // Tile coordinates of every accumulator element, from the MMA's own partitioning.
    Tensor tile_coords = make_identity_tensor(make_shape(Int<kBlockM>{}, Int<kBlockN>{}));
    Tensor thread_coords = tiled_mma.get_thread_slice(thread_idx).partition_C(tile_coords);
    CUTE_STATIC_ASSERT_V(size(thread_coords) == size(accumulators));
    (void)blk_shape_mnk;

    SharedStorage& shared = *reinterpret_cast<SharedStorage*>(smem);
    const bool rotate = group.rope != static_cast<int>(RopeKind::kNone);
    // The tile's only global loads (one bias element, one row's positions per thread), issued first so that their
    // latency runs under the first pass's staging; v4 loaded positions in every pass, a memory round trip per pass
    // that cost more than the ping-pong mainloop it should hide under.
    static_assert(kThreads >= kBlockN && kThreads >= kBlockM && kThreads >= kHeadDim,
                  "one bias element, one row's positions and one pair per thread");
    const float bias_value =
        thread_idx < kBlockN && group.bias != nullptr ? __bfloat162float(group.bias[tile_col0 + thread_idx]) : 0.0f;
    float row_position[3] = {0.0f, 0.0f, 0.0f};
    if (rotate && thread_idx < kBlockM) load_row_positions(group, rows, tile_row0 + thread_idx, row_position);

    // Not unrolled: one copy of the pass's code keeps the kernel small (v3: unrolling 8 passes of 16 rows
    // multiplied the epilogue's instructions and its time).
    CUTLASS_PRAGMA_NO_UNROLL
    for (int pass = 0; pass < kBlockM / kStageRows; ++pass) {
      const int stage_row0 = tile_row0 + pass * kStageRows;
      if (stage_row0 < rows) {  // uniform over the CTA: skip passes wholly past the ragged end
        stage_accumulators(accumulators, thread_coords, pass * kStageRows, shared.stage);
        if (pass == 0) {
          // The previous tile's last barrier ended every read of these.
          if (thread_idx < kBlockN) shared.bias[thread_idx] = bias_value;
          if (rotate && thread_idx < kBlockM) {
            for (int axis = 0; axis < 3; ++axis) shared.positions[thread_idx][axis] = row_position[axis];
          }
          if (rotate && thread_idx < kHeadDim) {
            shared.pairs[thread_idx] = pack_pair(group.rope == static_cast<int>(RopeKind::kLanguage)
                                                     ? language_rotary_pair(thread_idx)
                                                     : vision_rotary_pair(thread_idx));
          }
          if (rotate) cutlass::arch::NamedBarrier::sync(kThreads, kBarrierId);  // positions before the table
        }
        if (rotate) fill_rotary_table<kThreads>(group, stage_row0 - tile_row0, thread_idx, shared);
        cutlass::arch::NamedBarrier::sync(kThreads, kBarrierId);
        store_stage<kThreads>(group, rows, stage_row0, tile_col0, thread_idx, shared);
        cutlass::arch::NamedBarrier::sync(kThreads, kBarrierId);  // the stage is rewritten by the next pass / tile
      }
    }
  }

 private:
  static constexpr int kPairsPerRow = kBlockN / 2;  // each thread finishes two adjacent columns at a time

  CUTLASS_DEVICE static PackedPair pack_pair(RotaryPair const& pair) {
    PackedPair packed;
    packed.partner = static_cast<std::int16_t>(pair.partner);
    packed.slot = static_cast<std::int8_t>(pair.slot);
    packed.negative = static_cast<std::int8_t>(pair.sign < 0.0f ? 1 : 0);
    return packed;
  }

  // This pass's rows of the accumulators into the fp32 stage, at the (row, col) the MMA's partitioning gives each.
  template <class Accumulators, class Coords>
  CUTLASS_DEVICE static void stage_accumulators(Accumulators const& accumulators, Coords const& thread_coords,
                                                int pass_row0, float* stage) {
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < cute::size(accumulators); ++i) {
      const int row = static_cast<int>(cute::get<0>(thread_coords(i))) - pass_row0;
      const int col = static_cast<int>(cute::get<1>(thread_coords(i)));
      if (row >= 0 && row < kStageRows) stage[row * kStageLd + col] = accumulators(i);
    }
  }

  CUTLASS_DEVICE static void load_row_positions(EpilogueGroup const& group, int rows, int row, float (&position)[3]) {
    if (row >= rows) return;
    if (group.rope == static_cast<int>(RopeKind::kLanguage)) {
      position[0] = static_cast<float>(group.positions[row]);
    } else {
      const std::int64_t* thw = group.positions + static_cast<std::int64_t>(row) * 3;
      position[0] = static_cast<float>(thw[0]);
      position[1] = static_cast<float>(thw[1]);
      position[2] = static_cast<float>(thw[2]);
    }
  }

  // (cos, sin) of every rotary slot of the pass's rows, from the positions in shared memory.
  template <int kThreads>
  CUTLASS_DEVICE static void fill_rotary_table(EpilogueGroup const& group, int pass_row0, int thread_idx,
                                               SharedStorage& shared) {
    constexpr int kEntries = kStageRows * kRotarySlots / kThreads;
    static_assert(kStageRows * kRotarySlots % kThreads == 0, "every thread computes the same number of entries");
    const bool language = group.rope == static_cast<int>(RopeKind::kLanguage);
#pragma unroll 4
    for (int j = 0; j < kEntries; ++j) {
      const int entry = thread_idx + j * kThreads;
      const int stage_row = entry / kRotarySlots;
      const int slot = entry % kRotarySlots;
      const RotaryPair pair = language ? language_slot_pair(slot) : vision_slot_pair(slot);
      const float position = shared.positions[pass_row0 + stage_row][pair.section];
      float2 cos_sin;
      rope_cos_sin(rope_angle(position, pair), cos_sin.x, cos_sin.y);
      shared.rotary[stage_row][slot] = cos_sin;
    }
  }

  // Each thread takes two adjacent columns of a row at a time: bias, RoPE from the staged values and the table,
  // scale, one bf16 rounding, one 4-byte store.
  template <int kThreads>
  CUTLASS_DEVICE void store_stage(EpilogueGroup const& group, int rows, int stage_row0, int tile_col0,
                                  int thread_idx, SharedStorage const& shared) const {
    constexpr int kItems = kStageRows * kPairsPerRow / kThreads;
    static_assert(kStageRows * kPairsPerRow % kThreads == 0, "every thread takes the same number of column pairs");
    const bool rotate = group.rope != static_cast<int>(RopeKind::kNone);
    // Four at a time: the tile's accumulators stay live across the passes (128 per thread on ping-pong, whose 128
    // threads take 16 items per pass), and the fully unrolled loop spilled there (ptxas, v4).
#pragma unroll 4
    for (int j = 0; j < kItems; ++j) {
      const int item = thread_idx + j * kThreads;
      const int stage_row = item / kPairsPerRow;
      const int col = (item % kPairsPerRow) * 2;
      const int row = stage_row0 + stage_row;
      if (row >= rows) continue;
      const float* staged = shared.stage + stage_row * kStageLd;
      const float2 accumulator = *reinterpret_cast<const float2*>(staged + col);
      const float2 bias = *reinterpret_cast<const float2*>(shared.bias + col);
      float values[2] = {accumulator.x + bias.x, accumulator.y + bias.y};
      if (rotate) {
        const int head_start = col - col % kHeadDim;
        CUTLASS_PRAGMA_UNROLL
        for (int e = 0; e < 2; ++e) {
          const PackedPair pair = shared.pairs[col % kHeadDim + e];
          const int partner = head_start + pair.partner;
          const float2 cos_sin = shared.rotary[stage_row][pair.slot];
          const float partner_value = staged[partner] + shared.bias[partner];
          values[e] = rotate_element(values[e], partner_value, cos_sin.x, cos_sin.y, pair.negative ? -1.0f : 1.0f);
        }
      }
      const __nv_bfloat162 packed = __floats2bfloat162_rn(values[0] * group.scale, values[1] * group.scale);
      __nv_bfloat16* destination = group.output + static_cast<std::int64_t>(row) * params_.output_ld + tile_col0 + col;
      *reinterpret_cast<__nv_bfloat162*>(destination) = packed;
    }
  }

  Params params_;
};

}  // namespace vlb::fused_b200::sm90
