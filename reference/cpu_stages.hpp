#pragma once
// The CPU faithful reference's stages (the same four as reference/gpu_stages.hpp), for testing the GPU stages.
// Values are floats that are exact bf16 values; layouts as gpu_stages.hpp: Q and O [B*Lq, 4096], K and V [B*Lv, 1024].
#include <vector>

#include "harness/inputs/input_set.hpp"

namespace vlb::reference {

struct FaithfulKv {
  std::vector<float> k;
  std::vector<float> v;
};

std::vector<float> faithful_q_cpu(const HostInputs& inputs);   // bias + 1D RoPE
FaithfulKv faithful_kv_cpu(const HostInputs& inputs);          // K: bias + 3D RoPE; V: bias
std::vector<float> faithful_attention_cpu(const ProblemShape& shape, const std::vector<float>& q,
                                          const std::vector<float>& k, const std::vector<float>& v);
std::vector<double> faithful_output_projection_cpu(const HostInputs& inputs, const std::vector<float>& o);

}  // namespace vlb::reference
