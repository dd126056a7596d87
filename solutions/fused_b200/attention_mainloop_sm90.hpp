#pragma once
// The sm90a attention mainloop (included by attention_kernel_sm90.hpp): the producer warp's TMA loads (Q a tile
// ahead, in two stages), the rotation of Q by the producer warpgroup's other warps where the kernel applies Q's RoPE,
// and the consumer warpgroups' S = Q K^T, online softmax and O += P V over one tile's KV blocks.
//
// Overlap, as FlashAttention-3: (1) inside a warpgroup, each step issues S_j = Q K_j^T and O += P_{j+1} V_{j+1}
// back to back and runs the softmax of S_j while the P V product is on the tensor cores; (2) between the two
// warpgroups, named barriers make them issue their GEMMs in turns, so one's softmax runs under the other's GEMMs.
// KV blocks run from the last to the first, so the only partial block (the tail of Lv) is the first one processed,
// the only one masked, and the only one computed at its own width (Config::kTailBlockN keys). A step of the split
// last wave (AttentionSplit) runs only its blocks [kv_begin, kv_end): without the tail block where kv_end falls
// short of it, and leaves O unnormalized with its softmax state for the split's merge (attention_split_sm90.hpp).
// In the two-pass form (SoftmaxForm::kTwoPass) the step's K blocks come twice: the first pass gathers the rows' max
// and sum, the second is the walk above with P at the reference's rounding points.
#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/numeric_conversion.h>

#include "solutions/fused_b200/attention_config_sm90.hpp"
#include "solutions/fused_b200/attention_softmax.hpp"
#include "solutions/fused_b200/attention_tma.hpp"

namespace vlb::fused_b200::sm90 {

// A wgmma accumulator fragment ((2, 2, V), M, N) seen as (rows, cols): ((2, M), (2, V, N)). On Hopper a thread holds
// 2 adjacent columns of row r and of row r + 8 in each 8-column block.
template <class Layout>
CUTE_HOST_DEVICE constexpr auto accumulator_rows_cols(const Layout& acc) {
  using namespace cute;
  return make_layout(make_layout(get<0, 1>(acc), get<1>(acc)),
                     make_layout(get<0, 0>(acc), get<0, 2>(acc), get<2>(acc)));
}

// The score accumulators ((2, 2, V), M, N) as the A operand of P V from registers: ((2, 2, 2), M, (V/2, N)). Two
// 8-column blocks of S are one 16-deep k-step, in the same register order, so no data moves.
template <class Layout>
CUTE_HOST_DEVICE constexpr auto accumulator_as_operand_a(const Layout& acc) {
  using namespace cute;
  auto column_blocks = logical_divide(get<0, 2>(acc), Int<2>{});
  return make_layout(make_layout(get<0, 0>(acc), get<0, 1>(acc), get<0>(column_blocks)), get<1>(acc),
                     make_layout(get<1>(column_blocks), get<2>(acc)));
}

// Issues one warpgroup GEMM over its first kKSteps k-steps (all of them by default) and commits it; the caller waits
// with cute::warpgroup_wait<n>.
inline constexpr int kAllKSteps = -1;
template <bool kZeroAccumulator, int kKSteps = kAllKSteps, class TiledMma, class TensorA, class TensorB,
          class TensorC>
CUTE_DEVICE void issue_warpgroup_gemm(TiledMma& mma, const TensorA& a, const TensorB& b, TensorC& c) {
  using namespace cute;
  // Shared-memory operands are wgmma descriptors; only a register A (P) needs its registers fenced.
  constexpr bool kAInRegisters =
      !is_same_v<remove_cvref_t<typename TensorA::engine_type::iterator>, GMMA::DescriptorIterator>;
  if constexpr (kAInRegisters) warpgroup_fence_operand(const_cast<TensorA&>(a));
  warpgroup_fence_operand(c);
  warpgroup_arrive();
  if constexpr (kZeroAccumulator) mma.accumulate_ = GMMA::ScaleOut::Zero;
  constexpr int kSteps = kKSteps == kAllKSteps ? decltype(size<2>(a))::value : kKSteps;
  static_assert(kSteps >= 1 && kSteps <= decltype(size<2>(a))::value);
  CUTE_UNROLL
  for (int k_step = 0; k_step < kSteps; ++k_step) {
    gemm(mma, a(_, _, k_step), b(_, _, k_step), c);
    mma.accumulate_ = GMMA::ScaleOut::One;
  }
  warpgroup_commit_batch();
  warpgroup_fence_operand(c);
  if constexpr (kAInRegisters) warpgroup_fence_operand(const_cast<TensorA&>(a));
}

template <class Config>
struct AttentionMainloop {
  using Element = typename Config::Element;
  using Pipeline = typename Config::Pipeline;
  using PipelineState = typename Config::PipelineState;
  using SharedStorage = typename Config::SharedStorage;
  static constexpr int kBlockN = Config::kBlockN;
  static constexpr int kRowsPerThread = 2;  // rows r and r + 8 of the warp's 16
  static constexpr int kKeysPerKStep = 16;   // P V's k-step (wgmma K for bf16)
  static constexpr int kPvKSteps = kBlockN / kKeysPerKStep;
  static constexpr int kTailPvKSteps = Config::kTailBlockN / kKeysPerKStep;
  using Softmax = OnlineSoftmax<kRowsPerThread, 4>;  // a row of the fragment is spread over a quad of lanes

  // ---- producer (lane 0 of the producer warp issues every load) ----

  CUTE_DEVICE static void load_tile(const CUtensorMap& map, std::uint64_t* barrier, Element* smem, int tile_rows,
                                    int head, int token, int batch, cute::TMA::CacheHintSm90 hint) {
    load_head_tile<Config::kBoxColumns, Config::kBoxesPerRow>(map, barrier, smem, tile_rows, head, token, batch, hint);
  }

  CUTE_DEVICE static void load_kv_block(const CUtensorMap& map, Pipeline& pipeline, PipelineState& state,
                                        Element* smem, int kv_block, const AttentionTile& tile) {
    pipeline.producer_acquire(state);
    auto* barrier = reinterpret_cast<std::uint64_t*>(pipeline.producer_get_barrier(state));
    // K and V are read by every token block of their (batch, kv head): keep them in L2.
    load_tile(map, barrier, smem + state.index() * kBlockN * Config::kHeadDim, kBlockN, tile.kv_head,
              kv_block * kBlockN, tile.batch, cute::TMA::CacheHintSm90::EVICT_LAST);
    ++state;
  }

  // A step's Q into its stage, once the consumers have released the tile that used the stage before. With Q's RoPE in
  // the kernel, each lane reads one token's position before that and stages it beside Q; Q's barrier then publishes
  // both, and the tile's token block for the warps that rotate it.
  CUTE_DEVICE static void load_query(const AttentionParams& params, SharedStorage& storage, const AttentionStep& step) {
    const AttentionTile& tile = step.tile;
    const QueryStage stage = Config::query_stage(step.iteration);
    const int lane = static_cast<int>(threadIdx.x);
    float position = 0.0f;
    const std::int64_t token = static_cast<std::int64_t>(tile.token_block) * kTokensPerTile + lane;
    if (params.q_positions != nullptr && token < params.lang_seq) {
      position = static_cast<float>(params.q_positions[tile.batch * params.lang_seq + token]);
    }
    storage.q_empty[stage.index].wait(stage.phase ^ 1u);  // a stage's first use passes at once
    if (params.q_positions != nullptr) {
      storage.q_positions[stage.index][lane] = position;
      if (lane == 0) storage.q_token_block[stage.index] = tile.token_block;
    }
    __syncwarp();
    if (lane == 0) {
      storage.q_full[stage.index].arrive_and_expect_tx(Config::kQTileBytes);
      load_tile(params.q, reinterpret_cast<std::uint64_t*>(&storage.q_full[stage.index]),
                storage.q.data() + stage.index * Config::kQueryElements, Config::kBlockM,
                tile.kv_head * kQueryHeadsPerKvHead, tile.token_block * kTokensPerTile, tile.batch,
                cute::TMA::CacheHintSm90::EVICT_FIRST);
    }
    __syncwarp();
  }

  // K and V from the step's last block to its first, each V one step behind its K so that the first S = Q K^T can
  // start before any V arrives; the next step's Q goes out right after this step's first K, a tile ahead of the
  // consumers, so that it has landed (and been rotated) before they reach it. Its stage frees when the consumers
  // finish the tile before this one: by then they wait on nothing this warp still has to load.
  template <bool kSplitLastWave, bool kTwoPass = false>
  CUTE_DEVICE static void produce(const AttentionParams& params, SharedStorage& storage, Pipeline& k_pipeline,
                                  Pipeline& v_pipeline) {
    PipelineState k_write = cutlass::make_producer_start_state<Pipeline>();
    PipelineState v_write = cutlass::make_producer_start_state<Pipeline>();
    const bool issuing_thread = threadIdx.x == 0;  // the pipelines' leader (it arms their barriers)
    const AttentionTileScheduler<kSplitLastWave> scheduler(params.walk, blockIdx.x, gridDim.x);
    auto next = scheduler.begin();  // every CTA has a step (attention_grid_size)
    AttentionStep step = *next;
    load_query(params, storage, step);
    while (true) {
      ++next;
      const bool more = next != scheduler.end();
      const AttentionTile& tile = step.tile;
      const int last = step.kv_end - 1;
      if (kTwoPass && issuing_thread) {  // the first pass's K, in the second's order
        for (int block = last; block >= step.kv_begin; --block) {
          load_kv_block(params.k, k_pipeline, k_write, storage.k.data(), block, tile);
        }
      }
      if (issuing_thread) load_kv_block(params.k, k_pipeline, k_write, storage.k.data(), last, tile);
      // *next is decoded twice (here and below): held across the K/V loads as a step, it spilled the 40 registers
      // (ptxas: 32 bytes, 108 in the split kernel).
      if (more) load_query(params, storage, *next);
      if (issuing_thread) {
        for (int block = last; block > step.kv_begin; --block) {
          load_kv_block(params.k, k_pipeline, k_write, storage.k.data(), block - 1, tile);
          load_kv_block(params.v, v_pipeline, v_write, storage.v.data(), block, tile);
        }
        load_kv_block(params.v, v_pipeline, v_write, storage.v.data(), step.kv_begin, tile);
      }
      __syncwarp();
      if (!more) break;
      step = *next;
    }
    // With Q's RoPE in the kernel, the warps that rotate Q stop at a token block of -1, published in the stage after
    // the last as a tile's would be, with an arrival in place of the load.
    if (params.q_positions != nullptr) {
      const QueryStage stage = Config::query_stage(step.iteration + 1);
      storage.q_empty[stage.index].wait(stage.phase ^ 1u);
      if (issuing_thread) {
        storage.q_token_block[stage.index] = -1;
        storage.q_full[stage.index].arrive();
      }
    }
  }

  // ---- consumers (two warpgroups; `thread` is 0..255 over both) ----

  // The two warpgroups issue their GEMMs in turns: wait for this one's turn, then hand the turn to the other.
  CUTE_DEVICE static void wait_gemm_turn(int warp_group) {
    named_barrier_sync(Config::kConsumerThreads, AttentionBarrier::kMmaWarpGroup0, warp_group);
  }
  CUTE_DEVICE static void pass_gemm_turn(int warp_group) {
    named_barrier_arrive(Config::kConsumerThreads, AttentionBarrier::kMmaWarpGroup0, 1 - warp_group);
  }
  // Called once before the first tile: warpgroup 0 has the first turn.
  CUTE_DEVICE static void start_consumers(int warp_group) {
    if (warp_group == 0) named_barrier_arrive(Config::kConsumerThreads, AttentionBarrier::kMmaWarpGroup0, 0);
  }
  // The step's last S = Q K^T has been read: the producer may load a later tile's Q into its stage.
  CUTE_DEVICE static void release_query(SharedStorage& storage, const AttentionStep& step) {
    storage.q_empty[Config::query_stage(step.iteration).index].arrive();
  }

  // Where element (row, column) of the Q tile lies in shared memory: what TMA's 128-byte swizzle writes (the
  // tile is two 64-column halves of 128 rows of 128 bytes, each row's eight 16-byte chunks XORed with row % 8), and
  // SmemLayoutQ describes to wgmma. Written out because CuTe's general index math on a runtime coordinate cost the
  // rotation several microseconds per tile (v13c).
  CUTE_DEVICE static int query_smem_offset(int row, int column) {
    constexpr int kHalfElements = Config::kBlockM * Config::kBoxColumns;
    const int in_half = column % Config::kBoxColumns;
    return column / Config::kBoxColumns * kHalfElements + row * Config::kBoxColumns +
           (((in_half / 8) ^ (row % 8)) * 8) + in_half % 8;
  }

  // Q's RoPE (AttentionQueryRope) by the producer warpgroup's warps 1-3, so that the consumers never wait for it (v17:
  // done by the consumers themselves, it held their tensor cores idle at the start of every tile). Each time a tile's
  // Q has landed (q_full) they rotate it in shared memory and publish it (q_rotated), which the consumers wait for
  // instead of q_full; Q lands while the consumers still finish the tile before. They follow the tiles the producer
  // publishes beside Q (the token block, -1 after the last) rather than walk the scheduler: with the split's walk,
  // their 40 registers spilled.
  CUTE_DEVICE static void rotate_queries(const AttentionParams& params, SharedStorage& storage) {
    const int thread = static_cast<int>(threadIdx.x) - 32;  // 0 .. kQueryRopeThreads - 1
    rotate_first_query(params, storage, thread);
    named_barrier_arrive(kFirstQueryRotators, AttentionBarrier::kFirstQueryRotated);
    storage.q_rotated[0].arrive();  // the stage's phase completes as for every later tile
    for (int iteration = 1;; ++iteration) {
      const QueryStage stage = Config::query_stage(iteration);
      storage.q_full[stage.index].wait(stage.phase);
      const int token_block = storage.q_token_block[stage.index];
      if (token_block < 0) return;
      rotate_query_stage<Config::kQueryRopeThreads>(params, storage, stage.index, token_block, thread);
      cutlass::arch::fence_view_async_shared();  // the stores, visible to wgmma's reads through the async proxy
      storage.q_rotated[stage.index].arrive();
    }
  }

  // The CTA's first tile has nothing to hide its rotation under: the consumers would only wait for it. So all the
  // warps that can rotate it do (the three rotating warps and the eight consumer warps: 3 tokens a thread instead of
  // 11, v20), and meet at a named barrier; later tiles are rotated by the three warps while the consumers compute.
  static constexpr int kFirstQueryRotators = Config::kQueryRopeThreads + Config::kConsumerThreads;
  // `thread`: 0 .. kQueryRopeThreads - 1 for the rotating warps, kQueryRopeThreads + the consumer's index after.
  CUTE_DEVICE static void rotate_first_query(const AttentionParams& params, SharedStorage& storage, int thread) {
    storage.q_full[0].wait(0);
    rotate_query_stage<kFirstQueryRotators>(params, storage, 0, storage.q_token_block[0], thread);
    cutlass::arch::fence_view_async_shared();
  }
  // The consumers' part: their share of the first tile's rotation, then the wait for everyone's.
  CUTE_DEVICE static void rotate_first_query_with_consumers(const AttentionParams& params, SharedStorage& storage,
                                                            int consumer_thread) {
    rotate_first_query(params, storage, Config::kQueryRopeThreads + consumer_thread);
    named_barrier_sync(kFirstQueryRotators, AttentionBarrier::kFirstQueryRotated);
  }

  template <int kThreads>
  CUTE_DEVICE static void rotate_query_stage(const AttentionParams& params, SharedStorage& storage, int stage,
                                             int token_block, int thread) {
    const std::int64_t tokens_left = params.lang_seq - static_cast<std::int64_t>(token_block) * kTokensPerTile;
    const int tokens = static_cast<int>(min(static_cast<std::int64_t>(kTokensPerTile), tokens_left));
    // One copy of the loop per arithmetic: with the choice inside it, the loop spilled.
    if (params.q_rope_arithmetic == RopeArithmetic::kReferenceBf16) {
      rotate_query<RopeArithmetic::kReferenceBf16, kThreads>(storage, stage, tokens, thread);
    } else {
      rotate_query<RopeArithmetic::kFp32, kThreads>(storage, stage, tokens, thread);
    }
  }

  // One tile's Q in Q stage `stage` (its first `tokens` tokens) rotated in shared memory by kThreads threads, from the
  // positions the producer staged beside it. A tile row is head + 4 * token (the TMA box's order), and a token's
  // angles are the same for its 4 heads. Thread t takes the adjacent rotary slots 2 (t % 32) and 2 (t % 32) + 1 of
  // its warp's share of the tokens (11 tokens with 3 warps, 3 with 11), each token's 4 heads: one 4-byte load and
  // store per half-row for two pairs, and a warp's 32 threads cover one
  // 128-byte row, one bank each. The token loop stays rolled (unrolled, it spilled: the consumers' registers in v13c);
  // the heads are unrolled, four independent load-rotate-store chains: rolled, the rotation outlasted the shortest
  // tiles (NOTES.md, v17 form c).
  template <RopeArithmetic kArithmetic, int kThreads>
  CUTE_DEVICE static void rotate_query(SharedStorage& storage, int stage, int tokens, int thread) {
    constexpr int kSlotPairs = kRotarySlots / 2;
    constexpr int kTokenGroups = kThreads / kSlotPairs;
    constexpr int kTokensPerThread = (kTokensPerTile + kTokenGroups - 1) / kTokenGroups;
    static_assert(kTokenGroups * kSlotPairs == kThreads, "whole warps, one slot pair per lane");
    const RotaryPair even = language_slot_pair(2 * (thread % kSlotPairs));
    const RotaryPair odd = language_slot_pair(2 * (thread % kSlotPairs) + 1);  // even's neighbour, column for column
    const float even_frequency = rope_inv_freq(even.freq_index, even.width);
    const float odd_frequency = rope_inv_freq(odd.freq_index, odd.width);
    const int first_token = thread / kSlotPairs * kTokensPerThread;
    const int tokens_end = min(first_token + kTokensPerThread, tokens);
    // A pair's partner is 64 columns on, the same column of the other half: one offset serves both.
    static_assert(kHeadDim / 2 == Config::kBoxColumns, "language pairs (i, i + 64) span the two 64-column halves");
    constexpr int kHalfElements = Config::kBlockM * Config::kBoxColumns;
    auto* q = reinterpret_cast<__nv_bfloat16*>(storage.q.data() + stage * Config::kQueryElements);
#pragma unroll 1
    for (int token = first_token; token < tokens_end; ++token) {  // rows past Lq: TMA's zero fill, never stored
      const float position = storage.q_positions[stage][token];
      float even_cos = 0.0f, even_sin = 0.0f, odd_cos = 0.0f, odd_sin = 0.0f;
      // rope_angle's product, with each slot's frequency hoisted out of the loop.
      rope_cos_sin(position * even_frequency, even_cos, even_sin);
      rope_cos_sin(position * odd_frequency, odd_cos, odd_sin);
      CUTE_UNROLL
      for (int head = 0; head < kQueryHeadsPerKvHead; ++head) {
        const int row = token * kQueryHeadsPerKvHead + head;
        auto* first = reinterpret_cast<__nv_bfloat162*>(q + query_smem_offset(row, even.element));
        auto* second = reinterpret_cast<__nv_bfloat162*>(reinterpret_cast<__nv_bfloat16*>(first) + kHalfElements);
        const __nv_bfloat162 x = *first;
        const __nv_bfloat162 partner = *second;
        const RotatedPair low = rotate_pair(__low2float(x), __low2float(partner), even_cos, even_sin, kArithmetic);
        const RotatedPair high = rotate_pair(__high2float(x), __high2float(partner), odd_cos, odd_sin, kArithmetic);
        *first = __floats2bfloat162_rn(low.first, high.first);
        *second = __floats2bfloat162_rn(low.second, high.second);
      }
    }
  }

  template <class Scores>
  CUTE_DEVICE static auto probabilities_as_operand(const Scores& scores) {
    using namespace cute;
    Tensor probabilities = make_tensor<Element>(accumulator_as_operand_a(scores.layout()));
    constexpr int kCount = decltype(size(scores))::value;
    cutlass::NumericArrayConverter<Element, float, kCount> convert;
    *reinterpret_cast<cutlass::Array<Element, kCount>*>(probabilities.data()) =
        convert(*reinterpret_cast<const cutlass::Array<float, kCount>*>(scores.data()));
    return probabilities;
  }

  // P V of the tail block: the full product's first k-steps, P's registers and V's keys alike (a wgmma accumulator
  // runs column block by column block, so the tail's P is the first registers of a full block's P).
  template <class Probabilities, class ValueOperand, class OutputFragment>
  CUTE_DEVICE static void issue_tail_pv(typename Config::TiledMmaPV& mma_pv, const Probabilities& probabilities,
                                        const ValueOperand& v_stage, OutputFragment& output_fragment) {
    issue_warpgroup_gemm<false, kTailPvKSteps>(mma_pv, probabilities, v_stage, output_fragment);
  }

  // One step's KV blocks: on return `output_fragment` holds O (fp32, not yet normalized: normalize()) for the
  // thread's fragment of the tile's rows, and `softmax` the rows' running max and sum over those blocks. A step that
  // starts at the tail block and one that does not (a later piece of a split tile) run separate copies of the loop:
  // with the choice made at run time inside one copy, ptxas serialized the wgmmas for want of registers.
  template <class OutputFragment>
  CUTE_DEVICE static void consume(const AttentionParams& params, SharedStorage& storage, Pipeline& k_pipeline,
                                  Pipeline& v_pipeline, PipelineState& k_read, PipelineState& v_read, int thread,
                                  const AttentionStep& step, Softmax& softmax, OutputFragment& output_fragment) {
    if (step.kv_end == params.walk.kv_blocks) {
      consume_blocks<true>(params, storage, k_pipeline, v_pipeline, k_read, v_read, thread, step, softmax,
                           output_fragment);
    } else {
      consume_blocks<false>(params, storage, k_pipeline, v_pipeline, k_read, v_read, thread, step, softmax,
                            output_fragment);
    }
  }

  // kForm (attention_softmax_form): kOnline, the online softmax over the step's blocks; kOneBlock, the tail block is
  // the step's only one (Lv <= the block): no loop, and the reference's rounding points (reference_rounded, v27);
  // kTwoPass, a first pass over every block for the rows' max and sum, then the walk of kOnline with P at the
  // reference's rounding points and nothing to rescale (v28). Neither reference form is ever split.
  template <bool kStartsAtTail, SoftmaxForm kForm = SoftmaxForm::kOnline, class OutputFragment>
  CUTE_DEVICE static void consume_blocks(const AttentionParams& params, SharedStorage& storage, Pipeline& k_pipeline,
                                         Pipeline& v_pipeline, PipelineState& k_read, PipelineState& v_read,
                                         int thread, const AttentionStep& step, Softmax& softmax,
                                         OutputFragment& output_fragment) {
    using namespace cute;
    constexpr bool kOnline = kForm == SoftmaxForm::kOnline;
    constexpr bool kOnlyBlock = kForm == SoftmaxForm::kOneBlock;
    constexpr bool kTwoPass = kForm == SoftmaxForm::kTwoPass;
    static_assert(kStartsAtTail || kOnline, "a reference form runs whole tiles, from the tail block");
    static_assert(!kTwoPass || Config::kTailBlockN == kBlockN, "the two-pass form runs its tail at the full width");
    const int warp_group = thread / 128;
    typename Config::TiledMmaQK mma_qk;
    typename Config::TiledMmaPV mma_pv;
    typename Config::TiledMmaQKTail mma_qk_tail;
    auto thread_qk = mma_qk.get_thread_slice(thread);
    auto thread_pv = mma_pv.get_thread_slice(thread);
    auto thread_qk_tail = mma_qk_tail.get_thread_slice(thread);

    Tensor smem_q = make_tensor(make_smem_ptr(storage.q.data() + Config::query_stage(step.iteration).index *
                                                                   Config::kQueryElements),
                                typename Config::SmemLayoutQ{});
    Tensor smem_k = make_tensor(make_smem_ptr(storage.k.data()), typename Config::SmemLayoutKV{});
    Tensor smem_k_tail = make_tensor(make_smem_ptr(storage.k.data()), typename Config::SmemLayoutKTail{});
    Tensor smem_vt = make_tensor(make_smem_ptr(storage.v.data()), typename Config::SmemLayoutVt{});
    Tensor q_operand = thread_qk.partition_fragment_A(smem_q);   // (MMA, MMA_M, MMA_K)
    Tensor k_operand = thread_qk.partition_fragment_B(smem_k);   // (MMA, MMA_N, MMA_K, stage)
    Tensor v_operand = thread_pv.partition_fragment_B(smem_vt);  // (MMA, MMA_N, MMA_K, stage)
    Tensor q_tail_operand = thread_qk_tail.partition_fragment_A(smem_q);
    Tensor k_tail_operand = thread_qk_tail.partition_fragment_B(smem_k_tail);

    Tensor score_fragment = partition_fragment_C(mma_qk, Shape<Int<Config::kBlockM>, Int<kBlockN>>{});
    Tensor scores = make_tensor(score_fragment.data(), accumulator_rows_cols(score_fragment.layout()));
    // The tail's scores: the first registers of a full block's (Config::TiledMmaQKTail).
    Tensor tail_score_fragment = make_tensor(
        score_fragment.data(),
        partition_fragment_C(mma_qk_tail, Shape<Int<Config::kBlockM>, Int<Config::kTailBlockN>>{}).layout());
    Tensor tail_scores = make_tensor(tail_score_fragment.data(), accumulator_rows_cols(tail_score_fragment.layout()));
    Tensor tail_key_coordinates_fragment =
        thread_qk_tail.partition_C(make_identity_tensor(Shape<Int<Config::kBlockM>, Int<Config::kTailBlockN>>{}));
    Tensor tail_key_coordinates = make_tensor(tail_key_coordinates_fragment.data(),
                                              accumulator_rows_cols(tail_key_coordinates_fragment.layout()));
    Tensor output = make_tensor(output_fragment.data(), accumulator_rows_cols(output_fragment.layout()));
    static_assert(decltype(size<0>(scores))::value == kRowsPerThread);

    float output_scale[kRowsPerThread];
    float inverse_sum[kRowsPerThread];  // kTwoPass: 1 / each row's sum, from the first pass
    clear(output_fragment);

    // S of the step's last KV block, the first computed. The tail of Lv (the only partial block) is masked and
    // computed at Config::kTailBlockN keys: the scores' registers past it are never read, so their P stays out of the
    // tail's P V.
    const int first_block = step.kv_end - 1;
    const auto first_block_scores = [&] {
      k_pipeline.consumer_wait(k_read);
      wait_gemm_turn(warp_group);
      if constexpr (Config::kTailBlockN == kBlockN || !kStartsAtTail) {
        issue_warpgroup_gemm<true>(mma_qk, q_operand, k_operand(_, _, _, k_read.index()), score_fragment);
      } else {
        issue_warpgroup_gemm<true>(mma_qk_tail, q_tail_operand, k_tail_operand(_, _, _, k_read.index()),
                                   tail_score_fragment);
      }
      pass_gemm_turn(warp_group);
      warpgroup_wait<0>();
      k_pipeline.consumer_release(k_read);
      ++k_read;
      if constexpr (kStartsAtTail) {
        mask_columns(tail_scores, tail_key_coordinates, params.walk.valid_keys_in_last_block);
      }
    };

    // kTwoPass: a warp whose 16 rows all lie past the tile's last token (8 tokens or fewer fill two warps' rows) skips
    // the softmax and takes P = 0 (those rows are never stored). With one tile per CTA, the other warps' share of the
    // issue slots was much of the two passes' cost (v28, v29).
    bool padding_warp = false;
    if constexpr (kTwoPass) {
      const std::int64_t tile_tokens =
          params.lang_seq - static_cast<std::int64_t>(step.tile.token_block) * kTokensPerTile;
      const std::int64_t valid_rows = min(tile_tokens, static_cast<std::int64_t>(kTokensPerTile)) *
                                      kQueryHeadsPerKvHead;
      padding_warp = __all_sync(0xffffffffu, get<0>(tail_key_coordinates(0, 0)) >= valid_rows);
    }

    if constexpr (kTwoPass) {  // the first pass: S of every block, for the rows' max and sum alone
      first_block_scores();
      if (!padding_warp) softmax.template reference_statistics<true>(tail_scores);
      CUTE_NO_UNROLL
      for (int block = first_block - 1; block >= step.kv_begin; --block) {
        k_pipeline.consumer_wait(k_read);
        wait_gemm_turn(warp_group);
        issue_warpgroup_gemm<true>(mma_qk, q_operand, k_operand(_, _, _, k_read.index()), score_fragment);
        pass_gemm_turn(warp_group);
        warpgroup_wait<0>();
        k_pipeline.consumer_release(k_read);
        ++k_read;
        if (!padding_warp) softmax.template reference_statistics<false>(scores);
      }
      softmax.finish_statistics(inverse_sum);
    }

    first_block_scores();
    if (first_block == step.kv_begin) release_query(storage, step);
    if constexpr (kOnlyBlock) {
      softmax.reference_rounded(tail_scores);
    } else if constexpr (kTwoPass) {
      if (padding_warp) {
        clear(score_fragment);
      } else {
        softmax.reference_probabilities(tail_scores, inverse_sum);
      }
    } else if constexpr (kStartsAtTail) {
      softmax.template update<true>(tail_scores, output_scale);
    } else {
      softmax.template update<true>(scores, output_scale);
    }
    auto probabilities = probabilities_as_operand(score_fragment);
    // Whether the first P is the tail's, whose P V runs at the tail's depth.
    constexpr bool kTailInFlight = kTailPvKSteps != kPvKSteps && kStartsAtTail;

    CUTE_NO_UNROLL
    for (int block = first_block - 1; !kOnlyBlock && block >= step.kv_begin; --block) {
      k_pipeline.consumer_wait(k_read);
      wait_gemm_turn(warp_group);
      issue_warpgroup_gemm<true>(mma_qk, q_operand, k_operand(_, _, _, k_read.index()), score_fragment);
      if constexpr (kOnline) {
        if (any_row_rescaled(output_scale)) scale_rows(output, output_scale);
      }
      v_pipeline.consumer_wait(v_read);
      // P V of the block after this one (the tail's on the first step).
      if (kTailInFlight && block == first_block - 1) {
        issue_tail_pv(mma_pv, probabilities, v_operand(_, _, _, v_read.index()), output_fragment);
      } else {
        issue_warpgroup_gemm<false>(mma_pv, probabilities, v_operand(_, _, _, v_read.index()), output_fragment);
      }
      pass_gemm_turn(warp_group);
      warpgroup_wait<1>();  // S of this block is ready; P V of the previous one still runs
      k_pipeline.consumer_release(k_read);
      ++k_read;
      if (block == step.kv_begin) release_query(storage, step);
      if constexpr (kOnline) {
        softmax.template update<false>(scores, output_scale);
      } else if (padding_warp) {
        clear(score_fragment);
      } else {
        softmax.reference_probabilities(scores, inverse_sum);
      }
      warpgroup_wait<0>();  // P V done: its registers (P) and its V stage can be reused
      v_pipeline.consumer_release(v_read);
      ++v_read;
      probabilities = probabilities_as_operand(score_fragment);
    }

    if constexpr (kOnline) {  // the reference forms set no factor: their P is final
      if (any_row_rescaled(output_scale)) scale_rows(output, output_scale);
    }
    v_pipeline.consumer_wait(v_read);
    if (kTailInFlight && first_block == step.kv_begin) {
      issue_tail_pv(mma_pv, probabilities, v_operand(_, _, _, v_read.index()), output_fragment);
    } else {
      issue_warpgroup_gemm<false>(mma_pv, probabilities, v_operand(_, _, _, v_read.index()), output_fragment);
    }
    warpgroup_wait<0>();
    v_pipeline.consumer_release(v_read);
    ++v_read;
  }

  // O divided by each row's softmax sum, once the step's (and any merged) blocks are in.
  template <class OutputFragment>
  CUTE_DEVICE static void normalize(const Softmax& softmax, OutputFragment& output_fragment) {
    cute::Tensor output = cute::make_tensor(output_fragment.data(), accumulator_rows_cols(output_fragment.layout()));
    float inverse_sum[kRowsPerThread];
    softmax.inverse_sums(inverse_sum);
    scale_rows(output, inverse_sum);
  }

  // V's bias, where V's GEMM left it out (AttentionBiases): its tile's 256 bytes asked into L1 when the tile starts,
  // so that add_value_bias's loads after the last P V need not wait on L2 (with it, the bias costs case 8's attention
  // 0.2-0.4 us; without it was not measured: NOTES.md, v24).
  CUTE_DEVICE static void prefetch_value_bias(const AttentionParams& params, const AttentionTile& tile, int thread) {
    constexpr int kLineElements = 128 / sizeof(__nv_bfloat16);
    if (params.v_bias == nullptr || thread % 128 >= Config::kHeadDim / kLineElements) return;
    const __nv_bfloat16* line = params.v_bias + tile.kv_head * Config::kHeadDim + thread % 128 * kLineElements;
    asm volatile("prefetch.global.L1 [%0];" ::"l"(line));
  }

  // V's bias, where V's GEMM left it out (AttentionBiases), added to the normalized O: every row of the tile takes
  // its KV head's 128 values, one per column.
  template <class OutputFragment>
  CUTE_DEVICE static void add_value_bias(const AttentionParams& params, const AttentionTile& tile, int thread,
                                         OutputFragment& output_fragment) {
    using namespace cute;
    if (params.v_bias == nullptr) return;
    typename Config::TiledMmaPV mma_pv;
    Tensor coordinates_fragment = mma_pv.get_thread_slice(thread).partition_C(
        make_identity_tensor(Shape<Int<Config::kBlockM>, Int<Config::kHeadDim>>{}));
    Tensor coordinates =
        make_tensor(coordinates_fragment.data(), accumulator_rows_cols(coordinates_fragment.layout()));
    Tensor output = make_tensor(output_fragment.data(), accumulator_rows_cols(output_fragment.layout()));
    const __nv_bfloat16* bias = params.v_bias + tile.kv_head * Config::kHeadDim;
    CUTE_UNROLL
    for (int column = 0; column < size<1>(output); ++column) {
      const float value = __bfloat162float(bias[get<1>(coordinates(0, column))]);
      CUTE_UNROLL
      for (int row = 0; row < size<0>(output); ++row) output(row, column) += value;
    }
  }
};

}  // namespace vlb::fused_b200::sm90
