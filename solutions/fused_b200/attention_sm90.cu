// sm90a attention launcher: the kernel's TMA descriptors (4-D views of the projections' outputs), its shared memory,
// its persistent grid and the split of its last wave (AttentionSplit) with the split's workspace.
#include <cuda.h>

#include <cstdint>
#include <iterator>

#include "harness/core/cuda_check.hpp"
#include "solutions/fused_b200/attention.hpp"
#include "solutions/fused_b200/attention_kernel_sm90.hpp"
#include "solutions/fused_b200/attention_kernels.hpp"
#include "solutions/fused_b200/attention_tensor_map.hpp"
#include "solutions/fused_b200/launch_order.hpp"

namespace vlb::fused_b200::sm90 {
namespace {

// 128 keys per block, two stages of K and V: 192 KB of shared memory with one Q stage and the output's staging buffer
// (224 KB with v17's second Q stage). FA3 takes 176 for head_dim 128; 112- and 144-key blocks, which pad the suite's
// Lv less, measured 10-50% slower (NOTES.md, v4). The tail of Lv runs at its own width instead (TailConfig,
// attention_tail_width).
constexpr int kBlockN = 128;
constexpr int kStages = 2;
using Config = AttentionConfig<kBlockN, kStages>;
template <int kTailBlockN>
using TailConfig = AttentionConfig<kBlockN, kStages, kTailBlockN>;

CUtensorMap make_tensor_map(const void* base, std::int64_t heads, std::int64_t tokens, std::int64_t batch,
                            std::uint32_t box_heads, std::uint32_t box_tokens, const char* name) {
  return make_head_tensor_map(base, heads, tokens, batch, HeadTensorBox{Config::kBoxColumns, box_heads, box_tokens},
                              name);
}

// The walk of a launch at `grid` CTAs, its last wave split where attention_split_plan finds that it pays.
AttentionWalk split_walk(const AttentionShape& shape, int grid) {
  AttentionWalk walk = attention_walk(shape, Config::kBlockN);
  walk.split = attention_split_plan(walk, grid);
  return walk;
}

AttentionParams make_params(const AttentionTensors& tensors, const AttentionShape& shape, int grid,
                            const AttentionSplitWorkspace& split) {
  constexpr int block_n = Config::kBlockN;
  AttentionParams params;
  params.q = make_tensor_map(tensors.q, kQueryHeads, shape.lang_seq, shape.batch, kQueryHeadsPerKvHead,
                             kTokensPerTile, "Q");
  params.out = make_tensor_map(tensors.out, kQueryHeads, shape.lang_seq, shape.batch, kQueryHeadsPerKvHead,
                               Config::kRowsPerConsumer / kQueryHeadsPerKvHead, "the output");
  params.k = make_tensor_map(tensors.k, kKvHeads, shape.vision_seq, shape.batch, 1, block_n, "K");
  params.v = make_tensor_map(tensors.v, kKvHeads, shape.vision_seq, shape.batch, 1, block_n, "V");
  // Without a split workspace the walk is the round robin alone (launch_attention checked it is big enough).
  params.walk = split.base != nullptr ? split_walk(shape, grid) : attention_walk(shape, block_n);
  if (split.base != nullptr) {
    auto* base = static_cast<char*>(split.base);
    params.split_flags = reinterpret_cast<unsigned*>(base);
    params.split_partials = reinterpret_cast<float*>(base + AttentionSplitLayout::flag_bytes(grid));
  }
  params.q_positions = tensors.q_rope.positions;
  params.lang_seq = shape.lang_seq;
  params.q_rope_arithmetic = tensors.q_rope.arithmetic;
  params.v_bias = tensors.biases.v;
  return params;
}

template <class KernelConfig, bool kSplitLastWave, SoftmaxForm kForm = SoftmaxForm::kOnline>
void launch_kernel(const AttentionParams& params, int grid, cudaStream_t stream, LaunchOrder order) {
  auto* kernel = &attention_kernel<KernelConfig, kSplitLastWave, kForm>;
  VLB_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, KernelConfig::kSharedBytes));
  const OrderedLaunchConfig launch(dim3(static_cast<unsigned>(grid)), dim3(KernelConfig::kThreads),
                                   KernelConfig::kSharedBytes, stream, order);
  VLB_CUDA_CHECK(cudaLaunchKernelEx(launch.get(), kernel, params));
}

template <class KernelConfig>
void launch_with(const AttentionParams& params, SoftmaxForm form, int grid, cudaStream_t stream, LaunchOrder order) {
  if (form == SoftmaxForm::kOneBlock) {
    return launch_kernel<KernelConfig, false, SoftmaxForm::kOneBlock>(params, grid, stream, order);
  }
  if (params.walk.split.active()) return launch_kernel<KernelConfig, true>(params, grid, stream, order);
  launch_kernel<KernelConfig, false>(params, grid, stream, order);
}

}  // namespace

std::size_t attention_split_workspace_bytes(const AttentionShape& shape, int sm_count) {
  const int grid = attention_grid_size(shape, sm_count);
  return split_walk(shape, grid).split.active() ? AttentionSplitLayout::bytes(grid) : 0;
}

std::size_t attention_split_flag_bytes(const AttentionShape& shape, int sm_count) {
  const int grid = attention_grid_size(shape, sm_count);
  return split_walk(shape, grid).split.active() ? AttentionSplitLayout::flag_bytes(grid) : 0;
}

SoftmaxForm attention_kernel_softmax_form(const AttentionShape& shape, int sm_count, bool split) {
  const int grid = attention_grid_size(shape, sm_count);
  return attention_softmax_form(split ? split_walk(shape, grid) : attention_walk(shape, Config::kBlockN), shape);
}

void launch_attention(const AttentionTensors& tensors, const AttentionShape& shape, int sm_count, cudaStream_t stream,
                      LaunchOrder order, const AttentionSplitWorkspace& split) {
  const int grid = attention_grid_size(shape, sm_count);
  const AttentionParams params = make_params(tensors, shape, grid, split);
  const SoftmaxForm form = attention_softmax_form(params.walk, shape);
  // The two-pass form computes its tail block at the full width (masked, as any tail): with a narrower tail product
  // beside its first pass, ptxas serialized the kernel's wgmmas (C7511), and a few tiles gain little from the width.
  if (form == SoftmaxForm::kTwoPass) {
    return launch_kernel<Config, false, SoftmaxForm::kTwoPass>(params, grid, stream, order);
  }
  // One case per width of kAttentionTailWidths; a width added there without its case would run at kBlockN.
  static_assert(std::size(kAttentionTailWidths) == 4 && kAttentionTailWidths[0] == 16 &&
                kAttentionTailWidths[1] == 32 && kAttentionTailWidths[2] == 64 && kAttentionTailWidths[3] == 96);
  switch (attention_tail_width(params.walk.valid_keys_in_last_block, kBlockN)) {
    case 16: return launch_with<TailConfig<16>>(params, form, grid, stream, order);
    case 32: return launch_with<TailConfig<32>>(params, form, grid, stream, order);
    case 64: return launch_with<TailConfig<64>>(params, form, grid, stream, order);
    case 96: return launch_with<TailConfig<96>>(params, form, grid, stream, order);
    default: return launch_with<Config>(params, form, grid, stream, order);
  }
}

}  // namespace vlb::fused_b200::sm90
