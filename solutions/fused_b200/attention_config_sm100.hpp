#pragma once
// The sm100a attention kernel's configuration (included by the sm100 attention files only): tile shapes, the two
// tcgen05 TiledMmas, the shared-memory layouts that TMA and the softmax warps fill and tcgen05.mma reads, the
// tensor-memory columns, the pipelines and the kernel parameters.
//
// Shape of a CTA (192 threads, one CTA per SM): warps 0-3 are the softmax warpgroup, thread t owning tile row t,
// which is tensor-memory lane t (a warp reaches only its own 32 lanes, so these must be warps 0-3); warp 4 allocates
// tensor memory and issues every MMA from one lane; warp 5 issues the TMA loads from one lane.
#include <cuda.h>
#include <cuda_bf16.h>

#include <cute/arch/tmem_allocator_sm100.hpp>
#include <cute/tensor.hpp>
#include <cutlass/bfloat16.h>
#include <cutlass/pipeline/pipeline.hpp>

#include <cstdint>

#include "solutions/fused_b200/attention_schedule.hpp"

namespace vlb::fused_b200::sm100 {

struct AttentionConfig {
  using Element = cutlass::bfloat16_t;

  static constexpr int kHeadDim = ::vlb::fused_b200::kHeadDim;
  static constexpr int kBlockM = kAttentionBlockM;  // 4 query heads x 32 tokens
  static constexpr int kBlockN = 128;               // keys per KV tile
  static constexpr int kStages = 2;                 // K (and V) tiles in flight
  // A 128-byte-swizzled TMA box is 64 bf16 wide: a head (128 columns) is two boxes.
  static constexpr int kBoxColumns = 64;
  static constexpr int kBoxesPerRow = kHeadDim / kBoxColumns;

  static constexpr int kSoftmaxThreads = 128;
  static constexpr int kMmaWarp = 4;
  static constexpr int kLoadWarp = 5;
  static constexpr int kThreads = 192;
  static_assert(kSoftmaxThreads == kBlockM, "one softmax thread per tile row (tensor-memory lane)");

  // Tensor memory (fp32, one column per element of a 128-lane row): two score buffers, so that S of the next block
  // is computed while the softmax reads this one, and the output accumulator.
  static constexpr std::uint32_t kScoreColumns = kBlockN;
  static constexpr std::uint32_t kScoreBuffers = 2;
  static constexpr std::uint32_t kOutputColumn = kScoreBuffers * kScoreColumns;  // 256
  static constexpr std::uint32_t kUsedColumns = kOutputColumn + kHeadDim;        // 384
  static constexpr int kAllocatedColumns = 512;  // an allocation is a power of two of at least 32 columns
  static_assert(kUsedColumns <= kAllocatedColumns && kAllocatedColumns <= 512);

  // S = Q K^T: (128 rows, 128 keys), both operands K-major in shared memory, fp32 accumulators in tensor memory.
  using TiledMmaQK = decltype(cute::make_tiled_mma(
      cute::SM100_MMA_F16BF16_SS<Element, Element, float, kBlockM, kBlockN, cute::UMMA::Major::K,
                                 cute::UMMA::Major::K>{}));
  // O += P V: (128 rows, 128 dims); P (bf16, written by the softmax warps) K-major, V read MN-major.
  using TiledMmaPV = decltype(cute::make_tiled_mma(
      cute::SM100_MMA_F16BF16_SS<Element, Element, float, kBlockM, kHeadDim, cute::UMMA::Major::K,
                                 cute::UMMA::Major::MN>{}));

  // Every tile is [rows][128] with 128-byte swizzled rows of 64 columns, stored as two column halves: what two TMA
  // boxes (64 columns, all rows) write, and the canonical K-major SW128 layout tcgen05.mma reads.
  using SmemAtom = cute::UMMA::Layout_K_SW128_Atom<Element>;
  using SmemLayoutQ = decltype(cute::tile_to_shape(SmemAtom{}, cute::Shape<cute::Int<kBlockM>, cute::Int<kHeadDim>>{}));
  using SmemLayoutKV = decltype(cute::tile_to_shape(
      SmemAtom{}, cute::Shape<cute::Int<kBlockN>, cute::Int<kHeadDim>, cute::Int<kStages>>{}));
  // V seen as the P V product's B operand: (head_dim, keys, stage), the same bytes.
  using SmemLayoutVt = decltype(cute::composition(
      SmemLayoutKV{},
      cute::make_ordered_layout(cute::Shape<cute::Int<kHeadDim>, cute::Int<kBlockN>, cute::Int<kStages>>{},
                                cute::Step<cute::_2, cute::_1, cute::_3>{})));
  using SmemLayoutP = decltype(cute::tile_to_shape(SmemAtom{}, cute::Shape<cute::Int<kBlockM>, cute::Int<kBlockN>>{}));

  static constexpr std::uint32_t kQTileBytes = kBlockM * kHeadDim * sizeof(Element);
  static constexpr std::uint32_t kKvTileBytes = kBlockN * kHeadDim * sizeof(Element);

  // TMA -> MMA (Q, K, V), released by tcgen05.commit when the MMAs reading a stage complete. A static 1x1 cluster:
  // the release is a plain (not multicast) tcgen05.commit.
  using Cluster = cute::Shape<cute::_1, cute::_1, cute::_1>;
  using QueryPipeline = cutlass::PipelineTmaUmmaAsync<1, Cluster>;
  using KvPipeline = cutlass::PipelineTmaUmmaAsync<kStages, Cluster>;
  // MMA -> softmax: S in tensor memory, committed by tcgen05.commit, released by the 128 softmax threads.
  using ScorePipeline = cutlass::PipelineUmmaAsync<kScoreBuffers>;
  // softmax -> MMA: P in shared memory and O rescaled, released by tcgen05.commit when P V completes. One buffer: the
  // softmax's wait for it is also its wait for the previous P V, before it may rescale O.
  using ProbabilityPipeline = cutlass::PipelineUmmaConsumerAsync<1>;
  // MMA -> softmax: the tile's O is complete; released once the softmax warps have read it.
  using OutputPipeline = cutlass::PipelineUmmaAsync<1>;

  struct SharedStorage {
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutQ>, 1024> q;
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutKV>, 1024> k;
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutKV>, 1024> v;
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutP>, 1024> p;
    alignas(16) typename QueryPipeline::SharedStorage q_pipeline;
    alignas(16) typename KvPipeline::SharedStorage k_pipeline;
    alignas(16) typename KvPipeline::SharedStorage v_pipeline;
    alignas(16) typename ScorePipeline::SharedStorage score_pipeline;
    alignas(16) typename ProbabilityPipeline::SharedStorage probability_pipeline;
    alignas(16) typename OutputPipeline::SharedStorage output_pipeline;
    std::uint32_t tmem_base;  // written by tcgen05.alloc
  };
  // The dynamic shared memory base is aligned up to 1024 bytes inside the kernel (128-byte swizzle atoms).
  static constexpr int kSharedBytes = static_cast<int>(sizeof(SharedStorage)) + 1024;
  static_assert(kSharedBytes <= 227 * 1024, "shared memory per CTA exceeds the sm_100 limit");
};

// Kernel parameters: 4-D TMA descriptors (head_dim, heads, tokens, batch) of Q, K and V; the output is written by
// the softmax threads, one row (256 contiguous bytes) each.
struct AttentionParams {
  CUtensorMap q;  // box (64, 4, 32, 1): one column half of a 128-row tile
  CUtensorMap k;  // box (64, 1, kBlockN, 1)
  CUtensorMap v;  // box (64, 1, kBlockN, 1)
  __nv_bfloat16* out = nullptr;  // [B, Lq, 32, 128]
  std::int64_t lang_seq = 0;
  AttentionWalk walk;
};

}  // namespace vlb::fused_b200::sm100
