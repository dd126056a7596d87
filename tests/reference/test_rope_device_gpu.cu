// The shared RoPE math gives the same bits on the device as on the host: cos/sin in bf16 and the bf16 rotation,
// for both variants, positions up to 32767.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "harness/core/cuda_check.hpp"
#include "harness/core/device_buffer.hpp"
#include "reference/rope_math.hpp"
#include "support/gpu_test.hpp"

namespace rope = vlb::reference::rope;

namespace {
struct RopeProbe {
  std::int64_t position;
  int pair;
  bool three_d;
  float low, high;           // in: bf16 values
  float cos, sin;            // out
  float low_out, high_out;   // out
  float angle;               // out
};

__global__ void evaluate_kernel(RopeProbe* probes, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  RopeProbe& probe = probes[i];
  const rope::RopePair pair = probe.three_d ? rope::pair_3d(probe.pair) : rope::pair_1d(probe.pair);
  probe.angle = rope::angle_fp32(probe.position, pair.freq_index, pair.width);
  const rope::CosSin cs = rope::cos_sin_bf16(probe.position, pair.freq_index, pair.width);
  probe.cos = cs.cos;
  probe.sin = cs.sin;
  float low = probe.low, high = probe.high;
  rope::rotate_pair_bf16(low, high, cs);
  probe.low_out = low;
  probe.high_out = high;
}
}  // namespace

TEST_CASE("RoPE math is bit-identical on host and device", "[reference][rope][gpu]") {
  std::mt19937 engine(501);
  std::uniform_int_distribution<int> position(0, 32767), pair(0, 63);
  std::normal_distribution<float> normal(0.0f, 1.3f);
  std::vector<RopeProbe> probes(20000);
  for (std::size_t i = 0; i < probes.size(); ++i) {
    auto& p = probes[i];
    p.position = i < 4096 ? static_cast<std::int64_t>(i) : position(engine);
    p.pair = pair(engine);
    p.three_d = (i % 2) == 1;
    p.low = rope::round_bf16(normal(engine));
    p.high = rope::round_bf16(normal(engine));
  }
  vlb::testing::TestStream stream;
  vlb::DeviceBuffer device(probes.size() * sizeof(RopeProbe));
  VLB_CUDA_CHECK(cudaMemcpyAsync(device.data(), probes.data(), device.bytes(), cudaMemcpyHostToDevice, stream.get()));
  const int count = static_cast<int>(probes.size());
  evaluate_kernel<<<(count + 255) / 256, 256, 0, stream.get()>>>(device.as<RopeProbe>(), count);
  VLB_CHECK_LAUNCH();
  std::vector<RopeProbe> results(probes.size());
  VLB_CUDA_CHECK(cudaMemcpyAsync(results.data(), device.data(), device.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  int mismatches = 0;
  for (std::size_t i = 0; i < probes.size() && mismatches < 10; ++i) {
    const RopeProbe& p = probes[i];
    const RopeProbe& d = results[i];
    const rope::RopePair pr = p.three_d ? rope::pair_3d(p.pair) : rope::pair_1d(p.pair);
    const float angle = rope::angle_fp32(p.position, pr.freq_index, pr.width);
    const rope::CosSin cs = rope::cos_sin_bf16(p.position, pr.freq_index, pr.width);
    float low = p.low, high = p.high;
    rope::rotate_pair_bf16(low, high, cs);
    const bool same = d.angle == angle && d.cos == cs.cos && d.sin == cs.sin && d.low_out == low && d.high_out == high;
    if (!same) {
      ++mismatches;
      INFO("position " << p.position << " pair " << p.pair << " 3d " << p.three_d << ": angle " << d.angle << " vs "
                       << angle << ", cos " << d.cos << " vs " << cs.cos << ", sin " << d.sin << " vs " << cs.sin
                       << ", low " << d.low_out << " vs " << low << ", high " << d.high_out << " vs " << high);
      CHECK(same);
    }
  }
  CHECK(mismatches == 0);
}
