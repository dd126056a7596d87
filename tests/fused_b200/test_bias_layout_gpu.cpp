// The fused operation on inputs whose K and V biases lie in the other order from their weights (as PyTorch's allocator
// often puts them). On cuBLAS's batched K/V GEMM the biases then leave it: K's RoPE pass adds K's and the attention
// adds V's to its output (v24); against the same inputs with the biases in the weights' order (biases in the GEMM's
// epilogue), every element must agree within the suite's tightest tolerance. CUTLASS's pair (1568 vision rows on 132
// SMs) keeps them in its epilogue in either order (v32): there the two outputs must be the same bits. With V's bias
// zeroed instead, many elements must differ (so a bias the attention or the epilogue dropped would fail here). Fresh
// seeded inputs, random positions, the output NaN-poisoned first.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <cuda_bf16.h>

#include "harness/core/cuda_check.hpp"
#include "harness/core/device_buffer.hpp"
#include "harness/inputs/input_set.hpp"
#include "solutions/fused_b200/fused_operation.hpp"
#include "solutions/fused_b200/projection_cublas.hpp"
#include "support/gpu_test.hpp"
#include "support_fused_device.hpp"

using namespace vlb;
using namespace vlb::fused_b200;

namespace {

// The suite's tightest atol (workload 15) and its rtol.
constexpr double kAtol = 0.0088;
constexpr double kRtol = 0.05;

std::vector<float> run_to_host(const FusedOperation& operation, FusionArgs args, const DeviceBuffer& output) {
  VLB_CUDA_CHECK(cudaMemsetAsync(output.data(), 0xff, output.bytes(), args.stream));  // bf16 NaN
  operation.run(args);
  std::vector<__nv_bfloat16> bits(output.bytes() / sizeof(__nv_bfloat16));
  VLB_CUDA_CHECK(cudaMemcpyAsync(bits.data(), output.data(), output.bytes(), cudaMemcpyDeviceToHost, args.stream));
  VLB_CUDA_CHECK(cudaStreamSynchronize(args.stream));
  std::vector<float> values(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) values[i] = __bfloat162float(bits[i]);
  return values;
}

// The share of elements of `output` within tolerance of `expected` (a NaN never is).
double matched_fraction(const std::vector<float>& output, const std::vector<float>& expected) {
  std::int64_t matched = 0;
  for (std::size_t i = 0; i < output.size(); ++i) {
    matched += std::fabs(output[i] - expected[i]) <= kAtol + kRtol * std::fabs(expected[i]);
  }
  return static_cast<double>(matched) / static_cast<double>(output.size());
}

}  // namespace

TEST_CASE("fused_b200: K/V biases out of step with their weights give the in-order output", "[fused_b200][gpu]") {
  if (fused_b200::testing::skip_without_fused_kernels("the bias layout")) return;
  vlb::testing::TestStream stream;
  const std::uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  // Workload 8 and 6 (1568 and 3920 vision rows: K and V on CUTLASS's pair and on cuBLAS's batched GEMM on Hopper).
  for (const ProblemShape shape : {ProblemShape{8, 128, 196}, ProblemShape{4, 541, 980}}) {
    INFO("B=" << shape.batch << " Lq=" << shape.lang_seq << " Lv=" << shape.vision_seq);
    const FusedOperation operation(vlb::testing::test_device().sm_count);
    DeviceInputs inputs(shape);
    inputs.generate(InputSettings{seed, PositionPattern::kRandom}, stream.get());
    DeviceBuffer workspace(operation.workspace_bytes(shape));
    DeviceBuffer output(static_cast<std::size_t>(shape.lang_rows() * ModelDims::kHidden) * sizeof(bf16));
    FusionArgs args;
    args.shape = shape;
    args.inputs = inputs.view();
    args.output = {output.as<bf16>(), {shape.batch, shape.lang_seq, ModelDims::kHidden}};
    args.workspace = workspace.data();
    args.workspace_bytes = workspace.bytes();
    args.stream = stream.get();

    // The biases in the weights' order: K's below V's where K's weight is below V's, and the other way round.
    const bool k_first = !kv_batch_starts_with_v(args.inputs.k_proj_weight.data, args.inputs.v_proj_weight.data);
    const std::size_t bias_bytes = ModelDims::kKvProjDim * sizeof(bf16);
    DeviceBuffer biases(2 * bias_bytes);
    auto* low = biases.as<bf16>();
    auto* high = reinterpret_cast<bf16*>(biases.as<std::byte>() + bias_bytes);
    const auto place = [&](bf16* k_at, bf16* v_at) {
      VLB_CUDA_CHECK(cudaMemcpyAsync(k_at, inputs.data(TensorId::kKProjBias), bias_bytes, cudaMemcpyDeviceToDevice,
                                     stream.get()));
      VLB_CUDA_CHECK(cudaMemcpyAsync(v_at, inputs.data(TensorId::kVProjBias), bias_bytes, cudaMemcpyDeviceToDevice,
                                     stream.get()));
      args.inputs.k_proj_bias.data = k_at;
      args.inputs.v_proj_bias.data = v_at;
    };
    place(k_first ? low : high, k_first ? high : low);
    const std::vector<float> in_order = run_to_host(operation, args, output);
    place(k_first ? high : low, k_first ? low : high);
    const bf16* const weights[2] = {k_first ? args.inputs.k_proj_weight.data : args.inputs.v_proj_weight.data,
                                    k_first ? args.inputs.v_proj_weight.data : args.inputs.k_proj_weight.data};
    const bf16* const reversed_biases[2] = {k_first ? args.inputs.k_proj_bias.data : args.inputs.v_proj_bias.data,
                                            k_first ? args.inputs.v_proj_bias.data : args.inputs.k_proj_bias.data};
    REQUIRE_FALSE(batched_pair_strides(weights, reversed_biases, weights).has_value());  // the biases alone fail
    const std::vector<float> reversed = run_to_host(operation, args, output);
    CHECK(matched_fraction(reversed, in_order) >= 0.999);
    const bool pair_on_cutlass = fused_b200::testing::test_device_kernels() == KernelArchitecture::kSm90 &&
                                 kv_pair_on_cutlass(shape.vision_rows(), vlb::testing::test_device().sm_count);
    INFO("K/V pair on CUTLASS " << pair_on_cutlass);
    if (pair_on_cutlass) CHECK(reversed == in_order);

    // The same check can fail: without V's bias the output moves by ~0.03, about the tolerance.
    VLB_CUDA_CHECK(cudaMemsetAsync(const_cast<bf16*>(args.inputs.v_proj_bias.data), 0, bias_bytes, stream.get()));
    const std::vector<float> without_v_bias = run_to_host(operation, args, output);
    CHECK(matched_fraction(without_v_bias, in_order) < 0.99);
  }
}
