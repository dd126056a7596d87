// Host and device generators give bit-identical tensors, for both position patterns and several seeds.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "harness/core/cuda_check.hpp"
#include "harness/core/device_buffer.hpp"
#include "harness/inputs/generator.hpp"
#include "harness/inputs/input_set.hpp"
#include "support/gpu_test.hpp"

using namespace vlb;

namespace {

// Generates `id` on the device into a buffer poisoned with 0xFF bytes, and returns the bytes read back.
std::vector<std::byte> generate_on_device(TensorId id, const ProblemShape& shape, const InputSettings& settings,
                                          const vlb::testing::TestStream& stream) {
  const std::size_t bytes = tensor_spec(id, shape).bytes();
  DeviceBuffer buffer(bytes);
  VLB_CUDA_CHECK(cudaMemsetAsync(buffer.data(), 0xFF, bytes, stream.get()));
  generate_tensor_on_device(id, shape, settings, buffer.data(), stream.get());
  std::vector<std::byte> result(bytes);
  VLB_CUDA_CHECK(cudaMemcpyAsync(result.data(), buffer.data(), bytes, cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  return result;
}

}  // namespace

TEST_CASE("device and host generators agree bit for bit", "[inputs][gpu]") {
  vlb::testing::TestStream stream;
  // Ragged sizes; q_proj_weight and o_proj_weight (16,777,216 elements) exceed the kernels' 65,535 x 256 threads,
  // so their grid-stride loops are exercised too.
  const ProblemShape shape{2, 37, 200};
  for (PositionPattern pattern : {PositionPattern::kOfficial, PositionPattern::kRandom}) {
    for (std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{0xDEADBEEFCAFEF00Dull}}) {
      const InputSettings settings{seed, pattern};
      for (int i = 0; i < kNumInputs; ++i) {
        const auto id = static_cast<TensorId>(i);
        INFO(tensor_name(id) << " pattern " << position_pattern_name(pattern) << " seed " << seed);
        std::vector<std::byte> host(tensor_spec(id, shape).bytes());
        generate_tensor_on_host(id, shape, settings, host);
        const std::vector<std::byte> device = generate_on_device(id, shape, settings, stream);
        REQUIRE(device.size() == host.size());
        CHECK(std::memcmp(device.data(), host.data(), host.size()) == 0);
        // The poison must be gone: a kernel that wrote nothing cannot pass.
        const std::vector<std::byte> poison(host.size(), std::byte{0xFF});
        CHECK(std::memcmp(device.data(), poison.data(), host.size()) != 0);
      }
    }
  }
}

TEST_CASE("DeviceInputs::generate matches make_host_inputs", "[inputs][gpu]") {
  vlb::testing::TestStream stream;
  const ProblemShape shape{3, 19, 211};
  const InputSettings settings{777, PositionPattern::kRandom};
  const HostInputs host = make_host_inputs(shape, settings);
  DeviceInputs device(shape);
  device.generate(settings, stream.get());
  for (int i = 0; i < kNumInputs; ++i) {
    const auto id = static_cast<TensorId>(i);
    INFO(tensor_name(id));
    std::vector<std::byte> copy(device.bytes(id));
    VLB_CUDA_CHECK(cudaMemcpyAsync(copy.data(), device.data(id), copy.size(), cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    REQUIRE(copy.size() == host.tensors[i].size());
    CHECK(std::memcmp(copy.data(), host.tensors[i].data(), copy.size()) == 0);
  }
}
