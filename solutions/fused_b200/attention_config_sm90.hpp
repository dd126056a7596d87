#pragma once
// The sm90a attention kernel's configuration (included by the sm90 attention files only): tile shapes, the two
// wgmma TiledMmas, the shared-memory layouts that TMA fills and wgmma reads, the pipelines, the kernel parameters
// and the named barriers.
//
// Shape of a CTA: a producer warpgroup (warp 0 issues TMA; warps 1-3 rotate Q where the kernel applies Q's RoPE) and
// two consumer warpgroups, each owning 64 of the tile's 128 query rows (FlashAttention-3's forward layout for head_dim
// 128). K and V tiles stream through kStages-deep TMA pipelines.
#include <cuda.h>
#include <cuda_bf16.h>

#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/bfloat16.h>
#include <cutlass/pipeline/pipeline.hpp>

#include <cstdint>

#include "solutions/fused_b200/attention_schedule.hpp"
#include "solutions/fused_b200/epilogue_math.hpp"

namespace vlb::fused_b200::sm90 {

// Where a CTA's step finds its Q: the stage, and the parity its stage's barriers complete with for that step.
struct QueryStage {
  int index = 0;
  std::uint32_t phase = 0;
};

// kTailBlockN_: the width at which the last KV block (the tail of Lv, the only partial one) runs: its S = Q K^T at
// that many keys and its P V at that depth, so the keys past Lv cost nothing beyond the tail's rounding up to it.
template <int kBlockN_, int kStages_, int kTailBlockN_ = kBlockN_>
struct AttentionConfig {
  using Element = cutlass::bfloat16_t;

  static constexpr int kHeadDim = ::vlb::fused_b200::kHeadDim;
  static constexpr int kBlockM = kAttentionBlockM;  // 4 query heads x 32 tokens
  static constexpr int kBlockN = kBlockN_;          // keys per KV tile
  static constexpr int kStages = kStages_;          // K (and V) tiles in flight
  // Q tiles in flight: the next tile's Q lands (and, with Q's RoPE in the kernel, is rotated) while the consumers
  // still compute on this one's (v17).
  static constexpr int kQueryStages = 2;
  static constexpr int kTailBlockN = kTailBlockN_;  // keys computed of the last KV block
  static constexpr int kConsumerWarpGroups = 2;
  static constexpr int kRowsPerConsumer = kBlockM / kConsumerWarpGroups;  // 64: one wgmma M
  static constexpr int kConsumerThreads = kConsumerWarpGroups * 128;
  static constexpr int kThreads = kConsumerThreads + 128;  // + the producer warpgroup
  // The producer warpgroup's warps 1-3 rotate each tile's Q (AttentionQueryRope) while warp 0 issues the loads.
  static constexpr int kQueryRopeThreads = 96;
  // Register split (setmaxnreg): the producer needs few; the consumers hold S, P and O (64 + 32 + 64 per thread at
  // 128 keys). The CTA keeps the registers it was launched with (the 1-CTA-per-SM cap), so what the consumers gain
  // the producer must give up: a larger total makes setmaxnreg.inc wait forever.
  static constexpr int kLaunchRegisters = 64 * 1024 / kThreads / 8 * 8;  // 168
  // The budget's exact remainder: the split last wave's walk (AttentionSplit) spilled in 32, and the warps that
  // rotate Q hold a token's angles and its four heads' pairs at once.
  static constexpr int kProducerRegisters = 40;
  static constexpr int kConsumerRegisters = 232;
  // A 128-byte-swizzled TMA box is 64 bf16 wide: a head (128 columns) is two boxes.
  static constexpr int kBoxColumns = 64;
  static constexpr int kBoxesPerRow = kHeadDim / kBoxColumns;

  static_assert(kBlockN % 16 == 0 && kBlockN >= 16 && kBlockN <= 256, "kBlockN: a multiple of 16 up to 256 (wgmma N)");
  static_assert(kTailBlockN % 16 == 0 && kTailBlockN >= 16 && kTailBlockN <= kBlockN,
                "kTailBlockN: a multiple of 16 (P V's k-step) up to kBlockN");
  static_assert(kStages >= 2, "kStages: at least 2 so that a load overlaps the product");
  static_assert(kRowsPerConsumer == 64, "one 64-row wgmma per consumer warpgroup");
  static_assert(kProducerRegisters * 128 + kConsumerRegisters * kConsumerThreads <= kLaunchRegisters * kThreads,
                "the register split needs more registers than the CTA is launched with");

  // S = Q K^T: both operands from shared memory, K-major.
  using TiledMmaQK = decltype(cute::make_tiled_mma(
      cute::GMMA::ss_op_selector<Element, Element, float,
                                 cute::Shape<cute::Int<kRowsPerConsumer>, cute::Int<kBlockN>, cute::Int<kHeadDim>>>(),
      cute::Layout<cute::Shape<cute::Int<kConsumerWarpGroups>, cute::_1, cute::_1>>{}));
  // O += P V: P from registers (the scores' accumulators, rounded to bf16), V from shared memory read MN-major.
  using TiledMmaPV = decltype(cute::make_tiled_mma(
      cute::GMMA::rs_op_selector<Element, Element, float,
                                 cute::Shape<cute::Int<kRowsPerConsumer>, cute::Int<kHeadDim>, cute::Int<kBlockN>>,
                                 cute::GMMA::Major::K, cute::GMMA::Major::MN>(),
      cute::Layout<cute::Shape<cute::Int<kConsumerWarpGroups>, cute::_1, cute::_1>>{}));
  // S of the last KV block at kTailBlockN keys. A wgmma accumulator's registers run column block by column block,
  // so the tail's scores are the first registers of a full block's; its P V is the full product's first k-steps.
  using TailShapeQK = cute::Shape<cute::Int<kRowsPerConsumer>, cute::Int<kTailBlockN>, cute::Int<kHeadDim>>;
  using TiledMmaQKTail = decltype(cute::make_tiled_mma(
      cute::GMMA::ss_op_selector<Element, Element, float, TailShapeQK>(),
      cute::Layout<cute::Shape<cute::Int<kConsumerWarpGroups>, cute::_1, cute::_1>>{}));

  // Every tile is [rows][head_dim] with 128-byte swizzled rows of 64 columns, stored as two column halves:
  // exactly what two TMA boxes (64 columns, all rows) write, and what wgmma reads.
  using SmemAtom = cute::GMMA::Layout_K_SW128_Atom<Element>;
  using SmemLayoutQ =
      decltype(cute::tile_to_shape(SmemAtom{}, cute::Shape<cute::Int<kBlockM>, cute::Int<kHeadDim>>{}));
  using SmemLayoutKV = decltype(cute::tile_to_shape(
      SmemAtom{}, cute::Shape<cute::Int<kBlockN>, cute::Int<kHeadDim>, cute::Int<kStages>>{}));
  // V seen as the P V product's B operand: (head_dim, keys, stage), the same bytes.
  using SmemLayoutVt = decltype(cute::composition(
      SmemLayoutKV{},
      cute::make_ordered_layout(cute::Shape<cute::Int<kHeadDim>, cute::Int<kBlockN>, cute::Int<kStages>>{},
                                cute::Step<cute::_2, cute::_1, cute::_3>{})));
  // The first kTailBlockN keys of each K stage (TiledMmaQKTail's B operand), the same bytes; the strides are those of
  // a full (kBlockN, kHeadDim, kStages) tile's coordinates.
  using SmemLayoutKTail = decltype(cute::composition(
      SmemLayoutKV{}, cute::make_layout(cute::Shape<cute::Int<kTailBlockN>, cute::Int<kHeadDim>, cute::Int<kStages>>{},
                                        cute::Stride<cute::_1, cute::Int<kBlockN>, cute::Int<kBlockN * kHeadDim>>{})));
  using SmemLayoutO = SmemLayoutQ;

  static constexpr std::uint32_t kQTileBytes = kBlockM * kHeadDim * sizeof(Element);
  static constexpr std::uint32_t kKvTileBytes = kBlockN * kHeadDim * sizeof(Element);

  using Pipeline = cutlass::PipelineTmaAsync<kStages>;
  using PipelineState = cutlass::PipelineState<kStages>;

  static constexpr int kQueryElements = cute::cosize_v<SmemLayoutQ>;
  CUTE_HOST_DEVICE static QueryStage query_stage(int iteration) {
    return {iteration % kQueryStages, static_cast<std::uint32_t>(iteration / kQueryStages) & 1u};
  }

  struct SharedStorage {
    cute::array_aligned<Element, kQueryElements * kQueryStages, 1024> q;  // stage s at q.data() + s * kQueryElements
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutKV>, 1024> k;
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutKV>, 1024> v;
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutO>, 1024> out;
    alignas(16) typename Pipeline::SharedStorage k_pipeline;
    alignas(16) typename Pipeline::SharedStorage v_pipeline;
    // Per Q stage: landed (TMA), released by the consumers, and with Q's RoPE in the kernel rotated; the tile's token
    // positions and its token block (-1 after the CTA's last tile) for the warps that rotate it.
    alignas(8) cutlass::arch::ClusterTransactionBarrier q_full[kQueryStages];
    alignas(8) cutlass::arch::ClusterBarrier q_empty[kQueryStages];
    alignas(8) cutlass::arch::ClusterBarrier q_rotated[kQueryStages];
    float q_positions[kQueryStages][kTokensPerTile];
    int q_token_block[kQueryStages];
  };
  // The dynamic shared memory base is aligned up to 1024 bytes inside the kernel (128-byte swizzle atoms).
  static constexpr int kSharedBytes = static_cast<int>(sizeof(SharedStorage)) + 1024;
  static_assert(kSharedBytes <= 227 * 1024, "shared memory per CTA exceeds the sm_90 limit");
};

// Kernel parameters: 4-D TMA descriptors (head_dim, heads, tokens, batch) of Q, K, V and the output.
struct AttentionParams {
  CUtensorMap q;    // box (64, 4, 32, 1): one column half of a 128-row tile
  CUtensorMap k;    // box (64, 1, kBlockN, 1)
  CUtensorMap v;    // box (64, 1, kBlockN, 1)
  CUtensorMap out;  // box (64, 4, 16, 1): one column half of a consumer warpgroup's 64 rows
  AttentionWalk walk;  // tiles, token blocks, KV blocks, keys in the last KV block (1 .. kBlockN)
  // Q's RoPE in the kernel (AttentionQueryRope): positions [batch, lang_seq], or nullptr where Q is rotated already.
  const std::int64_t* q_positions = nullptr;
  std::int64_t lang_seq = 0;
  RopeArithmetic q_rope_arithmetic = RopeArithmetic::kFp32;
  // V's bias, added to the normalized output (AttentionBiases), or nullptr where V carries it.
  const __nv_bfloat16* v_bias = nullptr;
  // The split last wave's partials and flags (attention_split_sm90.hpp), where walk.split is active.
  float* split_partials = nullptr;
  unsigned* split_flags = nullptr;
};

// Named barriers (ids after CUTLASS's reserved ones).
enum class AttentionBarrier : std::uint32_t {
  kMmaWarpGroup0 = 1,    // kMmaWarpGroup0 + w: warpgroup w may issue its GEMMs (the two take turns)
  kEpilogue0 = 3,        // kEpilogue0 + w: warpgroup w's output staging
  kSplit0 = 5,           // kSplit0 + w: warpgroup w's partial written, or its peers' partials published to it
  kFirstQueryRotated = 7,  // the CTA's first Q, rotated by the rotating and the consumer warps together
                           // (7 + CUTLASS's 8 reserved ids: 15, the last of the 16 hardware barriers)
};

CUTE_DEVICE void named_barrier_sync(int threads, AttentionBarrier barrier, int offset = 0) {
  cutlass::arch::NamedBarrier::sync(threads, static_cast<std::uint32_t>(barrier) + offset);
}
CUTE_DEVICE void named_barrier_arrive(int threads, AttentionBarrier barrier, int offset = 0) {
  cutlass::arch::NamedBarrier::arrive(threads, static_cast<std::uint32_t>(barrier) + offset);
}

}  // namespace vlb::fused_b200::sm90
