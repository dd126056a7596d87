#pragma once
// The sm90a attention kernel (included by attention_sm90.cu): a persistent, warp-specialized CTA made of the
// mainloop (attention_mainloop_sm90.hpp), the epilogue (attention_epilogue_sm90.hpp), the split last wave's partials
// (attention_split_sm90.hpp) and the tile scheduler (attention_schedule.hpp). Warpgroup 0 is the producer (its first
// warp issues TMA, the other three rotate Q where the kernel applies Q's RoPE), warpgroups 1 and 2 consume; every
// role walks the same steps.
#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include <cutlass/pipeline/pipeline.hpp>

#include "solutions/fused_b200/attention_config_sm90.hpp"
#include "solutions/fused_b200/attention_epilogue_sm90.hpp"
#include "solutions/fused_b200/attention_mainloop_sm90.hpp"
#include "solutions/fused_b200/attention_split_sm90.hpp"

namespace vlb::fused_b200::sm90 {

// kSplitLastWave: whether params.walk splits its last wave (AttentionSplit). A launch without the split runs an
// instance without the split's code paths (the pieces that start past the tail block, the partials' stores and merge),
// so that the kernel most workloads run is the one without them. kForm: how the softmax rounds P
// (attention_softmax_form; never split but in the online form): each form an instance of its own, so that the
// kernels of every other shape stay the code they were (a run-time choice in theirs cost the suite's small cases
// 2-4 us, v27a).
template <class Config, bool kSplitLastWave, SoftmaxForm kForm = SoftmaxForm::kOnline>
__global__ void __launch_bounds__(Config::kThreads, 1)
    attention_kernel(const __grid_constant__ AttentionParams params) {
  using Mainloop = AttentionMainloop<Config>;
  using Epilogue = AttentionEpilogue<Config>;
  using Split = AttentionSplitPartials<Config>;
  using Pipeline = typename Config::Pipeline;
  using SharedStorage = typename Config::SharedStorage;
  static_assert(!kSplitLastWave || kForm == SoftmaxForm::kOnline, "a split tile merges online-softmax partials");

  extern __shared__ char shared_bytes[];
  const auto aligned = (reinterpret_cast<std::uintptr_t>(shared_bytes) + 1023) & ~std::uintptr_t{1023};
  SharedStorage& storage = *reinterpret_cast<SharedStorage*>(aligned);

  const int warp_group = static_cast<int>(threadIdx.x) / 128;
  const bool producer_warp = threadIdx.x < 32;

  if (threadIdx.x == 0) {
    cute::prefetch_tma_descriptor(&params.q);
    cute::prefetch_tma_descriptor(&params.k);
    cute::prefetch_tma_descriptor(&params.v);
    cute::prefetch_tma_descriptor(&params.out);
    for (int stage = 0; stage < Config::kQueryStages; ++stage) {
      storage.q_full[stage].init(1);
      storage.q_empty[stage].init(Config::kConsumerThreads);
      storage.q_rotated[stage].init(Config::kQueryRopeThreads);
    }
  }
  typename Pipeline::Params pipeline_params;
  pipeline_params.transaction_bytes = Config::kKvTileBytes;
  pipeline_params.num_consumers = Config::kConsumerThreads;
  pipeline_params.is_leader = threadIdx.x == 0;
  pipeline_params.role = warp_group > 0    ? Pipeline::ThreadCategory::Consumer
                         : producer_warp ? Pipeline::ThreadCategory::Producer
                                         : Pipeline::ThreadCategory::NonParticipant;
  Pipeline k_pipeline(storage.k_pipeline, pipeline_params, cute::Shape<cute::_1, cute::_1, cute::_1>{});
  Pipeline v_pipeline(storage.v_pipeline, pipeline_params, cute::Shape<cute::_1, cute::_1, cute::_1>{});
  cutlass::arch::fence_barrier_init();
  __syncthreads();  // barriers initialized before anyone waits on them
  // Launched LaunchOrder::kOverlapPrevious, the set-up above overlapped the K/V projection's end: Q, K and V are read
  // only after it has finished. The O projection may then launch: its CTAs wait for SMs and for this kernel's end.
  cudaGridDependencySynchronize();
  cudaTriggerProgrammaticLaunchCompletion();

  if (warp_group == 0) {
    cutlass::arch::warpgroup_reg_dealloc<Config::kProducerRegisters>();
    if (producer_warp) {
      Mainloop::template produce<kSplitLastWave, kForm == SoftmaxForm::kTwoPass>(params, storage, k_pipeline,
                                                                                v_pipeline);
    } else if (params.q_positions != nullptr) {
      Mainloop::rotate_queries(params, storage);
    }
  } else {
    cutlass::arch::warpgroup_reg_alloc<Config::kConsumerRegisters>();
    const int thread = static_cast<int>(threadIdx.x) - 128;
    typename Config::PipelineState k_read;
    typename Config::PipelineState v_read;
    typename Config::TiledMmaPV mma_pv;
    auto output_fragment =
        cute::partition_fragment_C(mma_pv, cute::Shape<cute::Int<Config::kBlockM>, cute::Int<Config::kHeadDim>>{});
    Mainloop::start_consumers(thread / 128);
    for (const AttentionStep step : AttentionTileScheduler<kSplitLastWave>(params.walk, blockIdx.x, gridDim.x)) {
      // With Q's RoPE in the kernel, the producer warpgroup's other warps publish Q once they have rotated it; the
      // CTA's first tile the consumers rotate with them (v20).
      const QueryStage stage = Config::query_stage(step.iteration);
      if (params.q_positions != nullptr && step.iteration == 0) {
        Mainloop::rotate_first_query_with_consumers(params, storage, thread);
      } else if (params.q_positions != nullptr) {
        storage.q_rotated[stage.index].wait(stage.phase);
      } else {
        storage.q_full[stage.index].wait(stage.phase);
      }
      typename Mainloop::Softmax softmax;
      Mainloop::prefetch_value_bias(params, step.tile, thread);
      if constexpr (kSplitLastWave) {
        Mainloop::consume(params, storage, k_pipeline, v_pipeline, k_read, v_read, thread, step, softmax,
                          output_fragment);
        if (step.writes_partial) {  // another CTA merges, normalizes and stores this tile
          Split::write(params, thread, softmax, output_fragment);
          continue;
        }
        if (step.merge_until >= 0) Split::merge(params, step, thread, softmax, output_fragment);
      } else {  // every step is a whole tile, from the tail block
        Mainloop::template consume_blocks<true, kForm>(params, storage, k_pipeline, v_pipeline, k_read, v_read,
                                                       thread, step, softmax, output_fragment);
      }
      Mainloop::normalize(softmax, output_fragment);
      Mainloop::add_value_bias(params, step.tile, thread, output_fragment);
      Epilogue::store(params, storage, step.tile, thread, output_fragment);
    }
    Epilogue::drain(thread);
  }
}

}  // namespace vlb::fused_b200::sm90
