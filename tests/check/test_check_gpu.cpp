// compare_on_device agrees with compare_on_host on the same data; poison makes an unwritten element fail; the
// fingerprints catch a single modified byte anywhere, and are positional.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "harness/check/comparison.hpp"
#include "harness/check/guards.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/core/device_buffer.hpp"
#include "harness/inputs/input_set.hpp"
#include "support/gpu_test.hpp"

using vlb::CaseStatus;
using vlb::DeviceBuffer;

namespace {
using bf16 = __nv_bfloat16;

DeviceBuffer upload(const void* host, std::size_t bytes, cudaStream_t stream) {
  DeviceBuffer buffer(bytes);
  VLB_CUDA_CHECK(cudaMemcpyAsync(buffer.data(), host, bytes, cudaMemcpyHostToDevice, stream));
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return buffer;
}

void set_device_byte(void* device, std::size_t offset, unsigned char value, cudaStream_t stream) {
  VLB_CUDA_CHECK(cudaMemcpyAsync(static_cast<unsigned char*>(device) + offset, &value, 1, cudaMemcpyHostToDevice,
                                 stream));
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

unsigned char get_device_byte(const void* device, std::size_t offset, cudaStream_t stream) {
  unsigned char value = 0;
  VLB_CUDA_CHECK(cudaMemcpyAsync(&value, static_cast<const unsigned char*>(device) + offset, 1, cudaMemcpyDeviceToHost,
                                 stream));
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return value;
}

// Equal, or both NaN (the worst element of a NaN output is a NaN).
bool same_value(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

void check_same_stats(const vlb::ComparisonStats& a, const vlb::ComparisonStats& b) {
  CHECK(a.elements == b.elements);
  CHECK(a.matched == b.matched);
  CHECK(a.matched_ratio == b.matched_ratio);
  CHECK(a.max_abs_error == b.max_abs_error);
  CHECK(a.max_rel_error == b.max_rel_error);
  CHECK(a.worst_index == b.worst_index);
  CHECK(same_value(a.worst_output, b.worst_output));
  CHECK(a.worst_reference == b.worst_reference);
  CHECK(a.nan_count == b.nan_count);
  CHECK(a.inf_count == b.inf_count);
  CHECK(a.output_all_zero == b.output_all_zero);
  CHECK(a.reference_all_zero == b.reference_all_zero);
}
}  // namespace

TEST_CASE("compare_on_device agrees with compare_on_host", "[check][gpu]") {
  const std::uint32_t seed = GENERATE(41u, 42u);
  const bool with_non_finite = GENERATE(false, true);
  const std::size_t n = 1'000'003;  // many blocks, grid-stride loops and a ragged end
  std::mt19937 engine(seed);
  std::normal_distribution<float> normal(0.0f, 0.4f);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<bf16> reference(n), output(n);
  std::vector<double> reference_double(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float r = normal(engine);
    reference[i] = __float2bfloat16_rn(r);
    reference_double[i] = __bfloat162float(reference[i]);
    const float u = unit(engine);
    const float noise = u < 0.02f ? 0.2f * normal(engine) : 0.003f * normal(engine);  // 2% badly off
    output[i] = __float2bfloat16_rn(r + noise);
  }
  if (with_non_finite) {
    output[17] = __float2bfloat16_rn(std::numeric_limits<float>::quiet_NaN());
    output[n - 1] = __float2bfloat16_rn(std::numeric_limits<float>::infinity());
  }
  vlb::testing::TestStream stream;
  const auto d_out = upload(output.data(), n * sizeof(bf16), stream.get());
  const auto d_ref = upload(reference.data(), n * sizeof(bf16), stream.get());
  vlb::Tolerance tolerance;
  tolerance.atol = 0.01;
  const auto on_device = vlb::compare_on_device(d_out.as<bf16>(), d_ref.as<bf16>(), static_cast<std::int64_t>(n),
                                                tolerance, stream.get());
  const auto on_host = vlb::compare_on_host(output, reference_double, tolerance);
  check_same_stats(on_device, on_host);
  if (with_non_finite) CHECK(on_device.worst_index == 17);  // the first non-finite element
  CHECK(on_device.elements == static_cast<std::int64_t>(n));
  CHECK(on_device.matched_ratio > 0.9);
  CHECK(on_device.matched_ratio < 0.99);
  CHECK(on_device.nan_count == (with_non_finite ? 1 : 0));
  CHECK(on_device.inf_count == (with_non_finite ? 1 : 0));
}

TEST_CASE("a poisoned output with one unwritten element fails as NaN", "[check][guards][gpu]") {
  const std::int64_t n = 70'001;
  std::mt19937 engine(43);
  std::normal_distribution<float> normal(0.0f, 0.4f);
  std::vector<bf16> reference(static_cast<std::size_t>(n));
  for (auto& r : reference) r = __float2bfloat16_rn(normal(engine));
  vlb::testing::TestStream stream;
  const auto d_ref = upload(reference.data(), reference.size() * sizeof(bf16), stream.get());
  DeviceBuffer d_out(reference.size() * sizeof(bf16));
  vlb::poison_bf16(d_out.data(), n, stream.get());
  CHECK(get_device_byte(d_out.data(), 2 * 12345, stream.get()) == 0xC0);
  CHECK(get_device_byte(d_out.data(), 2 * 12345 + 1, stream.get()) == 0x7F);
  // "A solution" writes everything but element 31337.
  const std::int64_t skipped = 31337;
  VLB_CUDA_CHECK(cudaMemcpyAsync(d_out.data(), reference.data(), skipped * sizeof(bf16), cudaMemcpyHostToDevice,
                                 stream.get()));
  VLB_CUDA_CHECK(cudaMemcpyAsync(d_out.as<bf16>() + skipped + 1, reference.data() + skipped + 1,
                                 (n - skipped - 1) * sizeof(bf16), cudaMemcpyHostToDevice, stream.get()));
  vlb::Tolerance tolerance;
  tolerance.atol = 0.01;
  const auto stats = vlb::compare_on_device(d_out.as<bf16>(), d_ref.as<bf16>(), n, tolerance, stream.get());
  CHECK(stats.nan_count == 1);
  CHECK(stats.worst_index == skipped);
  CHECK(stats.matched == n - 1);
  const auto verdict = vlb::judge(stats, tolerance);
  CHECK(verdict.status == CaseStatus::kIncorrectNumerical);
  CHECK(verdict.reason.rfind("1 NaN elements", 0) == 0);
}

TEST_CASE("fingerprint_bytes detects any single modified byte and is positional", "[check][guards][gpu]") {
  const std::size_t bytes = 1'000'005;  // not a multiple of 8: a zero-padded tail word
  std::mt19937 engine(44);
  std::vector<unsigned char> data(bytes);
  for (auto& b : data) b = static_cast<unsigned char>(engine());
  vlb::testing::TestStream stream;
  auto device = upload(data.data(), bytes, stream.get());
  const std::uint64_t original = vlb::fingerprint_bytes(device.data(), bytes, stream.get());
  CHECK(vlb::fingerprint_bytes(device.data(), bytes, stream.get()) == original);  // deterministic

  for (std::size_t offset : {std::size_t{0}, std::size_t{7}, std::size_t{8}, std::size_t{123457}, bytes - 1}) {
    INFO("byte " << offset);
    const unsigned char old_value = data[offset];
    for (unsigned char flip : {0x01, 0x80}) {
      set_device_byte(device.data(), offset, static_cast<unsigned char>(old_value ^ flip), stream.get());
      CHECK(vlb::fingerprint_bytes(device.data(), bytes, stream.get()) != original);
    }
    set_device_byte(device.data(), offset, old_value, stream.get());
  }
  CHECK(vlb::fingerprint_bytes(device.data(), bytes, stream.get()) == original);

  // Swapping two different 8-byte words keeps the multiset of bytes but moves them.
  std::vector<unsigned char> swapped = data;
  std::swap_ranges(swapped.begin() + 800, swapped.begin() + 808, swapped.begin() + 8000);
  REQUIRE(swapped != data);
  const auto d_swapped = upload(swapped.data(), bytes, stream.get());
  CHECK(vlb::fingerprint_bytes(d_swapped.data(), bytes, stream.get()) != original);

  // An unaligned range hashes like the same bytes at an aligned address; a shorter range differs.
  const auto d_aligned_copy = upload(data.data() + 3, bytes - 3, stream.get());
  const std::uint64_t unaligned =
      vlb::fingerprint_bytes(static_cast<const unsigned char*>(device.data()) + 3, bytes - 3, stream.get());
  CHECK(unaligned == vlb::fingerprint_bytes(d_aligned_copy.data(), bytes - 3, stream.get()));
  CHECK(vlb::fingerprint_bytes(device.data(), bytes - 1, stream.get()) != original);
}

TEST_CASE("fingerprint_inputs names exactly the input with one modified byte", "[check][guards][gpu]") {
  const vlb::ProblemShape shape{2, 24, 196};
  vlb::testing::TestStream stream;
  vlb::DeviceInputs inputs(shape);
  inputs.generate({45, vlb::PositionPattern::kRandom}, stream.get());
  const auto before = vlb::fingerprint_inputs(inputs, stream.get());
  for (int i = 0; i < vlb::kNumInputs; ++i) {
    for (int j = i + 1; j < vlb::kNumInputs; ++j) CHECK(before[i] != before[j]);
  }
  CHECK(vlb::modified_inputs(before, vlb::fingerprint_inputs(inputs, stream.get())).empty());

  const auto id = GENERATE(vlb::TensorId::kVisionGridThw, vlb::TensorId::kKProjBias, vlb::TensorId::kOProjWeight);
  const std::size_t offset = inputs.bytes(id) / 2 + 1;
  const unsigned char old_value = get_device_byte(inputs.data(id), offset, stream.get());
  set_device_byte(inputs.data(id), offset, static_cast<unsigned char>(old_value ^ 0x10), stream.get());
  const auto after = vlb::fingerprint_inputs(inputs, stream.get());
  CHECK(vlb::modified_inputs(before, after) == std::string(vlb::tensor_name(id)));
}
