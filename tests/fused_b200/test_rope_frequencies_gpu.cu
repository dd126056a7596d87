// The fused epilogue's RoPE inverse frequencies on the device against the official table (made on the GPU with
// PyTorch, reference/rope_inv_freq_table.hpp), bit for bit: the same fp32 powf, so the same angles as the reference.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "harness/core/cuda_check.hpp"
#include "harness/core/device_buffer.hpp"
#include "reference/rope_inv_freq_table.hpp"
#include "solutions/fused_b200/epilogue_math.hpp"
#include "support/gpu_test.hpp"

namespace {

__global__ void inverse_frequencies(int width, float* out) {
  const int i = static_cast<int>(threadIdx.x);
  if (i < width / 2) out[i] = vlb::fused_b200::rope_inv_freq(i, width);
}

std::vector<float> on_device(int width) {
  vlb::DeviceBuffer values(sizeof(float) * width / 2);
  inverse_frequencies<<<1, 64>>>(width, values.as<float>());
  VLB_CHECK_LAUNCH();
  std::vector<float> host(width / 2);
  VLB_CUDA_CHECK(cudaMemcpy(host.data(), values.data(), values.bytes(), cudaMemcpyDeviceToHost));
  return host;
}

}  // namespace

TEST_CASE("the fused epilogue's inverse frequencies are the official table's, bit for bit", "[fused_b200][rope][gpu]") {
  (void)vlb::testing::test_device();
  REQUIRE(std::string(VLB_ROPE_INV_FREQ_DEVICE) == "cuda");
  const std::vector<float> q_table = {VLB_ROPE_INV_FREQ_WIDTH_128};
  const std::vector<float> t_h_table = {VLB_ROPE_INV_FREQ_WIDTH_42};
  const std::vector<float> w_table = {VLB_ROPE_INV_FREQ_WIDTH_44};
  for (const auto& [width, table] : {std::pair{128, q_table}, std::pair{42, t_h_table}, std::pair{44, w_table}}) {
    const std::vector<float> device = on_device(width);
    REQUIRE(device.size() == table.size());
    for (std::size_t i = 0; i < table.size(); ++i) {
      INFO("width " << width << " i " << i << ": device " << device[i] << " table " << table[i]);
      CHECK(std::memcmp(&device[i], &table[i], sizeof(float)) == 0);
    }
  }
}
