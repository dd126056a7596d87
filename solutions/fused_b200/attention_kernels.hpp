#pragma once
// Per-architecture entry points behind attention.cpp's dispatcher.
#include <cuda_runtime.h>

#include "solutions/fused_b200/attention.hpp"
#include "solutions/fused_b200/launch_order.hpp"

namespace vlb::fused_b200::sm90 {

std::size_t attention_split_workspace_bytes(const AttentionShape& shape, int sm_count);
std::size_t attention_split_flag_bytes(const AttentionShape& shape, int sm_count);
SoftmaxForm attention_kernel_softmax_form(const AttentionShape& shape, int sm_count, bool split);
void launch_attention(const AttentionTensors& tensors, const AttentionShape& shape, int sm_count, cudaStream_t stream,
                      LaunchOrder order, const AttentionSplitWorkspace& split);

}  // namespace vlb::fused_b200::sm90

namespace vlb::fused_b200::sm100 {

void launch_attention(const AttentionTensors& tensors, const AttentionShape& shape, int sm_count, cudaStream_t stream);

}  // namespace vlb::fused_b200::sm100
