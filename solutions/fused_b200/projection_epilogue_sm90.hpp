#pragma once
// The epilogue collective of the sm90 projection GEMMs (included by projection_gemm_sm90_kernel.hpp only).
//
// It follows the interface of CUTLASS's no-smem DefaultEpilogue (wrapped by Sm90TmaWarpSpecializedAdapter, so the
// warp-specialized kernels call it with a whole tile's fp32 accumulators: both consumer warpgroups' on the
// cooperative kernel, one warpgroup's on ping-pong, where the kernel runs the two warpgroups' epilogues one after the
// other), but stages the tile through shared memory, one group of rows per pass: the RoPE partner of an element
// (distance 64 for Q, 21 or 22 for K's sections) lives in another thread's registers, and staging makes that
// independent of the wgmma accumulator layout.
//
// The rows of a pass are not contiguous: pass and stage row are a permutation of the tile row's bits chosen so that
// every thread holds accumulators of every pass (the wgmma layout puts row 64*m + 16*warp + 8*half + lane/4 in a
// thread; a pass takes one `half` of every warp's rows), so that all threads stage in every pass. Any layout stays
// correct, since each element is staged at the slot its own coordinates give.
//
// Per pass: (1) the accumulators of the pass's rows go to an fp32 stage; (2) K (sectioned 3D RoPE): each thread takes
// one rotary slot (a pair of columns sharing one angle) of one head over 8 rows: bias, one cos/sin per row for both
// elements of the pair, rotation and scale, written back in place; (3) each thread converts 8 consecutive columns of
// a row to bf16 (with bias and scale unless step 2 applied them) and writes them with one 16-byte store. For Q (1D
// RoPE, partners 64 columns apart) steps 2 and 3 are one: a thread takes columns [c, c+8) and [c+64, c+72) of a row,
// rotates the 8 pairs and writes both halves, with no write-back and one barrier fewer. Barriers separate the
// phases. Per group (the L index of the launch): its own output, bias, RoPE kind and positions.
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
  RopeArithmetic rope_arithmetic = RopeArithmetic::kFp32;
  float scale = 1.0f;
};

// kTileWarpGroups: the consumer warpgroups that share one tile (cooperative 2, ping-pong 1).
template <int kBlockM_, int kBlockN_, int kTileWarpGroups_>
class ProjectionEpilogue {
 public:
  static constexpr int kBlockM = kBlockM_;
  static constexpr int kBlockN = kBlockN_;
  static constexpr int kTileWarpGroups = kTileWarpGroups_;
  static constexpr int kStageRows = 32 * kTileWarpGroups;    // rows per pass: one `half` of every warp's rows
  static constexpr int kPasses = kBlockM / kStageRows;
  static constexpr int kStageLd = kBlockN + 8;               // padding: at most 2-way bank conflicts on the writes
  static constexpr int kVector = 8;                          // bf16 per 16-byte store
  static constexpr int kRowsPerSlotItem = 8;                 // rows one thread rotates per rotary slot: one run of
                                                             // 8 stage rows, 8 consecutive tile rows
  static constexpr int kHeads = kBlockN / kHeadDim;
  static constexpr int kBarrierId = 0;                       // first user named barrier (after CUTLASS's reserved ones)
  static_assert(kBlockN % kHeadDim == 0, "an N tile holds whole heads, so that RoPE pairs stay inside the tile");
  static_assert(kBlockM % 64 == 0 && kBlockM % kStageRows == 0, "whole wgmma row blocks, whole passes");

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

  struct SharedStorage {
    alignas(16) float stage[kStageRows * kStageLd];
    alignas(16) float bias[kBlockN];   // the tile's bias, loaded once per tile
    float positions[kBlockM][3];       // the tile's rows' positions (t only for Q; t, h, w for K)
    alignas(16) float language_inv_freq[kRotarySlots];
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
    bool ok = n % kBlockN == 0 && args.output_ld >= n && args.output_ld % kVector == 0 && l >= 1 && l <= 2;
    for (int group = 0; group < l && ok; ++group) {
      ok = args.groups[group].output != nullptr &&
           reinterpret_cast<std::uintptr_t>(args.groups[group].output) % 16 == 0 &&
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
    static_assert(kThreads == 128 * kTileWarpGroups, "the pass layout assumes kTileWarpGroups consumer warpgroups");

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
    const bool language = group.rope == static_cast<int>(RopeKind::kLanguage);
    // The tile's only global loads (one bias element, one row's positions per thread), issued first so that their
    // latency runs under the first pass's staging (p4 loaded positions in every pass: a memory round trip each).
    static_assert(kThreads >= kBlockN && kThreads >= kBlockM, "one bias element and one row's positions per thread");
    const float bias_value =
        thread_idx < kBlockN && group.bias != nullptr ? __bfloat162float(group.bias[tile_col0 + thread_idx]) : 0.0f;
    float row_position[3] = {0.0f, 0.0f, 0.0f};
    if (rotate && thread_idx < kBlockM) load_row_positions(group, rows, tile_row0 + thread_idx, row_position);
    const float inv_freq = language && thread_idx < kRotarySlots ? rope_inv_freq(thread_idx, kHeadDim) : 0.0f;

    // Not unrolled: one copy of the pass's code keeps the kernel small (p3: unrolling 8 passes of 16 rows
    // multiplied the epilogue's instructions and its time).
    CUTLASS_PRAGMA_NO_UNROLL
    for (int pass = 0; pass < kPasses; ++pass) {
      if (tile_row0 + tile_row(pass, 0) < rows) {  // uniform over the CTA: skip passes wholly past the ragged end
        stage_accumulators(accumulators, thread_coords, pass, shared.stage);
        if (pass == 0) {  // the previous tile's last barrier ended every read of these
          if (thread_idx < kBlockN) shared.bias[thread_idx] = bias_value;
          if (rotate && thread_idx < kBlockM) {
            for (int axis = 0; axis < 3; ++axis) shared.positions[thread_idx][axis] = row_position[axis];
          }
          if (language && thread_idx < kRotarySlots) shared.language_inv_freq[thread_idx] = inv_freq;
        }
        cutlass::arch::NamedBarrier::sync(kThreads, kBarrierId);
        if (language) {
          store_rotated_stage<kThreads>(group, rows, tile_row0, pass, tile_col0, thread_idx, shared);
        } else {
          if (rotate) {
            rotate_stage<kThreads>(group, pass, thread_idx, shared);
            cutlass::arch::NamedBarrier::sync(kThreads, kBarrierId);
          }
          store_stage<kThreads>(group, rows, tile_row0, pass, tile_col0, thread_idx, rotate, shared);
        }
        cutlass::arch::NamedBarrier::sync(kThreads, kBarrierId);  // the stage is rewritten by the next pass / tile
      }
    }
  }

 private:
  static constexpr int kChunksPerRow = kBlockN / kVector;

  // The tile row held at `stage_row` of `pass`, and the inverse: row = 64*m + 16*warp + 8*half + r; a pass is one
  // `half` of a set of kTileWarpGroups row blocks m, its stage rows (m % kTileWarpGroups, warp, r).
  CUTLASS_HOST_DEVICE static constexpr int tile_row(int pass, int stage_row) {
    const int block = (pass / 2) * kTileWarpGroups + stage_row / 32;
    return 64 * block + 16 * (stage_row / 8 % 4) + 8 * (pass % 2) + stage_row % 8;
  }
  CUTLASS_HOST_DEVICE static constexpr int pass_of(int row) { return row / 64 / kTileWarpGroups * 2 + row / 8 % 2; }
  CUTLASS_HOST_DEVICE static constexpr int stage_row_of(int row) {
    return row / 64 % kTileWarpGroups * 32 + row / 16 % 4 * 8 + row % 8;
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

  // This pass's rows of the accumulators into the fp32 stage, at the (row, col) the MMA's partitioning gives each.
  template <class Accumulators, class Coords>
  CUTLASS_DEVICE static void stage_accumulators(Accumulators const& accumulators, Coords const& thread_coords,
                                                int pass, float* stage) {
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < cute::size(accumulators); ++i) {
      const int row = static_cast<int>(cute::get<0>(thread_coords(i)));
      const int col = static_cast<int>(cute::get<1>(thread_coords(i)));
      if (pass_of(row) == pass) stage[stage_row_of(row) * kStageLd + col] = accumulators(i);
    }
  }

  // K: bias, sectioned 3D RoPE and scale in place on the stage. One item: one rotary slot of one head over
  // kRowsPerSlotItem rows; the slot's two columns share each row's cos and sin. Rows past the ragged end rotate garbage
  // nobody stores.
  template <int kThreads>
  CUTLASS_DEVICE static void rotate_stage(EpilogueGroup const& group, int pass, int thread_idx,
                                          SharedStorage& shared) {
    constexpr int kItems = kStageRows / kRowsPerSlotItem * kHeads * kRotarySlots;
    static_assert(kItems % kThreads == 0, "every thread takes the same number of slot items");
    CUTLASS_PRAGMA_UNROLL
    for (int j = 0; j < kItems / kThreads; ++j) {
      const int item = thread_idx + j * kThreads;
      const int slot = item % kRotarySlots;
      const int head = item / kRotarySlots % kHeads;
      const int stage_row0 = item / (kRotarySlots * kHeads) * kRowsPerSlotItem;
      const RotaryPair pair = vision_slot_pair(slot);
      const int first = head * kHeadDim + pair.element;   // first half: out = x*cos - partner*sin
      const int second = head * kHeadDim + pair.partner;  // second half: out = x*cos + partner*sin
      const float inv_freq = rope_inv_freq(pair.freq_index, pair.width);
      const float bias_first = shared.bias[first];
      const float bias_second = shared.bias[second];
      const float* positions = shared.positions[tile_row(pass, stage_row0)];  // the item's 8 rows are consecutive
      CUTLASS_PRAGMA_UNROLL
      for (int r = 0; r < kRowsPerSlotItem; ++r) {
        float* staged = shared.stage + (stage_row0 + r) * kStageLd;
        float cos_value = 0.0f;
        float sin_value = 0.0f;
        const float position = positions[3 * r + pair.section];
        rope_cos_sin(position * inv_freq, cos_value, sin_value);
        const float x_first = staged[first] + bias_first;
        const float x_second = staged[second] + bias_second;
        const RotatedPair rotated = rotate_pair(x_first, x_second, cos_value, sin_value, group.rope_arithmetic);
        staged[first] = rotated.first * group.scale;
        staged[second] = rotated.second * group.scale;
      }
    }
  }

  // Each thread converts 8 consecutive columns of a row to bf16 and writes them with one 16-byte store; bias and
  // scale here unless rotate_stage applied them.
  template <int kThreads>
  CUTLASS_DEVICE void store_stage(EpilogueGroup const& group, int rows, int tile_row0, int pass, int tile_col0,
                                  int thread_idx, bool finished, SharedStorage const& shared) const {
    constexpr int kChunks = kStageRows * kChunksPerRow / kThreads;
    static_assert(kStageRows * kChunksPerRow % kThreads == 0, "every thread takes the same number of chunks");
    CUTLASS_PRAGMA_UNROLL
    for (int j = 0; j < kChunks; ++j) {
      const int chunk = thread_idx + j * kThreads;
      const int stage_row = chunk / kChunksPerRow;
      const int col0 = (chunk % kChunksPerRow) * kVector;
      const int row = tile_row0 + tile_row(pass, stage_row);
      if (row >= rows) continue;
      float values[kVector];
      load_float8(shared.stage + stage_row * kStageLd + col0, values);
      if (!finished) {
        float bias_values[kVector];
        load_float8(shared.bias + col0, bias_values);
        CUTLASS_PRAGMA_UNROLL
        for (int v = 0; v < kVector; ++v) values[v] = (values[v] + bias_values[v]) * group.scale;
      }
      store_bf16x8(values, row, tile_col0 + col0, group);
    }
  }

  // Q: bias, 1D RoPE and scale on the way out. One item: columns [c, c+8) of the first half of a head and their
  // partners [c+64, c+72) in one row (8 slots, one position), written as two 16-byte stores.
  template <int kThreads>
  CUTLASS_DEVICE void store_rotated_stage(EpilogueGroup const& group, int rows, int tile_row0, int pass,
                                          int tile_col0, int thread_idx, SharedStorage const& shared) const {
    constexpr int kItemsPerRow = kHeads * kRotarySlots / kVector;
    constexpr int kItems = kStageRows * kItemsPerRow / kThreads;
    static_assert(kStageRows * kItemsPerRow % kThreads == 0, "every thread takes the same number of items");
    CUTLASS_PRAGMA_UNROLL
    for (int j = 0; j < kItems; ++j) {
      const int item = thread_idx + j * kThreads;
      const int stage_row = item / kItemsPerRow;
      const int slot0 = (item % (kRotarySlots / kVector)) * kVector;
      const int first0 = (item % kItemsPerRow) / (kRotarySlots / kVector) * kHeadDim + slot0;
      const int second0 = first0 + kRotarySlots;
      const int tile_row_index = tile_row(pass, stage_row);
      const int row = tile_row0 + tile_row_index;
      if (row >= rows) continue;
      const float position = shared.positions[tile_row_index][0];
      float first[kVector];
      float second[kVector];
      float bias_first[kVector];
      float bias_second[kVector];
      float inv_freq[kVector];
      load_float8(shared.stage + stage_row * kStageLd + first0, first);
      load_float8(shared.stage + stage_row * kStageLd + second0, second);
      load_float8(shared.bias + first0, bias_first);
      load_float8(shared.bias + second0, bias_second);
      load_float8(shared.language_inv_freq + slot0, inv_freq);
      CUTLASS_PRAGMA_UNROLL
      for (int v = 0; v < kVector; ++v) {
        rotate_language(position * inv_freq[v], first[v] + bias_first[v], second[v] + bias_second[v], group,
                        first[v], second[v]);
      }
      store_bf16x8(first, row, tile_col0 + first0, group);
      store_bf16x8(second, row, tile_col0 + second0, group);
    }
  }

  // One rotary pair of Q: x_first = x[c] and x_second = x[c+64] with their bias; scale after the rotation.
  CUTLASS_DEVICE static void rotate_language(float angle, float x_first, float x_second, EpilogueGroup const& group,
                                             float& first, float& second) {
    float cos_value = 0.0f;
    float sin_value = 0.0f;
    rope_cos_sin(angle, cos_value, sin_value);
    const RotatedPair rotated = rotate_pair(x_first, x_second, cos_value, sin_value, group.rope_arithmetic);
    first = rotated.first * group.scale;
    second = rotated.second * group.scale;
  }

  // Eight floats from 16-byte aligned shared memory, in two 16-byte loads.
  CUTLASS_DEVICE static void load_float8(const float* source, float (&values)[kVector]) {
    *reinterpret_cast<float4*>(values) = reinterpret_cast<const float4*>(source)[0];
    *reinterpret_cast<float4*>(values + 4) = reinterpret_cast<const float4*>(source)[1];
  }

  // Eight values as bf16 (16 bytes) to columns [col, col+8) of a row of the group's output.
  CUTLASS_DEVICE void store_bf16x8(const float (&values)[kVector], int row, int col, EpilogueGroup const& group) const {
    alignas(16) __nv_bfloat162 packed[kVector / 2];
    CUTLASS_PRAGMA_UNROLL
    for (int v = 0; v < kVector / 2; ++v) packed[v] = __floats2bfloat162_rn(values[2 * v], values[2 * v + 1]);
    __nv_bfloat16* destination = group.output + static_cast<std::int64_t>(row) * params_.output_ld + col;
    *reinterpret_cast<uint4*>(destination) = *reinterpret_cast<const uint4*>(packed);
  }

  Params params_;
};

}  // namespace vlb::fused_b200::sm90
