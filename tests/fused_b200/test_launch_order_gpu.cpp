// The fused operation with its later kernels launched as programmatic dependents (launch_order.hpp) against the same
// operation with every kernel after the one before (stage events between them): on each input set the two outputs
// must be the same bits. A kernel that read the previous kernel's output before waiting for it would differ on some
// call. Shapes: the suite's smallest workloads, where the overlap is largest relative to the work, and random small
// ones; fresh inputs at every call, each call's output NaN-poisoned first.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "harness/core/cuda_check.hpp"
#include "harness/core/device_buffer.hpp"
#include "harness/inputs/input_set.hpp"
#include "solutions/fused_b200/fused_operation.hpp"
#include "support/gpu_test.hpp"
#include "support_fused_device.hpp"

using namespace vlb;
using namespace vlb::fused_b200;

namespace {

class Events {
 public:
  Events() {
    VLB_CUDA_CHECK(cudaEventCreate(&events_.start));
    for (cudaEvent_t& event : events_.after) VLB_CUDA_CHECK(cudaEventCreate(&event));
  }
  ~Events() {
    (void)cudaEventDestroy(events_.start);
    for (cudaEvent_t event : events_.after) (void)cudaEventDestroy(event);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  const StageEvents& get() const { return events_; }

 private:
  StageEvents events_;
};

std::vector<std::uint16_t> output_bits(const DeviceBuffer& output, cudaStream_t stream) {
  std::vector<std::uint16_t> bits(output.bytes() / sizeof(std::uint16_t));
  VLB_CUDA_CHECK(cudaMemcpyAsync(bits.data(), output.data(), output.bytes(), cudaMemcpyDeviceToHost, stream));
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return bits;
}

bool is_nan(std::uint16_t bf16_bits) { return (bf16_bits & 0x7f80u) == 0x7f80u && (bf16_bits & 0x007fu) != 0; }

// `calls` input sets, each run overlapped and in order; returns how many calls' outputs differed or were left
// unwritten (a NaN: the poison, or no output at all, would compare equal).
int differing_calls(const ProblemShape& shape, std::uint64_t seed, int calls, cudaStream_t stream) {
  const FusedOperation operation(vlb::testing::test_device().sm_count);
  DeviceInputs inputs(shape);
  DeviceBuffer workspace(operation.workspace_bytes(shape));
  DeviceBuffer output(static_cast<std::size_t>(shape.lang_rows() * ModelDims::kHidden) * sizeof(bf16));
  FusionArgs args;
  args.shape = shape;
  args.output = {output.as<bf16>(), {shape.batch, shape.lang_seq, ModelDims::kHidden}};
  args.workspace = workspace.data();
  args.workspace_bytes = workspace.bytes();
  args.stream = stream;
  const Events events;
  int differing = 0;
  for (int call = 0; call < calls; ++call) {
    inputs.generate(InputSettings{seed + static_cast<std::uint64_t>(call), PositionPattern::kRandom}, stream);
    args.inputs = inputs.view();
    VLB_CUDA_CHECK(cudaMemsetAsync(output.data(), 0xff, output.bytes(), stream));  // bf16 NaN
    operation.run(args);
    const std::vector<std::uint16_t> overlapped = output_bits(output, stream);
    VLB_CUDA_CHECK(cudaMemsetAsync(output.data(), 0xff, output.bytes(), stream));
    operation.run(args, &events.get());
    const bool unwritten = std::any_of(overlapped.begin(), overlapped.end(), is_nan);
    differing += unwritten || overlapped != output_bits(output, stream);
  }
  return differing;
}

}  // namespace

TEST_CASE("fused_b200: overlapped launches give the bits of launches in order", "[fused_b200][launch][gpu]") {
  if (fused_b200::testing::skip_without_fused_kernels("launch order")) return;
  vlb::testing::TestStream stream;
  const std::uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::vector<ProblemShape> shapes = {{2, 128, 196}, {2, 256, 392}, {1, 512, 784}, {8, 128, 196}};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> batch(1, 4), lang(1, 300), vision(1, 400);
  for (int i = 0; i < 4; ++i) shapes.push_back({batch(rng), lang(rng), vision(rng)});
  for (const ProblemShape& shape : shapes) {
    INFO("B=" << shape.batch << " Lq=" << shape.lang_seq << " Lv=" << shape.vision_seq);
    CHECK(differing_calls(shape, seed, 10, stream.get()) == 0);
  }
}
