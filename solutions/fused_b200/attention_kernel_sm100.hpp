#pragma once
// The sm100a attention kernel (included by attention_sm100.cu): a persistent, warp-specialized CTA made of the load
// and MMA roles (attention_mainloop_sm100.hpp), the softmax warpgroup (attention_softmax_sm100.hpp, which also
// writes the output) and the static round-robin tile scheduler (attention_schedule.hpp). Every role walks the same
// tile sequence; mbarrier pipelines (CUTLASS's sm100 ones) carry every hand-over.
#include <cute/arch/tmem_allocator_sm100.hpp>
#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/pipeline/pipeline.hpp>

#include "solutions/fused_b200/attention_config_sm100.hpp"
#include "solutions/fused_b200/attention_mainloop_sm100.hpp"
#include "solutions/fused_b200/attention_softmax_sm100.hpp"

namespace vlb::fused_b200::sm100 {

template <class Config>
struct AttentionPipelines {
  using ThreadCategory = typename cutlass::PipelineAsync<1>::ThreadCategory;
  using Cluster = typename Config::Cluster;

  typename Config::QueryPipeline q;
  typename Config::KvPipeline k;
  typename Config::KvPipeline v;
  typename Config::ScorePipeline score;
  typename Config::ProbabilityPipeline probability;
  typename Config::OutputPipeline output;

  // Constructed by every thread; warp 0 initializes the barriers.
  CUTE_DEVICE AttentionPipelines(typename Config::SharedStorage& storage, int warp)
      : q(storage.q_pipeline, tma_params<typename Config::QueryPipeline>(warp, Config::kQTileBytes), Cluster{}),
        k(storage.k_pipeline, tma_params<typename Config::KvPipeline>(warp, Config::kKvTileBytes), Cluster{}),
        v(storage.v_pipeline, tma_params<typename Config::KvPipeline>(warp, Config::kKvTileBytes), Cluster{}),
        score(storage.score_pipeline,
              async_params<typename Config::ScorePipeline>(mma_role(warp), softmax_role(warp), 1,
                                                           Config::kSoftmaxThreads),
              Cluster{}),
        probability(storage.probability_pipeline,
                    async_params<typename Config::ProbabilityPipeline>(softmax_role(warp), mma_role(warp),
                                                                       Config::kSoftmaxThreads, 1),
                    Cluster{}),
        output(storage.output_pipeline,
               async_params<typename Config::OutputPipeline>(mma_role(warp), softmax_role(warp), 1,
                                                             Config::kSoftmaxThreads),
               Cluster{}) {}

  CUTE_DEVICE static bool mma_role(int warp) { return warp == Config::kMmaWarp; }
  CUTE_DEVICE static bool softmax_role(int warp) { return warp < Config::kSoftmaxThreads / 32; }

  // TMA (the load warp's lane 0, which also arms the barriers) -> MMA warp.
  template <class Pipeline>
  CUTE_DEVICE static typename Pipeline::Params tma_params(int warp, std::uint32_t bytes) {
    typename Pipeline::Params params;
    params.transaction_bytes = bytes;
    params.is_leader = threadIdx.x == Config::kLoadWarp * 32;
    params.num_consumers = 32;
    params.role = warp == Config::kLoadWarp ? Pipeline::ThreadCategory::Producer
                  : mma_role(warp)          ? Pipeline::ThreadCategory::Consumer
                                            : Pipeline::ThreadCategory::NonParticipant;
    return params;
  }

  template <class Pipeline>
  CUTE_DEVICE static typename Pipeline::Params async_params(bool producer, bool consumer, int producer_arrivals,
                                                            int consumer_arrivals) {
    typename Pipeline::Params params;
    params.producer_arv_count = producer_arrivals;
    params.consumer_arv_count = consumer_arrivals;
    params.role = producer   ? Pipeline::ThreadCategory::Producer
                  : consumer ? Pipeline::ThreadCategory::Consumer
                             : Pipeline::ThreadCategory::NonParticipant;
    return params;
  }
};

template <class Config>
__global__ void __launch_bounds__(Config::kThreads, 1)
    attention_kernel(const __grid_constant__ AttentionParams params) {
#if defined(CUTLASS_ARCH_MMA_SM100A_ENABLED)
  using SharedStorage = typename Config::SharedStorage;
  extern __shared__ char shared_bytes[];
  const auto aligned = (reinterpret_cast<std::uintptr_t>(shared_bytes) + 1023) & ~std::uintptr_t{1023};
  SharedStorage& storage = *reinterpret_cast<SharedStorage*>(aligned);

  const int warp = cutlass::canonical_warp_idx_sync();
  const bool lane_zero = threadIdx.x % 32 == 0;
  if (warp == Config::kLoadWarp && lane_zero) {
    cute::prefetch_tma_descriptor(&params.q);
    cute::prefetch_tma_descriptor(&params.k);
    cute::prefetch_tma_descriptor(&params.v);
  }
  AttentionPipelines<Config> pipelines(storage, warp);
  cute::TMEM::Allocator1Sm tmem_allocator;
  if (warp == Config::kMmaWarp) tmem_allocator.allocate(Config::kAllocatedColumns, &storage.tmem_base);
  __syncthreads();  // barriers initialized and the tensor-memory address written before anyone uses them
  const std::uint32_t tmem_base = storage.tmem_base;

  using Mainloop = AttentionMainloop<Config>;
  using Softmax = AttentionSoftmax<Config>;
  if (warp < Config::kSoftmaxThreads / 32) {
    Softmax::run(params, storage, tmem_base, {pipelines.score, pipelines.probability, pipelines.output});
  } else if (warp == Config::kMmaWarp) {
    const typename Mainloop::Pipelines roles{pipelines.q,     pipelines.k,           pipelines.v,
                                             pipelines.score, pipelines.probability, pipelines.output};
    Mainloop::mma(params, storage, tmem_base, roles);
    tmem_allocator.release_allocation_lock();
    tmem_allocator.free(tmem_base, Config::kAllocatedColumns);
  } else if (warp == Config::kLoadWarp && lane_zero) {
    const typename Mainloop::Pipelines roles{pipelines.q,     pipelines.k,           pipelines.v,
                                             pipelines.score, pipelines.probability, pipelines.output};
    Mainloop::load(params, storage, roles);
  }
#endif
}

}  // namespace vlb::fused_b200::sm100
