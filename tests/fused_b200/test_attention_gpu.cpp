// The attention stage alone (sm_90a, or sm_100a on a B200) against the double-precision attention of
// support_attention_reference, on tails of Lq (token blocks of 32) and Lv (KV blocks of 128), one and many tiles per
// CTA, with seeded inputs and a NaN-poisoned output whose guard rows past the last token must stay untouched; and, on
// Hopper, Q's RoPE inside the attention (AttentionQueryRope) against Q rotated beforehand by the staged epilogue
// kernel, bit for bit; V's bias added to the output where V comes without it (AttentionBiases); and, where every
// key is in one KV block or few tokens span a few, the reference's rounding points against the reference's own CPU
// attention.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "harness/check/guards.hpp"
#include "harness/core/device_buffer.hpp"
#include "solutions/fused_b200/attention.hpp"
#include "solutions/fused_b200/projection_staged_epilogue.hpp"
#include "support/gpu_test.hpp"
#include "support_attention_reference.hpp"
#include "support_projection_reference.hpp"
#include "support_fused_device.hpp"

using namespace vlb;
using namespace vlb::fused_b200;
namespace reference = vlb::fused_b200::testing;

namespace {

constexpr std::int64_t kRowElements = 32 * 128;  // one token's output
constexpr std::int64_t kGuardTokens = 40;        // poisoned rows after the output: more than a token block

// O is a convex combination of V rows (|v| ~ 1.3, up to ~6): bf16 P (2^-9 relative per weight) and the final bf16
// rounding stay far below these; a wrong key, head, mask or row is off by O(1).
constexpr double kAtol = 0.01;
constexpr double kRtol = 0.02;

// Where every key is in one block of this many, or few tokens span a few blocks, the kernel takes the reference's
// rounding points (attention_softmax_form; v27, v28): its bf16 scores sit up to ~3% from the exact softmax, beyond
// kRtol, so there the rows to meet are the reference's own attention (reference/cpu_faithful.cpp), under the same
// tolerances.
bool takes_reference_rounding(const AttentionShape& shape, int sm_count, bool split) {
  return attention_kernel_softmax_form(shape, sm_count, split) != SoftmaxForm::kOnline;
}

std::vector<double> reference_rounded_rows(const reference::AttentionInputsHost& inputs,
                                           const std::vector<std::int64_t>& tokens) {
  const std::vector<float> all = reference::reference_rounded_attention(inputs);
  std::vector<double> rows;
  rows.reserve(tokens.size() * kRowElements);
  for (const std::int64_t token : tokens) rows.insert(rows.end(), all.begin() + token * kRowElements,
                                                      all.begin() + (token + 1) * kRowElements);
  return rows;
}

DeviceBuffer upload(const std::vector<__nv_bfloat16>& host, cudaStream_t stream) {
  DeviceBuffer buffer(host.size() * sizeof(__nv_bfloat16));
  VLB_CUDA_CHECK(cudaMemcpyAsync(buffer.data(), host.data(), buffer.bytes(), cudaMemcpyHostToDevice, stream));
  return buffer;
}

// How a check launches: on how many SMs' worth of CTAs, whether with the split last wave's workspace, and whether V
// comes without its bias for the kernel to add (AttentionBiases; Hopper).
struct LaunchUnderTest {
  int sm_count = 0;  // 0: the device's
  bool split = false;
  bool v_bias = false;
};

// A bias for a check: [-0.5, 0.5), far above the tolerance, so that a bias left out, doubled or taken from another
// head's columns fails.
std::vector<__nv_bfloat16> random_bias(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-0.5f, 0.5f);
  std::vector<__nv_bfloat16> bias(count);
  for (auto& value : bias) value = __float2bfloat16_rn(uniform(rng));
  return bias;
}

void check_attention(const AttentionShape& shape, std::uint64_t seed, LaunchUnderTest launch = {}) {
  const int sm_count = launch.sm_count > 0 ? launch.sm_count : vlb::testing::test_device().sm_count;
  INFO("B=" << shape.batch << " Lq=" << shape.lang_seq << " Lv=" << shape.vision_seq << " seed " << seed << " on "
            << sm_count << " SMs" << (launch.split ? ", split" : "") << (launch.v_bias ? ", V's bias in" : ""));
  vlb::testing::TestStream stream;
  const auto inputs = reference::make_attention_inputs(shape.batch, shape.lang_seq, shape.vision_seq, seed);
  const DeviceBuffer q = upload(inputs.q, stream.get());
  const DeviceBuffer k = upload(inputs.k, stream.get());
  const DeviceBuffer v = upload(inputs.v, stream.get());
  const std::int64_t tokens = shape.batch * shape.lang_seq;
  const std::int64_t out_elements = (tokens + kGuardTokens) * kRowElements;
  DeviceBuffer out(static_cast<std::size_t>(out_elements) * sizeof(__nv_bfloat16));
  poison_bf16(out.data(), out_elements, stream.get());

  // The split's workspace as the judge hands it over: random bytes, flags included, until clear_attention_split.
  const std::size_t split_bytes = launch.split ? attention_split_workspace_bytes(shape, sm_count) : 0;
  if (launch.split) REQUIRE(split_bytes > 0);
  DeviceBuffer split_workspace(std::max<std::size_t>(split_bytes, 1));
  const AttentionSplitWorkspace split{launch.split ? split_workspace.data() : nullptr, split_bytes};
  if (launch.split) {
    scramble_bytes(split_workspace.data(), split_bytes, seed, stream.get());
    clear_attention_split(split, shape, sm_count, stream.get());
  }
  const std::vector<__nv_bfloat16> host_bias = random_bias(8 * 128, seed + 1);
  const DeviceBuffer bias = upload(host_bias, stream.get());
  AttentionTensors tensors{q.as<__nv_bfloat16>(), k.as<__nv_bfloat16>(), v.as<__nv_bfloat16>(), out.as<__nv_bfloat16>()};
  if (launch.v_bias) tensors.biases.v = bias.as<__nv_bfloat16>();
  launch_attention(tensors, shape, sm_count, stream.get(), LaunchOrder::kAfterPrevious, split);
  stream.synchronize();

  std::vector<__nv_bfloat16> host_out(static_cast<std::size_t>(out_elements));
  VLB_CUDA_CHECK(cudaMemcpy(host_out.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost));

  // Guard rows: still the poison's bit pattern.
  __nv_bfloat16 poison_value;
  {
    DeviceBuffer one(sizeof(__nv_bfloat16));
    poison_bf16(one.data(), 1, stream.get());
    stream.synchronize();
    VLB_CUDA_CHECK(cudaMemcpy(&poison_value, one.data(), sizeof(poison_value), cudaMemcpyDeviceToHost));
  }
  std::int64_t guard_written = 0;
  for (std::int64_t i = tokens * kRowElements; i < out_elements; ++i) {
    guard_written += std::memcmp(&host_out[i], &poison_value, sizeof(poison_value)) != 0;
  }
  CHECK(guard_written == 0);

  const std::vector<std::int64_t> checked = reference::rows_to_check(tokens, seed);
  std::vector<double> reference = takes_reference_rounding(shape, sm_count, launch.split)
                                      ? reference_rounded_rows(inputs, checked)
                                      : reference::reference_attention(inputs, checked);
  if (launch.v_bias) {  // softmax's rows sum to one: the output with V + bias is the output plus the bias, exactly
    for (std::size_t i = 0; i < reference.size(); ++i) {
      const std::int64_t element = static_cast<std::int64_t>(i) % kRowElements;  // query head * 128 + dim
      reference[i] += static_cast<double>(__bfloat162float(host_bias[element / (4 * 128) * 128 + element % 128]));
    }
  }
  std::vector<__nv_bfloat16> rows(checked.size() * kRowElements);
  for (std::size_t r = 0; r < checked.size(); ++r) {
    std::memcpy(rows.data() + r * kRowElements, host_out.data() + checked[r] * kRowElements,
                kRowElements * sizeof(__nv_bfloat16));
  }
  const auto check = reference::check_rows(rows, reference, checked, kRowElements, kAtol, kRtol);
  INFO(check.failed << " of " << check.elements << " elements off, max |err| " << check.max_abs_error << ", worst "
                    << check.worst);
  CHECK(check.elements == static_cast<std::int64_t>(checked.size()) * kRowElements);
  CHECK(check.failed == 0);
}

}  // namespace

TEST_CASE("attention: the smallest tails (one token, one key; partial token and KV blocks)",
          "[fused_b200][attention][quick][gpu]") {
  if (vlb::fused_b200::testing::skip_without_fused_kernels("attention")) return;
  check_attention({1, 1, 1}, 7000);
  check_attention({1, 5, 7}, 7001);
  check_attention({2, 33, 129}, 7002);
}

TEST_CASE("attention: tails of Lq and Lv, one KV block and many", "[fused_b200][attention][gpu]") {
  if (vlb::fused_b200::testing::skip_without_fused_kernels("attention")) return;
  const AttentionShape shapes[] = {
      {1, 1, 1},     {1, 5, 7},      {2, 33, 129},   {3, 128, 196},  {1, 31, 128},
      {2, 100, 256}, {1, 373, 588},  {2, 541, 980},  {1, 64, 1000},  {4, 256, 392},
      // Each width the last KV block runs at (attention_tail_width): 17 keys (32), 32, 44 (64), 64, 65 (96), 97.
      {1, 40, 145},  {2, 64, 1568},  {1, 96, 300},   {1, 50, 192},   {2, 70, 321},   {1, 33, 225},
  };
  std::uint64_t seed = 7100;
  for (const AttentionShape& shape : shapes) check_attention(shape, seed++);
}

TEST_CASE("attention: many tiles per persistent CTA, long Lv", "[fused_b200][attention][gpu]") {
  if (vlb::fused_b200::testing::skip_without_fused_kernels("attention")) return;
  check_attention({8, 512, 784}, 7200);     // 1024 tiles on 132 SMs
  check_attention({1, 1024, 12544}, 7201);  // 98 KV blocks through 2 stages
}

TEST_CASE("attention: the last wave split across the KV range, on the suite's split shapes and random grids",
          "[fused_b200][attention][gpu]") {
  // Hopper only: the sm100 kernel does not split its last wave (BLACKWELL.md).
  if (vlb::fused_b200::testing::skip_unless_hopper_kernels("the split attention")) return;
  // Workload 5 at 132 SMs (100 tiles of 49 blocks left over), 56 tiles of 98 blocks on 100 CTAs, 4 tiles of 20
  // blocks on 12 CTAs (3 or 4 pieces a tile), and one tile of 20 blocks on 23 CTAs (20 pieces merged, 3 CTAs idle).
  check_attention({1, 4096, 6272}, 7300, {132, true});
  check_attention({1, 1024, 12544}, 7301, {100, true});
  check_attention({1, 64, 2500}, 7302, {12, true});
  check_attention({1, 96, 2500}, 7303, {23, true});
  // Fresh shapes and grids that split (a small grid splits small shapes), tails of Lq and Lv included.
  const std::uint64_t seed = std::random_device{}();
  INFO("shapes from seed " << seed);
  std::mt19937_64 rng(seed);
  int checked = 0;
  while (checked < 12) {
    const AttentionShape shape{std::uniform_int_distribution<std::int64_t>(1, 4)(rng),
                               std::uniform_int_distribution<std::int64_t>(1, 300)(rng),
                               std::uniform_int_distribution<std::int64_t>(1, 2500)(rng)};
    const int sm_count = std::uniform_int_distribution<int>(2, 132)(rng);
    if (attention_split_workspace_bytes(shape, sm_count) == 0) continue;
    check_attention(shape, rng(), {sm_count, true});
    ++checked;
  }
}

TEST_CASE("attention: V's bias added to the output where V comes without it, split and not",
          "[fused_b200][attention][gpu]") {
  // Hopper only: the sm100 kernel takes V with its bias (BLACKWELL.md).
  if (vlb::fused_b200::testing::skip_unless_hopper_kernels("V's bias in the attention")) return;
  check_attention({2, 33, 129}, 7500, {0, false, true});
  check_attention({8, 128, 196}, 7501, {0, false, true});  // workload 8
  check_attention({2, 541, 980}, 7502, {0, false, true});
  check_attention({1, 96, 2500}, 7503, {23, true, true});  // merged pieces normalize and then add it
  check_attention({1, 4096, 6272}, 7504, {132, true, true});
}

namespace {

// The attention's output bits for `inputs` (one launch on the device's SMs, unsplit), as the reference's CPU
// attention reads them: floats of the bf16 values.
std::vector<float> attention_output(const reference::AttentionInputsHost& inputs) {
  vlb::testing::TestStream stream;
  const AttentionShape shape{inputs.batch, inputs.lang_seq, inputs.vision_seq};
  const DeviceBuffer q = upload(inputs.q, stream.get());
  const DeviceBuffer k = upload(inputs.k, stream.get());
  const DeviceBuffer v = upload(inputs.v, stream.get());
  const std::int64_t elements = inputs.batch * inputs.lang_seq * kRowElements;
  DeviceBuffer out(static_cast<std::size_t>(elements) * sizeof(__nv_bfloat16));
  poison_bf16(out.data(), elements, stream.get());
  launch_attention({q.as<bf16>(), k.as<bf16>(), v.as<bf16>(), out.as<bf16>()}, shape,
                   vlb::testing::test_device().sm_count, stream.get(), LaunchOrder::kAfterPrevious, {});
  stream.synchronize();
  std::vector<__nv_bfloat16> host(static_cast<std::size_t>(elements));
  VLB_CUDA_CHECK(cudaMemcpy(host.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost));
  return reference::as_floats(host);
}

// The share of output elements equal to the reference's own attention (reference/cpu_faithful.cpp: bf16 scores,
// scaled and rounded, fp32 softmax, P normalized then rounded, O rounded) on the same bf16 Q, K and V.
double share_equal_to_reference(const AttentionShape& shape, std::uint64_t seed) {
  const auto inputs = reference::make_attention_inputs(shape.batch, shape.lang_seq, shape.vision_seq, seed);
  const std::vector<float> out = attention_output(inputs);
  const std::vector<float> expected = reference::reference_rounded_attention(inputs);
  REQUIRE(expected.size() == out.size());
  std::int64_t equal = 0;
  for (std::size_t i = 0; i < out.size(); ++i) equal += out[i] == expected[i];  // a NaN (poison left) is unequal
  return static_cast<double>(equal) / static_cast<double>(out.size());
}

// Where the reference's rounding points are in effect, all but the rare element whose score or sum lands on a
// bf16 rounding boundary in another summation order match bit for bit.
constexpr double kEqualToReference = 0.995;

}  // namespace

TEST_CASE("attention: where one KV block holds every key, or few tokens span a few, the reference's rounding "
          "points, bit for bit but rare",
          "[fused_b200][attention][gpu]") {
  if (vlb::fused_b200::testing::skip_without_fused_kernels("attention")) return;
  // One block: every width it runs at (16, 32, 64, 96, 128 keys), few query rows and many. Two passes: 1 to 8 tokens
  // over 2, 3 and 4 blocks, tails of every width.
  const AttentionShape shapes[] = {{2, 1, 19},  {1, 3, 24},  {3, 37, 7},  {2, 33, 51},  {2, 50, 90},
                                   {1, 40, 100}, {2, 29, 128}, {1, 1, 1},  {1, 1, 129},  {1, 1, 250},
                                   {2, 1, 300},  {1, 3, 250},  {1, 8, 512}, {4, 2, 420}, {2, 3, 160}};
  std::uint64_t seed = 7600;
  for (const AttentionShape& shape : shapes) {
    ++seed;
    if (!takes_reference_rounding(shape, vlb::testing::test_device().sm_count, false)) {
      // The two-pass form is Hopper's alone (BLACKWELL.md): elsewhere these shapes meet the exact attention.
      REQUIRE(current_kernel_architecture() != KernelArchitecture::kSm90);
      REQUIRE(shape.vision_seq > 128);
      continue;
    }
    const double equal = share_equal_to_reference(shape, seed);
    std::printf("reference rounding, B=%lld Lq=%lld Lv=%lld: %.4f%% of the elements equal the reference's\n",
                static_cast<long long>(shape.batch), static_cast<long long>(shape.lang_seq),
                static_cast<long long>(shape.vision_seq), equal * 100);
    INFO("B=" << shape.batch << " Lq=" << shape.lang_seq << " Lv=" << shape.vision_seq << " seed " << seed << ": "
              << equal * 100 << "% of the elements equal the reference's");
    CHECK(equal >= kEqualToReference);
  }
  // The control: many tokens over two KV blocks take the online softmax, which rounds P before normalizing it, and
  // this check tells.
  const AttentionShape two_blocks{2, 33, 129};
  REQUIRE_FALSE(takes_reference_rounding(two_blocks, vlb::testing::test_device().sm_count, false));
  const double equal = share_equal_to_reference(two_blocks, seed);
  std::printf("two KV blocks, B=2 Lq=33 Lv=129: %.4f%% equal\n", equal * 100);
  INFO("two blocks (B=2 Lq=33 Lv=129): " << equal * 100 << "% equal");
  CHECK(equal < kEqualToReference);
}

namespace {

// The same attention twice from the same unrotated Q: once with Q rotated beforehand in place by the staged epilogue
// kernel (the v12 path), once rotated by the attention kernel itself. Both use rotate_pair on the same bf16 values,
// so the outputs must agree bit for bit, guard rows included. With launch.split, both run the split last wave.
void check_query_rope_in_attention(const AttentionShape& shape, RopeArithmetic arithmetic, std::uint64_t seed,
                                   LaunchUnderTest launch = {}) {
  const int sm_count = launch.sm_count > 0 ? launch.sm_count : vlb::testing::test_device().sm_count;
  INFO("B=" << shape.batch << " Lq=" << shape.lang_seq << " Lv=" << shape.vision_seq << " seed " << seed
            << " arithmetic " << static_cast<int>(arithmetic) << " on " << sm_count << " SMs"
            << (launch.split ? ", split" : ""));
  vlb::testing::TestStream stream;
  const auto inputs = reference::make_attention_inputs(shape.batch, shape.lang_seq, shape.vision_seq, seed);
  const std::int64_t tokens = shape.batch * shape.lang_seq;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> position(0, 12543);
  std::vector<std::int64_t> positions(static_cast<std::size_t>(tokens));
  for (auto& value : positions) value = position(rng);
  DeviceBuffer device_positions(positions.size() * sizeof(std::int64_t));
  VLB_CUDA_CHECK(cudaMemcpyAsync(device_positions.data(), positions.data(), device_positions.bytes(),
                                 cudaMemcpyHostToDevice, stream.get()));
  const DeviceBuffer q = upload(inputs.q, stream.get());
  const DeviceBuffer q_rotated = upload(inputs.q, stream.get());
  const DeviceBuffer k = upload(inputs.k, stream.get());
  const DeviceBuffer v = upload(inputs.v, stream.get());
  const std::int64_t out_elements = (tokens + kGuardTokens) * kRowElements;
  DeviceBuffer rotated_before(static_cast<std::size_t>(out_elements) * sizeof(__nv_bfloat16));
  DeviceBuffer rotated_inside(rotated_before.bytes());
  poison_bf16(rotated_before.data(), out_elements, stream.get());
  poison_bf16(rotated_inside.data(), out_elements, stream.get());

  const ProjectionOutput rotation{nullptr, nullptr, q_rotated.as<bf16>(), RopeKind::kLanguage,
                                  device_positions.as<std::int64_t>(), 1.0f, arithmetic};
  launch_staged_epilogue(q_rotated.as<bf16>(), ProjectionShape{tokens, 4096, 4096, 1}, &rotation, stream.get());
  // The split's workspace, scrambled and cleared before each launch as the fused operation clears it.
  const std::size_t split_bytes = launch.split ? attention_split_workspace_bytes(shape, sm_count) : 0;
  if (launch.split) REQUIRE(split_bytes > 0);
  DeviceBuffer split_workspace(std::max<std::size_t>(split_bytes, 1));
  const AttentionSplitWorkspace split{launch.split ? split_workspace.data() : nullptr, split_bytes};
  const auto attend = [&](const AttentionTensors& tensors) {
    if (launch.split) {
      scramble_bytes(split_workspace.data(), split_bytes, seed, stream.get());
      clear_attention_split(split, shape, sm_count, stream.get());
    }
    launch_attention(tensors, shape, sm_count, stream.get(), LaunchOrder::kAfterPrevious, split);
  };
  attend({q_rotated.as<bf16>(), k.as<bf16>(), v.as<bf16>(), rotated_before.as<bf16>()});
  attend({q.as<bf16>(), k.as<bf16>(), v.as<bf16>(), rotated_inside.as<bf16>(),
          AttentionQueryRope{device_positions.as<std::int64_t>(), arithmetic}});
  stream.synchronize();

  std::vector<std::uint16_t> before(static_cast<std::size_t>(out_elements));
  std::vector<std::uint16_t> inside(before.size());
  VLB_CUDA_CHECK(cudaMemcpy(before.data(), rotated_before.data(), rotated_before.bytes(), cudaMemcpyDeviceToHost));
  VLB_CUDA_CHECK(cudaMemcpy(inside.data(), rotated_inside.data(), rotated_inside.bytes(), cudaMemcpyDeviceToHost));
  std::int64_t differing = 0;
  for (std::size_t i = 0; i < before.size(); ++i) differing += before[i] != inside[i];
  INFO(differing << " of " << out_elements << " output elements differ");
  CHECK(differing == 0);
  // And the rotation changed something: the unrotated Q gives another output.
  DeviceBuffer unrotated(rotated_before.bytes());
  attend({q.as<bf16>(), k.as<bf16>(), v.as<bf16>(), unrotated.as<bf16>()});
  stream.synchronize();
  std::vector<std::uint16_t> plain(before.size());
  VLB_CUDA_CHECK(cudaMemcpy(plain.data(), unrotated.data(), unrotated.bytes(), cudaMemcpyDeviceToHost));
  std::int64_t changed = 0;
  for (std::int64_t i = 0; i < tokens * kRowElements; ++i) changed += plain[i] != inside[i];
  CHECK(changed > tokens * kRowElements / 2);
}

}  // namespace

TEST_CASE("attention: Q's RoPE inside the kernel equals Q rotated beforehand, bit for bit",
          "[fused_b200][attention][gpu]") {
  if (vlb::fused_b200::testing::skip_unless_hopper_kernels("Q's RoPE inside the attention")) return;
  const auto arithmetic = GENERATE(RopeArithmetic::kFp32, RopeArithmetic::kReferenceBf16);
  const AttentionShape shapes[] = {{1, 5, 7}, {2, 33, 129}, {3, 128, 196}, {1, 373, 588}, {2, 541, 980}};
  std::uint64_t seed = arithmetic == RopeArithmetic::kFp32 ? 7300 : 7400;
  for (const AttentionShape& shape : shapes) check_query_rope_in_attention(shape, arithmetic, seed++);
  // The split kernel rotates Q in its own walk: a split shape of the split test, on 12 SMs' worth of CTAs.
  check_query_rope_in_attention({1, 64, 2500}, arithmetic, seed++, LaunchUnderTest{12, true});
}
