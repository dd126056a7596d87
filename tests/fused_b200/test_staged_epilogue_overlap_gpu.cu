// The staged epilogue launched as a programmatic dependent (LaunchOrder::kOverlapPrevious, as the fused operation
// launches K's RoPE pass after the K/V GEMM) waits for the kernel that writes its input. The writer lets its
// dependents launch at once, then spins before it writes K; a pass that read K before waiting would rotate the NaN
// poison (and the writer would then leave K unrotated). The pass must give the bits of the same pass launched after
// the writer. A probe launched the same way, without the wait, first shows that the launches overlap on this GPU:
// otherwise the check could not fail, and the test fails instead.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "harness/core/cuda_check.hpp"
#include "harness/core/device_buffer.hpp"
#include "solutions/fused_b200/launch_order.hpp"
#include "solutions/fused_b200/projection_staged_epilogue.hpp"
#include "support/gpu_test.hpp"
#include "support_fused_device.hpp"

using namespace vlb;
using namespace vlb::fused_b200;

namespace {

constexpr std::uint16_t kPoisonBits = 0xffff;  // a bf16 NaN
constexpr long long kWriterSpinCycles = 400'000;  // ~200 us at the H200's clock: far longer than a launch

// One block: lets the dependent grid launch, spins, then copies `source` into `target`.
__global__ void late_writer(const bf16* source, bf16* target, std::int64_t count, long long spin_cycles) {
  cudaTriggerProgrammaticLaunchCompletion();
  const long long start = clock64();
  while (clock64() - start < spin_cycles) {
  }
  for (std::int64_t i = threadIdx.x; i < count; i += blockDim.x) target[i] = source[i];
}

// Reads target[0] without waiting for the writer: whether it still held the poison.
__global__ void early_reader(const bf16* target, int* saw_poison) {
  *saw_poison = __bfloat16_as_ushort(target[0]) == kPoisonBits;
}

void launch_overlapping(const bf16* target, int* saw_poison, cudaStream_t stream) {
  const OrderedLaunchConfig launch(dim3(1), dim3(1), 0, stream, LaunchOrder::kOverlapPrevious);
  VLB_CUDA_CHECK(cudaLaunchKernelEx(launch.get(), early_reader, target, saw_poison));
}

std::vector<std::uint16_t> bits_of(const DeviceBuffer& buffer) {
  std::vector<std::uint16_t> bits(buffer.bytes() / sizeof(std::uint16_t));
  VLB_CUDA_CHECK(cudaMemcpy(bits.data(), buffer.data(), buffer.bytes(), cudaMemcpyDeviceToHost));
  return bits;
}

}  // namespace

TEST_CASE("staged epilogue: launched overlapping the kernel that writes K, it waits for it", "[fused_b200][gpu]") {
  if (fused_b200::testing::skip_without_fused_kernels("staged epilogue overlap")) return;
  const std::uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<std::int64_t> position(0, 12543);
  const std::int64_t rows = std::uniform_int_distribution<std::int64_t>(200, 2000)(rng);
  const std::int64_t count = rows * 1024;
  INFO("K rows " << rows);

  std::vector<bf16> k(static_cast<std::size_t>(count));
  for (bf16& value : k) value = __float2bfloat16_rn(normal(rng));
  std::vector<std::int64_t> grid(static_cast<std::size_t>(rows * 3));
  for (std::int64_t& value : grid) value = position(rng);
  DeviceBuffer source(count * sizeof(bf16)), overlapped(count * sizeof(bf16)), in_order(count * sizeof(bf16));
  DeviceBuffer positions(grid.size() * sizeof(std::int64_t)), saw_poison(sizeof(int));
  VLB_CUDA_CHECK(cudaMemcpy(source.data(), k.data(), source.bytes(), cudaMemcpyHostToDevice));
  VLB_CUDA_CHECK(cudaMemcpy(positions.data(), grid.data(), positions.bytes(), cudaMemcpyHostToDevice));
  VLB_CUDA_CHECK(cudaMemcpy(in_order.data(), k.data(), in_order.bytes(), cudaMemcpyHostToDevice));
  VLB_CUDA_CHECK(cudaMemset(overlapped.data(), 0xff, overlapped.bytes()));
  VLB_CUDA_CHECK(cudaDeviceSynchronize());  // the legacy stream's copies, before the test stream's kernels
  vlb::testing::TestStream stream;

  const auto rotation = [&](const DeviceBuffer& values) {
    return ProjectionOutput{nullptr, nullptr, values.as<bf16>(), RopeKind::kVision, positions.as<std::int64_t>(),
                            1.0f, RopeArithmetic::kReferenceBf16};
  };
  const ProjectionShape shape{rows, 1024, 4096, 1};

  // Every kernel loaded first: a kernel's first launch may load its module lazily, which waits for the GPU.
  DeviceBuffer scratch(count * sizeof(bf16));
  late_writer<<<1, 256, 0, stream.get()>>>(source.as<bf16>(), scratch.as<bf16>(), count, 0);
  VLB_CHECK_LAUNCH();
  launch_overlapping(overlapped.as<bf16>(), saw_poison.as<int>(), stream.get());
  const ProjectionOutput scratch_output = rotation(scratch);
  launch_staged_epilogue(scratch.as<bf16>(), shape, &scratch_output, stream.get(), LaunchOrder::kOverlapPrevious);
  stream.synchronize();
  late_writer<<<1, 256, 0, stream.get()>>>(source.as<bf16>(), overlapped.as<bf16>(), count, kWriterSpinCycles);
  VLB_CHECK_LAUNCH();
  launch_overlapping(overlapped.as<bf16>(), saw_poison.as<int>(), stream.get());
  stream.synchronize();
  int overlap_seen = 0;
  VLB_CUDA_CHECK(cudaMemcpy(&overlap_seen, saw_poison.data(), sizeof(int), cudaMemcpyDeviceToHost));
  INFO("a dependent launched this way ran before the writer wrote (else this test could not fail)");
  REQUIRE(overlap_seen == 1);

  VLB_CUDA_CHECK(cudaMemsetAsync(overlapped.data(), 0xff, overlapped.bytes(), stream.get()));
  late_writer<<<1, 256, 0, stream.get()>>>(source.as<bf16>(), overlapped.as<bf16>(), count, kWriterSpinCycles);
  VLB_CHECK_LAUNCH();
  const ProjectionOutput overlapped_output = rotation(overlapped);
  launch_staged_epilogue(overlapped.as<bf16>(), shape, &overlapped_output, stream.get(),
                         LaunchOrder::kOverlapPrevious);
  const ProjectionOutput in_order_output = rotation(in_order);
  launch_staged_epilogue(in_order.as<bf16>(), shape, &in_order_output, stream.get(), LaunchOrder::kAfterPrevious);
  stream.synchronize();
  const std::vector<std::uint16_t> got = bits_of(overlapped), want = bits_of(in_order);
  std::int64_t differing = 0;
  for (std::size_t i = 0; i < got.size(); ++i) differing += got[i] != want[i];
  INFO(differing << " of " << count << " elements differ from the pass launched in order");
  CHECK(differing == 0);
  CHECK(want != bits_of(source));  // the pass rotated something: equal outputs are not two untouched copies
}
