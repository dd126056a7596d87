// The staged epilogue kernel (the Blackwell projections' bias / RoPE / scale after the GEMM) on any GPU this build
// targets: seeded fp32 accumulators, biases and random positions in, bf16 out into NaN-poisoned buffers, checked
// element by element against a double-precision RoPE written out here (not through epilogue_math.hpp), for Q (1D
// RoPE, scale fold), K (sectioned 3D RoPE) and V (bias only) in one launch, both RopeArithmetic choices.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "harness/core/cuda_check.hpp"
#include "harness/core/device_buffer.hpp"
#include "solutions/fused_b200/projection_staged_epilogue.hpp"
#include "support/gpu_test.hpp"

using namespace vlb;
using namespace vlb::fused_b200;

namespace {

// One bf16 rounding of the result is 2^-9 relative; the reference arithmetic's bf16 steps (operands, cos/sin, each
// product and the sum) add a few more; a wrong pair, frequency, position, bias, scale or row is off by O(1).
constexpr double kAtol = 0.02;
constexpr double kRtol = 0.03;

struct HostGroup {
  RopeKind rope = RopeKind::kNone;
  std::vector<float> bias;               // bf16 values
  std::vector<std::int64_t> positions;   // [rows] or [rows, 3]
  float scale = 1.0f;
};

float bf16_value(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }

// (partner column, sign, frequency index, rotated width, position axis) of column d of a head.
struct Pair { int partner; double sign; int freq; int width; int axis; };
Pair pair_of(RopeKind rope, int d) {
  if (rope == RopeKind::kLanguage) return d < 64 ? Pair{d + 64, -1, d, 128, 0} : Pair{d - 64, 1, d - 64, 128, 0};
  const int start = d < 42 ? 0 : d < 84 ? 42 : 84;
  const int width = start == 84 ? 44 : 42;
  const int j = d - start;
  const int axis = start / 42;
  return j < width / 2 ? Pair{start + j + width / 2, -1, j, width, axis}
                       : Pair{start + j - width / 2, 1, j - width / 2, width, axis};
}

double expected(const std::vector<float>& staged, const HostGroup& group, std::int64_t row, std::int64_t columns,
                std::int64_t column) {
  const float* acc = staged.data() + row * columns;
  const double x = static_cast<double>(acc[column]) + group.bias[column];
  if (group.rope == RopeKind::kNone) return x * group.scale;
  const int d = static_cast<int>(column % 128);
  const Pair pair = pair_of(group.rope, d);
  const std::int64_t partner_column = column - d + pair.partner;
  const double partner = static_cast<double>(acc[partner_column]) + group.bias[partner_column];
  const double position = static_cast<double>(
      group.rope == RopeKind::kLanguage ? group.positions[row] : group.positions[row * 3 + pair.axis]);
  const double angle = position * std::pow(10000.0, -2.0 * pair.freq / pair.width);
  return (x * std::cos(angle) + pair.sign * partner * std::sin(angle)) * group.scale;
}

void check_group(const char* what, const std::vector<float>& staged, const HostGroup& group, std::int64_t rows,
                 std::int64_t columns, const DeviceBuffer& output) {
  std::vector<__nv_bfloat16> got(static_cast<std::size_t>(rows * columns));
  VLB_CUDA_CHECK(cudaMemcpy(got.data(), output.data(), got.size() * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
  std::int64_t failed = 0;
  double worst = 0;
  for (std::int64_t row = 0; row < rows; ++row) {
    for (std::int64_t column = 0; column < columns; ++column) {
      const double want = expected(staged, group, row, columns, column);
      const double value = __bfloat162float(got[static_cast<std::size_t>(row * columns + column)]);
      const double error = std::abs(value - want);
      if (!(error <= kAtol + kRtol * std::abs(want))) ++failed;  // NaN (an unwritten element) fails too
      worst = std::max(worst, error);
    }
  }
  INFO(what << ": " << failed << " of " << rows * columns << " elements off, max |err| " << worst);
  CHECK(failed == 0);
}

}  // namespace

TEST_CASE("staged epilogue: bias, 1D and sectioned 3D RoPE, scale, from fp32 accumulators", "[fused_b200][gpu]") {
  const auto arithmetic = GENERATE(RopeArithmetic::kFp32, RopeArithmetic::kReferenceBf16);
  INFO("arithmetic " << static_cast<int>(arithmetic));
  std::mt19937_64 rng(arithmetic == RopeArithmetic::kFp32 ? 9001 : 9002);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<std::int64_t> position(0, 12543);
  vlb::testing::TestStream stream;

  // Q: 37 rows (not a multiple of the kernel's 4-row blocks) x 4096; K and V: 37 rows x 1024, two groups.
  for (const auto& [columns, groups] : {std::pair<std::int64_t, int>{4096, 1}, std::pair<std::int64_t, int>{1024, 2}}) {
    const std::int64_t rows = 37;
    const ProjectionShape shape{rows, columns, 4096, groups};
    std::vector<float> staged(static_cast<std::size_t>(groups * rows * columns));
    for (float& value : staged) value = normal(rng);
    HostGroup host[2];
    DeviceBuffer bias_buffers[2] = {DeviceBuffer(columns * 2), DeviceBuffer(columns * 2)};
    DeviceBuffer position_buffers[2] = {DeviceBuffer(rows * 3 * 8), DeviceBuffer(rows * 3 * 8)};
    DeviceBuffer outputs[2] = {DeviceBuffer(rows * columns * 2), DeviceBuffer(rows * columns * 2)};
    ProjectionOutput launch_outputs[2];
    for (int g = 0; g < groups; ++g) {
      HostGroup& group = host[g];
      group.rope = groups == 1 ? RopeKind::kLanguage : (g == 0 ? RopeKind::kVision : RopeKind::kNone);
      group.scale = groups == 1 ? 0.088388347648318447f : 1.0f;
      std::vector<__nv_bfloat16> bias(static_cast<std::size_t>(columns));
      for (auto& value : bias) value = __float2bfloat16_rn(0.02f * normal(rng));
      for (const auto& value : bias) group.bias.push_back(__bfloat162float(value));
      group.positions.resize(static_cast<std::size_t>(rows * 3));
      for (auto& value : group.positions) value = position(rng);
      VLB_CUDA_CHECK(cudaMemcpy(bias_buffers[g].data(), bias.data(), columns * 2, cudaMemcpyHostToDevice));
      VLB_CUDA_CHECK(cudaMemcpy(position_buffers[g].data(), group.positions.data(), rows * 3 * 8,
                                cudaMemcpyHostToDevice));
      VLB_CUDA_CHECK(cudaMemset(outputs[g].data(), 0xff, rows * columns * 2));  // bf16 NaN
      launch_outputs[g] = ProjectionOutput{nullptr, bias_buffers[g].as<bf16>(), outputs[g].as<bf16>(), group.rope,
                                           position_buffers[g].as<std::int64_t>(), group.scale, arithmetic};
    }
    DeviceBuffer staged_device(staged.size() * sizeof(float));
    VLB_CUDA_CHECK(cudaMemcpy(staged_device.data(), staged.data(), staged.size() * sizeof(float),
                              cudaMemcpyHostToDevice));
    // The uploads and the NaN fill ran on the legacy stream, which the test's non-blocking stream does not wait for
    // (and a pageable cudaMemcpy may return before its DMA lands): without this the kernel raced them (run L).
    VLB_CUDA_CHECK(cudaDeviceSynchronize());
    launch_staged_epilogue(staged_device.as<float>(), shape, launch_outputs, stream.get());
    stream.synchronize();
    for (int g = 0; g < groups; ++g) {
      const std::vector<float> slice(staged.begin() + g * rows * columns, staged.begin() + (g + 1) * rows * columns);
      check_group(groups == 1 ? "Q" : (g == 0 ? "K" : "V"), slice, host[g], rows, columns, outputs[g]);
    }
  }
}

TEST_CASE("staged epilogue: a rotating output without positions is a usage error", "[fused_b200][gpu]") {
  DeviceBuffer staged(128 * 4), output(128 * 2);
  const ProjectionOutput outputs[1] = {
      ProjectionOutput{nullptr, nullptr, output.as<bf16>(), RopeKind::kLanguage, nullptr, 1.0f}};
  CHECK_THROWS_AS(launch_staged_epilogue(staged.as<float>(), {1, 128, 4096, 1}, outputs, nullptr), UsageError);
}
