#pragma once
// The sm100a attention's softmax warpgroup (included by attention_kernel_sm100.hpp): warps 0-3, thread t owning
// tile row t, which is tensor-memory lane t. Per KV block: S from tensor memory into registers (one row: 128
// scores), the shared online softmax (attention_softmax.hpp, one thread per row), O in tensor memory rescaled by
// the row's factor once the previous P V has completed, P rounded to bf16 into shared memory for the next P V. Per
// tile: O from tensor memory, normalized, rounded to bf16 and written to its row of the output (256 contiguous
// bytes), rows past Lq skipped.
//
// Every register <-> tensor-memory and register <-> shared-memory mapping comes from one partitioning (the tcgen05
// 32-lane x 32-column load atom over the MMA's C layout) applied to the tensor-memory buffer, to an identity tensor
// (the row and key of each register) and to the shared-memory or global tensor, so that no layout is assumed.
#include <cute/atom/copy_traits_sm100.hpp>
#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/numeric_conversion.h>

#include "solutions/fused_b200/attention_config_sm100.hpp"
#include "solutions/fused_b200/attention_softmax.hpp"

namespace vlb::fused_b200::sm100 {

template <class Config>
struct AttentionSoftmax {
  using Element = typename Config::Element;
  using TmemLoad = cute::SM100_TMEM_LOAD_32dp32b32x;    // 32 lanes x 32 columns of 32 bits per warp
  using TmemStore = cute::SM100_TMEM_STORE_32dp32b32x;
  static constexpr int kChunkColumns = 32;              // O is rescaled 32 columns at a time (registers)
  static constexpr int kChunks = Config::kHeadDim / kChunkColumns;

  using Tile = cute::Shape<cute::Int<Config::kBlockM>, cute::Int<Config::kBlockN>>;
  using Chunk = cute::Shape<cute::Int<Config::kBlockM>, cute::Int<kChunkColumns>>;
  static_assert(Config::kBlockN == Config::kHeadDim, "S and O tiles share one tensor-memory partitioning");

  struct Pipelines {
    typename Config::ScorePipeline& score;
    typename Config::ProbabilityPipeline& probability;
    typename Config::OutputPipeline& output;
  };

  // A 128 x 128 fp32 accumulator in tensor memory at `column`, as the MMA's C fragment.
  CUTE_DEVICE static auto tmem_tile(std::uint32_t tmem_base, std::uint32_t column) {
    auto tile = cute::partition_fragment_C(typename Config::TiledMmaQK{}, Tile{});
    tile.data() = tmem_base + column;
    return tile;
  }

  // This thread's share of any (128, 128) tensor under the load atom's partitioning: one row, 128 columns.
  template <class Tensor>
  CUTE_DEVICE static auto thread_share(const Tensor& tensor, int thread) {
    auto tiled_load = cute::make_tmem_copy(TmemLoad{}, tmem_tile(0, 0));
    return tiled_load.get_slice(thread).partition_D(typename Config::TiledMmaQK{}.get_slice(0).partition_C(tensor));
  }

  // A thread's 128 values of one row as a (1 row, 128 columns) view, the shape OnlineSoftmax takes.
  template <class Tensor>
  CUTE_DEVICE static auto as_row(Tensor&& tensor) {
    return tensor.compose(cute::make_layout(cute::make_shape(cute::_1{}, cute::Int<Config::kBlockN>{})));
  }

  // The whole (128, 128) buffer at `column` into this thread's registers; waits for the loads.
  template <class Registers>
  CUTE_DEVICE static void load_row(std::uint32_t tmem_base, std::uint32_t column, int thread, Registers& registers) {
    auto tmem = tmem_tile(tmem_base, column);
    auto tiled_load = cute::make_tmem_copy(TmemLoad{}, tmem);
    cute::copy(tiled_load, tiled_load.get_slice(thread).partition_S(tmem), registers);
    cutlass::arch::fence_view_async_tmem_load();
  }

  // O *= factor, 32 columns at a time, in tensor memory; waits for the stores.
  CUTE_DEVICE static void rescale_output(std::uint32_t tmem_base, int thread, float factor) {
    using namespace cute;
    auto output = tmem_tile(tmem_base, Config::kOutputColumn);
    auto chunk = output.compose(make_layout(Chunk{}));  // columns [0, 32); the data pointer walks the chunks
    auto tiled_load = make_tmem_copy(TmemLoad{}, chunk);
    auto tiled_store = make_tmem_copy(TmemStore{}, chunk);
    auto thread_load = tiled_load.get_slice(thread);
    auto thread_store = tiled_store.get_slice(thread);
    Tensor values = make_tensor<float>(shape(thread_load.partition_D(chunk)));
    CUTE_UNROLL
    for (int c = 0; c < kChunks; ++c) {
      Tensor chunk_c = chunk;
      chunk_c.data() = chunk.data().get() + static_cast<std::uint32_t>(c * kChunkColumns);
      copy(tiled_load, thread_load.partition_S(chunk_c), values);
      cutlass::arch::fence_view_async_tmem_load();
      CUTE_UNROLL
      for (int i = 0; i < size(values); ++i) values(i) *= factor;
      copy(tiled_store, values, thread_store.partition_D(chunk_c));
    }
    cutlass::arch::fence_view_async_tmem_store();
  }

  template <class Source, class Destination>
  CUTE_DEVICE static void store_bf16(const Source& values, Destination&& destination) {
    using namespace cute;
    Tensor rounded = make_tensor<Element>(shape(values));
    constexpr int kCount = decltype(size(values))::value;
    cutlass::NumericArrayConverter<Element, float, kCount> convert;
    *reinterpret_cast<cutlass::Array<Element, kCount>*>(rounded.data()) =
        convert(*reinterpret_cast<const cutlass::Array<float, kCount>*>(values.data()));
    copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, rounded, destination);
  }

  CUTE_DEVICE static void run(const AttentionParams& params, typename Config::SharedStorage& storage,
                              std::uint32_t tmem_base, Pipelines pipelines) {
    using namespace cute;
    const int thread = static_cast<int>(threadIdx.x);  // warps 0-3: the tensor-memory lane of the thread's row
    Tensor coordinates = thread_share(make_identity_tensor(Tile{}), thread);
    Tensor smem_p = make_tensor(make_smem_ptr(storage.p.data()), typename Config::SmemLayoutP{});
    Tensor thread_p = thread_share(smem_p, thread);
    Tensor registers = make_tensor<float>(shape(coordinates));
    Tensor row_values = as_row(registers);
    Tensor row_coordinates = as_row(coordinates);
    const int row = get<0>(coordinates(0));  // every value of the thread is in this tile row

    typename Config::ScorePipeline::PipelineState s_read;
    typename Config::OutputPipeline::PipelineState o_read;
    auto p_write = cutlass::make_producer_start_state<typename Config::ProbabilityPipeline>();

    for (const AttentionStep tile_step : AttentionTileScheduler(params.walk, blockIdx.x, gridDim.x)) {
      const AttentionTile& tile = tile_step.tile;
      OnlineSoftmax<1, 1> softmax;
      float output_scale[1];
      for (int step = 0; step < params.walk.kv_blocks; ++step) {
        pipelines.score.consumer_wait(s_read);
        load_row(tmem_base, s_read.index() * Config::kScoreColumns, thread, registers);
        pipelines.score.consumer_release(s_read);
        ++s_read;
        if (step == 0) {  // the last KV block, the only partial one
          mask_columns(row_values, row_coordinates, params.walk.valid_keys_in_last_block);
          if (params.walk.kv_blocks == 1) {  // every key in this block: the reference's rounding points (v27)
            softmax.reference_rounded(row_values);
          } else {
            softmax.template update<true>(row_values, output_scale);
          }
        } else {
          softmax.template update<false>(row_values, output_scale);
        }
        // Waits until the previous P V has completed: P's buffer is free and O holds it.
        pipelines.probability.producer_acquire(p_write);
        if (step > 0 && any_row_rescaled(output_scale)) rescale_output(tmem_base, thread, output_scale[0]);
        store_bf16(registers, thread_p);
        cutlass::arch::fence_view_async_shared();  // P visible to tcgen05.mma (the async proxy)
        pipelines.probability.producer_commit(p_write);
        ++p_write;
      }
      store_output(params, tmem_base, tile, thread, row, softmax, registers, pipelines, o_read);
    }
  }

  template <class Softmax, class Registers, class OutputState>
  CUTE_DEVICE static void store_output(const AttentionParams& params, std::uint32_t tmem_base,
                                       const AttentionTile& tile, int thread, int row, const Softmax& softmax,
                                       Registers& registers, Pipelines pipelines, OutputState& o_read) {
    using namespace cute;
    pipelines.output.consumer_wait(o_read);
    load_row(tmem_base, Config::kOutputColumn, thread, registers);
    pipelines.output.consumer_release(o_read);
    ++o_read;
    float inverse_sum[1];
    softmax.inverse_sums(inverse_sum);
    CUTE_UNROLL
    for (int i = 0; i < size(registers); ++i) registers(i) *= inverse_sum[0];

    // Tile row r is (token r / 4, head r % 4): [B, Lq, 32, 128] puts heads 128 and tokens 4096 elements apart.
    const std::int64_t first_token = static_cast<std::int64_t>(tile.token_block) * kTokensPerTile;
    if (first_token + row / kQueryHeadsPerKvHead < params.lang_seq) {  // rows past Lq would be another batch's
      __nv_bfloat16* tile_base =
          params.out + ((tile.batch * params.lang_seq + first_token) * kQueryHeads +
                        tile.kv_head * kQueryHeadsPerKvHead) * static_cast<std::int64_t>(Config::kHeadDim);
      using RowLayout = Layout<Shape<Shape<Int<kQueryHeadsPerKvHead>, Int<kTokensPerTile>>, Int<Config::kHeadDim>>,
                               Stride<Stride<Int<Config::kHeadDim>, Int<kQueryHeads * Config::kHeadDim>>, _1>>;
      Tensor global_tile = make_tensor(make_gmem_ptr(reinterpret_cast<Element*>(tile_base)), RowLayout{});
      store_bf16(registers, thread_share(global_tile, thread));
    }
    __syncwarp();  // the next tile's tensor-memory loads are warp-collective (.sync.aligned)
  }
};

}  // namespace vlb::fused_b200::sm100
