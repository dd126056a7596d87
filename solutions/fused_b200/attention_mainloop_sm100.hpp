#pragma once
// The sm100a attention mainloop's producer roles (included by attention_kernel_sm100.hpp): the load warp's TMA loads
// and the MMA warp's tcgen05.mma issue. Both walk the tile's KV blocks from the last to the first, so that the only
// partial block (the tail of Lv) is the first one the softmax sees, the only one masked.
//
// Per tile, the MMA warp issues S_0, S_1, P_0 V_0, S_2, P_1 V_1, ...: S of the next block goes to the other score
// buffer while the softmax warps turn this one into P, and each P V waits for its P (and for O rescaled).
#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>

#include "solutions/fused_b200/attention_config_sm100.hpp"
#include "solutions/fused_b200/attention_tma.hpp"

namespace vlb::fused_b200::sm100 {

template <class Config>
struct AttentionMainloop {
  using Element = typename Config::Element;
  using SharedStorage = typename Config::SharedStorage;
  using KvPipeline = typename Config::KvPipeline;
  static constexpr int kBlockN = Config::kBlockN;

  struct Pipelines {
    typename Config::QueryPipeline& q;
    KvPipeline& k;
    KvPipeline& v;
    typename Config::ScorePipeline& score;
    typename Config::ProbabilityPipeline& probability;
    typename Config::OutputPipeline& output;
  };

  // ---- load warp (one lane issues every load) ----

  CUTE_DEVICE static void load_tile(const CUtensorMap& map, std::uint64_t* barrier, Element* smem, int tile_rows,
                                    int head, int token, int batch, cute::TMA::CacheHintSm90 hint) {
    load_head_tile<Config::kBoxColumns, Config::kBoxesPerRow>(map, barrier, smem, tile_rows, head, token, batch, hint);
  }

  CUTE_DEVICE static void load_kv_block(const CUtensorMap& map, KvPipeline& pipeline,
                                        typename KvPipeline::PipelineState& state, Element* smem, int kv_block,
                                        const AttentionTile& tile) {
    pipeline.producer_acquire(state);  // also arms the stage's barrier with the tile's bytes
    auto* barrier = reinterpret_cast<std::uint64_t*>(pipeline.producer_get_barrier(state));
    // K and V are read by every token block of their (batch, kv head): keep them in L2.
    load_tile(map, barrier, smem + state.index() * kBlockN * Config::kHeadDim, kBlockN, tile.kv_head,
              kv_block * kBlockN, tile.batch, cute::TMA::CacheHintSm90::EVICT_LAST);
    ++state;
  }

  // Q once per tile, then K and V from the last block to the first, each V one block behind its K, the order in
  // which the MMA warp reads them.
  CUTE_DEVICE static void load(const AttentionParams& params, SharedStorage& storage, Pipelines pipelines) {
    auto q_write = cutlass::make_producer_start_state<typename Config::QueryPipeline>();
    auto k_write = cutlass::make_producer_start_state<KvPipeline>();
    auto v_write = cutlass::make_producer_start_state<KvPipeline>();
    for (const AttentionStep step : AttentionTileScheduler(params.walk, blockIdx.x, gridDim.x)) {
      const AttentionTile& tile = step.tile;
      pipelines.q.producer_acquire(q_write);
      load_tile(params.q, reinterpret_cast<std::uint64_t*>(pipelines.q.producer_get_barrier(q_write)),
                storage.q.data(), Config::kBlockM, tile.kv_head * kQueryHeadsPerKvHead,
                tile.token_block * kTokensPerTile, tile.batch, cute::TMA::CacheHintSm90::EVICT_FIRST);
      ++q_write;
      const int last = params.walk.kv_blocks - 1;
      load_kv_block(params.k, pipelines.k, k_write, storage.k.data(), last, tile);
      for (int block = last; block > 0; --block) {
        load_kv_block(params.k, pipelines.k, k_write, storage.k.data(), block - 1, tile);
        load_kv_block(params.v, pipelines.v, v_write, storage.v.data(), block, tile);
      }
      load_kv_block(params.v, pipelines.v, v_write, storage.v.data(), 0, tile);
    }
  }

  // ---- MMA warp (all 32 lanes call in; the MMA and commit atoms elect one lane) ----

  // Issues one product over the whole K extent of the operands; `zero`: the first k step overwrites the accumulator.
  template <class TiledMma, class TensorA, class TensorB, class TensorC>
  CUTE_DEVICE static void issue_gemm(TiledMma& mma, const TensorA& a, const TensorB& b, TensorC& c, bool zero) {
    mma.accumulate_ = zero ? cute::UMMA::ScaleOut::Zero : cute::UMMA::ScaleOut::One;
    CUTE_UNROLL
    for (int k_step = 0; k_step < cute::size<2>(a); ++k_step) {
      cute::gemm(mma, a(cute::_, cute::_, k_step), b(cute::_, cute::_, k_step), c);
      mma.accumulate_ = cute::UMMA::ScaleOut::One;
    }
  }

  CUTE_DEVICE static void mma(const AttentionParams& params, SharedStorage& storage, std::uint32_t tmem_base,
                              Pipelines pipelines) {
    using namespace cute;
    typename Config::TiledMmaQK mma_qk;
    typename Config::TiledMmaPV mma_pv;
    auto thread_qk = mma_qk.get_slice(0);
    auto thread_pv = mma_pv.get_slice(0);

    Tensor smem_q = make_tensor(make_smem_ptr(storage.q.data()), typename Config::SmemLayoutQ{});
    Tensor smem_k = make_tensor(make_smem_ptr(storage.k.data()), typename Config::SmemLayoutKV{});
    Tensor smem_vt = make_tensor(make_smem_ptr(storage.v.data()), typename Config::SmemLayoutVt{});
    Tensor smem_p = make_tensor(make_smem_ptr(storage.p.data()), typename Config::SmemLayoutP{});
    Tensor q_operand = thread_qk.partition_fragment_A(smem_q);   // (MMA, MMA_M, MMA_K) descriptors
    Tensor k_operand = thread_qk.partition_fragment_B(smem_k);   // (MMA, MMA_N, MMA_K, stage)
    Tensor p_operand = thread_pv.partition_fragment_A(smem_p);   // (MMA, MMA_M, MMA_K)
    Tensor v_operand = thread_pv.partition_fragment_B(smem_vt);  // (MMA, MMA_N, MMA_K, stage)

    Tensor scores = partition_fragment_C(mma_qk, Shape<Int<Config::kBlockM>, Int<Config::kBlockN>>{});
    Tensor output = partition_fragment_C(mma_pv, Shape<Int<Config::kBlockM>, Int<Config::kHeadDim>>{});
    output.data() = tmem_base + Config::kOutputColumn;

    typename Config::QueryPipeline::PipelineState q_read;
    typename KvPipeline::PipelineState k_read;
    typename KvPipeline::PipelineState v_read;
    typename Config::ProbabilityPipeline::PipelineState p_read;
    auto s_write = cutlass::make_producer_start_state<typename Config::ScorePipeline>();
    auto o_write = cutlass::make_producer_start_state<typename Config::OutputPipeline>();

    // O += P V for the block whose P the softmax warps commit next; the tile's first overwrites O, once the previous
    // tile's O has been read.
    auto issue_pv = [&](bool first_of_tile) {
      if (first_of_tile) pipelines.output.producer_acquire(o_write);
      pipelines.probability.consumer_wait(p_read);
      pipelines.v.consumer_wait(v_read);
      issue_gemm(mma_pv, p_operand, v_operand(_, _, _, v_read.index()), output, first_of_tile);
      pipelines.probability.consumer_release(p_read);  // P's buffer (and O) free once this product completes
      ++p_read;
      pipelines.v.consumer_release(v_read);
      ++v_read;
    };

    for ([[maybe_unused]] const AttentionStep tile_step : AttentionTileScheduler(params.walk, blockIdx.x, gridDim.x)) {
      pipelines.q.consumer_wait(q_read);
      for (int step = 0; step < params.walk.kv_blocks; ++step) {
        pipelines.k.consumer_wait(k_read);
        pipelines.score.producer_acquire(s_write);
        scores.data() = tmem_base + s_write.index() * Config::kScoreColumns;
        issue_gemm(mma_qk, q_operand, k_operand(_, _, _, k_read.index()), scores, true);
        pipelines.score.producer_commit(s_write);  // the softmax may read S once the product completes
        ++s_write;
        pipelines.k.consumer_release(k_read);
        ++k_read;
        if (step == params.walk.kv_blocks - 1) {
          pipelines.q.consumer_release(q_read);  // the next tile's Q may load once these products complete
          ++q_read;
        }
        if (step > 0) issue_pv(step == 1);
      }
      issue_pv(params.walk.kv_blocks == 1);
      pipelines.output.producer_commit(o_write);  // O of the tile is complete once every product completes
      ++o_write;
    }
    // Tensor memory is freed only after the softmax warps have read the last O.
    pipelines.output.producer_tail(o_write);
  }
};

}  // namespace vlb::fused_b200::sm100
