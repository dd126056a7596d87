#pragma once
// The epilogue collective of the sm90 projection GEMMs (included by projection_gemm_sm90_kernel.hpp only).
//
// It follows the interface of CUTLASS's no-smem DefaultEpilogue (wrapped by Sm90TmaWarpSpecializedAdapter, so the
// warp-specialized kernels call it with a whole tile's fp32 accumulators: both consumer warpgroups' on the
// cooperative kernel, one warpgroup's on ping-pong, where the kernel runs the two warpgroups' epilogues one after the
// other), but stages the tile through shared memory: the RoPE partner of an element (distance 64 for Q, 21 or 22 for
// K's sections) lives in another thread's registers, and staging makes that independent of the wgmma accumulator
// layout. The tile's bias and row positions are loaded into shared memory once per tile. The staged tile is written
// row-major with 16-byte stores. Per group (the L index of the launch): its own output, bias, RoPE kind and positions.
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
  static constexpr int kVector = 8;                          // bf16 per 16-byte store
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

  struct SharedStorage {
    alignas(16) float stage[kStageRows * kStageLd];
    alignas(16) float bias[kBlockN];          // the tile's bias, loaded once per tile (one element per thread)
    alignas(16) float positions[kBlockM][3];  // the tile's rows' positions (t only for Q; t, h, w for K)
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
    float* stage = shared.stage;
    // Bias and positions of the tile go to shared memory first (one global load per thread, no registers held):
    // visible to all after the first pass's barrier; the previous tile's last barrier ended every read of them.
    static_assert(kThreads >= kBlockN && kThreads >= kBlockM, "one bias element and one row's positions per thread");
    if (thread_idx < kBlockN) {
      shared.bias[thread_idx] = group.bias != nullptr ? __bfloat162float(group.bias[tile_col0 + thread_idx]) : 0.0f;
    }
    if (thread_idx < kBlockM) load_row_positions(group, rows, tile_row0 + thread_idx, shared.positions[thread_idx]);
    CUTLASS_PRAGMA_UNROLL
    for (int pass = 0; pass < kBlockM / kStageRows; ++pass) {
      const int stage_row0 = tile_row0 + pass * kStageRows;
      if (stage_row0 < rows) {  // uniform over the CTA: skip passes wholly past the ragged end
        stage_accumulators(accumulators, thread_coords, pass * kStageRows, stage);
        cutlass::arch::NamedBarrier::sync(kThreads, kBarrierId);
        store_stage<kThreads>(group, rows, stage_row0, tile_row0, tile_col0, thread_idx, shared);
        cutlass::arch::NamedBarrier::sync(kThreads, kBarrierId);  // the stage is rewritten by the next pass / tile
      }
    }
  }

 private:
  static constexpr int kChunksPerRow = kBlockN / kVector;

  CUTLASS_DEVICE static void load_row_positions(EpilogueGroup const& group, int rows, int row, float (&position)[3]) {
    position[0] = position[1] = position[2] = 0.0f;
    if (row >= rows) return;
    if (group.rope == static_cast<int>(RopeKind::kLanguage)) {
      position[0] = static_cast<float>(group.positions[row]);
    } else if (group.rope == static_cast<int>(RopeKind::kVision)) {
      const std::int64_t* thw = group.positions + static_cast<std::int64_t>(row) * 3;
      position[0] = static_cast<float>(thw[0]);
      position[1] = static_cast<float>(thw[1]);
      position[2] = static_cast<float>(thw[2]);
    }
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

  // Each thread takes 8 consecutive columns of a row: RoPE from the staged values, one bf16 rounding, 16-byte store.
  template <int kThreads>
  CUTLASS_DEVICE void store_stage(EpilogueGroup const& group, int rows, int stage_row0, int tile_row0, int tile_col0,
                                  int thread_idx, SharedStorage const& shared) const {
    constexpr int kChunks = kStageRows * kChunksPerRow / kThreads;
    static_assert(kStageRows * kChunksPerRow % kThreads == 0, "every thread takes the same number of chunks");
    // Not unrolled: the accumulators of the other pass are still live here (128 per thread on ping-pong), and
    // everything this loop reads is in shared memory, so unrolling buys little and spilled registers (ptxas, v2).
    CUTLASS_PRAGMA_NO_UNROLL
    for (int j = 0; j < kChunks; ++j) {
      const int chunk = thread_idx + j * kThreads;
      const int stage_row = chunk / kChunksPerRow;
      const int col0 = (chunk % kChunksPerRow) * kVector;
      const int row = stage_row0 + stage_row;
      if (row >= rows) continue;
      const float* staged = shared.stage + stage_row * kStageLd;
      const float* position = shared.positions[row - tile_row0];
      float values[kVector];
      finish_chunk(group, col0, position[0], position[1], position[2], staged, shared.bias, values);
      alignas(16) __nv_bfloat162 packed[kVector / 2];
      CUTLASS_PRAGMA_UNROLL
      for (int v = 0; v < kVector / 2; ++v) packed[v] = __floats2bfloat162_rn(values[2 * v], values[2 * v + 1]);
      __nv_bfloat16* destination = group.output + static_cast<std::int64_t>(row) * params_.output_ld + tile_col0 + col0;
      *reinterpret_cast<uint4*>(destination) = *reinterpret_cast<const uint4*>(packed);
    }
  }

  // acc + bias, then RoPE with the partner's acc + bias, then the scale. A chunk of 8 never straddles two heads.
  CUTLASS_DEVICE static void finish_chunk(EpilogueGroup const& group, int col0, float t, float h, float w,
                                          const float* staged, const float* bias, float (&values)[kVector]) {
    const int head_col0 = col0 % kHeadDim;
    const int head_start = col0 - head_col0;  // tile column of the head's first element
    if (group.rope == static_cast<int>(RopeKind::kLanguage)) {
      CUTLASS_PRAGMA_UNROLL
      for (int v = 0; v < kVector; ++v) {
        const RotaryPair pair = language_rotary_pair(head_col0 + v);
        const int partner = head_start + pair.partner;
        values[v] = rope_element(staged[col0 + v] + bias[col0 + v], staged[partner] + bias[partner], t, pair,
                                 group.scale);
      }
    } else if (group.rope == static_cast<int>(RopeKind::kVision)) {
      CUTLASS_PRAGMA_UNROLL
      for (int v = 0; v < kVector; ++v) {
        const RotaryPair pair = vision_rotary_pair(head_col0 + v);
        const int partner = head_start + pair.partner;
        const float position = pair.section == 0 ? t : (pair.section == 1 ? h : w);
        values[v] = rope_element(staged[col0 + v] + bias[col0 + v], staged[partner] + bias[partner], position,
                                 pair, group.scale);
      }
    } else {
      CUTLASS_PRAGMA_UNROLL
      for (int v = 0; v < kVector; ++v) values[v] = (staged[col0 + v] + bias[col0 + v]) * group.scale;
    }
  }

  Params params_;
};

}  // namespace vlb::fused_b200::sm90
