#pragma once
// Per-architecture entry points behind attention.cpp's dispatcher.
#include <cuda_runtime.h>

#include "solutions/fused_b200/attention.hpp"
#include "solutions/fused_b200/launch_order.hpp"

namespace vlb::fused_b200::sm90 {

void launch_attention(const AttentionTensors& tensors, const AttentionShape& shape, int sm_count, cudaStream_t stream,
                      LaunchOrder order);

}  // namespace vlb::fused_b200::sm90

namespace vlb::fused_b200::sm100 {

void launch_attention(const AttentionTensors& tensors, const AttentionShape& shape, int sm_count, cudaStream_t stream);

}  // namespace vlb::fused_b200::sm100
