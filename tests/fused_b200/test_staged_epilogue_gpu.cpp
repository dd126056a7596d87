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

namespace {

std::vector<std::uint16_t> bf16_bits(const DeviceBuffer& buffer, std::size_t elements) {
  std::vector<std::uint16_t> bits(elements);
  VLB_CUDA_CHECK(cudaMemcpy(bits.data(), buffer.data(), elements * sizeof(std::uint16_t), cudaMemcpyDeviceToHost));
  return bits;
}

}  // namespace

// K's pass after cuBLAS (bf16 in place) runs the tiled kernel; its bits must be those of the fp32 path fed the same
// values, which the test above checks against the double-precision RoPE. Row counts from the kernel's threshold (16384)
// and off its 16- and 4-row tiles; rows past the end poisoned and checked untouched; fewer rows or a misaligned row
// start take the slot walk.
TEST_CASE("staged epilogue: bf16 values through the tiled kernel give the fp32 path's bits", "[fused_b200][gpu]") {
  const auto arithmetic = GENERATE(RopeArithmetic::kFp32, RopeArithmetic::kReferenceBf16);
  std::mt19937_64 rng(arithmetic == RopeArithmetic::kFp32 ? 9101 : 9102);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<std::int64_t> position(0, 12543);
  vlb::testing::TestStream stream;
  struct Form { RopeKind rope; std::int64_t rows, columns; bool bias; float scale; std::int64_t offset; };
  const Form forms[] = {
      {RopeKind::kVision, 18821, 1024, false, 1.0f, 0},  // K's pass as the fused operation runs it (case 12 + 5)
      {RopeKind::kLanguage, 16387, 4096, false, 0.088388347648318447f, 0},
      {RopeKind::kNone, 16389, 1024, false, 0.5f, 0},
      {RopeKind::kVision, 16391, 1024, true, 1.0f, 0},
      {RopeKind::kVision, 16391, 1024, false, 1.0f, 1},  // one element off 16 bytes: the slot walk
      {RopeKind::kVision, 1571, 1024, false, 1.0f, 0},   // below the threshold: the slot walk
  };
  constexpr std::int64_t kGuardRows = 3;
  for (const Form& form : forms) {
    INFO("rope " << static_cast<int>(form.rope) << ", " << form.rows << "x" << form.columns << ", offset "
                 << form.offset << ", arithmetic " << static_cast<int>(arithmetic));
    const std::int64_t elements = form.rows * form.columns;
    const std::int64_t allocated = form.offset + (form.rows + kGuardRows) * form.columns;
    std::vector<__nv_bfloat16> values(static_cast<std::size_t>(allocated));
    for (auto& value : values) value = __float2bfloat16_rn(normal(rng));
    std::vector<float> as_float(static_cast<std::size_t>(elements));
    for (std::int64_t i = 0; i < elements; ++i) as_float[i] = __bfloat162float(values[form.offset + i]);
    std::vector<__nv_bfloat16> bias(static_cast<std::size_t>(form.columns));
    for (auto& value : bias) value = __float2bfloat16_rn(0.02f * normal(rng));
    std::vector<std::int64_t> positions(static_cast<std::size_t>(form.rows * 3));
    for (auto& value : positions) value = position(rng);

    DeviceBuffer in_place(allocated * 2), out_of_place(allocated * 2), from_fp32(allocated * 2);
    DeviceBuffer staged_fp32(elements * 4), bias_device(form.columns * 2), positions_device(positions.size() * 8);
    VLB_CUDA_CHECK(cudaMemcpy(in_place.data(), values.data(), allocated * 2, cudaMemcpyHostToDevice));
    VLB_CUDA_CHECK(cudaMemset(out_of_place.data(), 0xff, allocated * 2));  // bf16 NaN
    VLB_CUDA_CHECK(cudaMemset(from_fp32.data(), 0xff, allocated * 2));
    VLB_CUDA_CHECK(cudaMemcpy(staged_fp32.data(), as_float.data(), elements * 4, cudaMemcpyHostToDevice));
    VLB_CUDA_CHECK(cudaMemcpy(bias_device.data(), bias.data(), form.columns * 2, cudaMemcpyHostToDevice));
    VLB_CUDA_CHECK(cudaMemcpy(positions_device.data(), positions.data(), positions.size() * 8,
                              cudaMemcpyHostToDevice));
    DeviceBuffer source(allocated * 2);  // the out-of-place launch's values, never written
    VLB_CUDA_CHECK(cudaMemcpy(source.data(), values.data(), allocated * 2, cudaMemcpyHostToDevice));
    VLB_CUDA_CHECK(cudaDeviceSynchronize());  // the uploads ran on the legacy stream (see above)

    const ProjectionShape shape{form.rows, form.columns, 4096, 1};
    const bf16* bias_pointer = form.bias ? bias_device.as<bf16>() : nullptr;
    auto output_at = [&](DeviceBuffer& buffer) {
      return ProjectionOutput{nullptr, bias_pointer, buffer.as<bf16>() + form.offset, form.rope,
                              positions_device.as<std::int64_t>(), form.scale, arithmetic};
    };
    const ProjectionOutput in_place_output = output_at(in_place), out_of_place_output = output_at(out_of_place),
                           fp32_output = output_at(from_fp32);
    const bf16* in_place_values = in_place.as<bf16>() + form.offset;
    const StagedEpilogueKernel expected_kernel = form.offset == 0 && form.rows >= 16384
                                                     ? StagedEpilogueKernel::kTiles
                                                     : StagedEpilogueKernel::kSlotWalk;
    CHECK(staged_epilogue_kernel_for(in_place_values, shape, &in_place_output) == expected_kernel);
    launch_staged_epilogue(in_place_values, shape, &in_place_output, stream.get());
    launch_staged_epilogue(source.as<bf16>() + form.offset, shape, &out_of_place_output, stream.get());
    launch_staged_epilogue(staged_fp32.as<float>(), shape, &fp32_output, stream.get());
    stream.synchronize();

    const auto want = bf16_bits(from_fp32, static_cast<std::size_t>(allocated));
    const auto got_in_place = bf16_bits(in_place, static_cast<std::size_t>(allocated));
    const auto got_out_of_place = bf16_bits(out_of_place, static_cast<std::size_t>(allocated));
    std::int64_t in_place_differ = 0, out_of_place_differ = 0, guard_written = 0;
    for (std::int64_t i = form.offset; i < form.offset + elements; ++i) {
      in_place_differ += got_in_place[i] != want[i];
      out_of_place_differ += got_out_of_place[i] != want[i];
    }
    for (std::int64_t i = form.offset + elements; i < allocated; ++i) {
      guard_written += got_out_of_place[i] != 0xffffu;
      guard_written += got_in_place[i] != __bfloat16_as_ushort(values[i]);
    }
    CHECK(in_place_differ == 0);
    CHECK(out_of_place_differ == 0);
    CHECK(guard_written == 0);
    // And the values themselves, against the double-precision RoPE (the first test's check, on these inputs), on the
    // first and last 37 rows: over all ~17M elements the reference arithmetic's bf16 steps put a rare near-cancelling
    // element past that check's absolute margin, and the bits are already the fp32 path's.
    constexpr std::int64_t kCheckedRows = 37;
    for (const std::int64_t first_row : {std::int64_t{0}, form.rows - kCheckedRows}) {
      HostGroup host;
      host.rope = form.rope;
      host.scale = form.scale;
      for (const auto& value : bias) host.bias.push_back(form.bias ? __bfloat162float(value) : 0.0f);
      const std::int64_t positions_per_row = form.rope == RopeKind::kLanguage ? 1 : 3;
      host.positions.assign(positions.begin() + first_row * positions_per_row, positions.end());
      const std::vector<float> slice(as_float.begin() + first_row * form.columns,
                                     as_float.begin() + (first_row + kCheckedRows) * form.columns);
      DeviceBuffer rotated(kCheckedRows * form.columns * 2);
      VLB_CUDA_CHECK(cudaMemcpy(rotated.data(), in_place_values + first_row * form.columns,
                                kCheckedRows * form.columns * 2, cudaMemcpyDeviceToDevice));
      check_group("bf16 in place", slice, host, kCheckedRows, form.columns, rotated);
    }
  }
}
