// The fused projection stages on the GPU against an independent double-precision reference: Q (bias + 1D RoPE +
// scale fold), K+V in one launch (bias, sectioned 3D RoPE on K) and O, on ragged row counts, with random positions,
// seeded inputs and NaN-poisoned outputs. On sm_90a split-K, stream-K and data-parallel decompositions are all hit;
// on sm_100a (a B200) the plan-specific cases are skipped and the others hit both sm100 tiles (1-SM up to 375 rows,
// 2-SM from 1082 rows).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/check/guards.hpp"
#include "harness/core/device_buffer.hpp"
#include "harness/inputs/input_set.hpp"
#include "solutions/fused_b200/projection_cublas.hpp"
#include "solutions/fused_b200/projection_gemm.hpp"
#include "solutions/fused_b200/projection_kv_pair.hpp"
#include "support/gpu_test.hpp"
#include "support_projection_reference.hpp"
#include "support_fused_device.hpp"

using namespace vlb;
using namespace vlb::fused_b200;
using vlb::fused_b200::testing::ReferenceProjection;
using vlb::fused_b200::testing::ReferenceRope;
using vlb::fused_b200::testing::skip_unless_hopper_kernels;
using vlb::fused_b200::testing::skip_without_fused_kernels;

namespace {

// One bf16 rounding of an fp32 result is half a bf16 step (2^-9 relative), plus fp32 summation order and the fast
// sincos (~1e-6); a wrong pair, frequency, position, bias or row misses by far more.
constexpr double kAtol = 0.01;
constexpr double kRtol = 0.02;

// Seeded inputs of one case, on the host (for the reference) and on the device.
struct StageInputs {
  ProblemShape shape;
  std::uint64_t seed;
  HostInputs host;
  DeviceInputs device;

  StageInputs(const ProblemShape& shape_, std::uint64_t seed_, cudaStream_t stream)
      : shape(shape_), seed(seed_), host(make_host_inputs(shape_, InputSettings{seed_, PositionPattern::kRandom})),
        device(shape_) {
    device.upload(host, stream);
  }
  template <class T>
  const T* on_device(TensorId id) const { return static_cast<const T*>(device.data(id)); }
};

DeviceBuffer poisoned_output(std::int64_t elements, cudaStream_t stream) {
  DeviceBuffer buffer(static_cast<std::size_t>(elements) * sizeof(bf16));
  poison_bf16(buffer.data(), elements, stream);
  return buffer;
}

void expect_rows_match(const char* what, const bf16* device_output, std::int64_t rows,
                       const ReferenceProjection& projection, std::uint64_t seed) {
  const std::int64_t columns = projection.out_features;
  const std::vector<std::int64_t> checked = fused_b200::testing::rows_to_check(rows, seed);
  const std::vector<double> reference = fused_b200::testing::reference_rows(projection, checked);
  const std::vector<bf16> output = fused_b200::testing::download_rows(device_output, columns, checked, columns);
  const auto check = fused_b200::testing::check_rows(output, reference, checked, columns, kAtol, kRtol);
  INFO(what << ": " << check.failed << " of " << check.elements << " elements off, max |err| "
            << check.max_abs_error << ", worst " << check.worst);
  CHECK(check.elements == static_cast<std::int64_t>(checked.size()) * columns);
  CHECK(check.failed == 0);
}

ReferenceProjection k_reference(const StageInputs& in, TensorId weight) {
  ReferenceProjection reference;
  reference.activations = in.host.bf16_tensor(TensorId::kVisionHiddenStates);
  reference.weight = in.host.bf16_tensor(weight);
  reference.bias = in.host.bf16_tensor(TensorId::kKProjBias);
  reference.positions = in.host.int64_tensor(TensorId::kVisionGridThw);
  reference.in_features = ModelDims::kHidden;
  reference.out_features = ModelDims::kKvProjDim;
  reference.rope = ReferenceRope::kVision;
  return reference;
}

ReferenceProjection v_reference(const StageInputs& in, TensorId weight) {
  ReferenceProjection reference;
  reference.activations = in.host.bf16_tensor(TensorId::kVisionHiddenStates);
  reference.weight = in.host.bf16_tensor(weight);
  reference.bias = in.host.bf16_tensor(TensorId::kVProjBias);
  reference.in_features = ModelDims::kHidden;
  reference.out_features = ModelDims::kKvProjDim;
  return reference;
}

// V as project_kv left it: without its bias where it says the attention owes V its bias.
ReferenceProjection v_reference_as_left(const StageInputs& in, KvGemms ran) {
  ReferenceProjection reference = v_reference(in, TensorId::kVProjWeight);
  if (ran == KvGemms::kBatchedBiasesAfter) reference.bias = {};
  return reference;
}

// Runs K+V with the given weight pointers (k_weight_id / v_weight_id name the host tensors they hold) and checks both:
// through launch_kv_projection (the heuristic's plan), or with the given plan.
void run_and_check_kv(const StageInputs& in, const bf16* k_weight, TensorId k_weight_id, const bf16* v_weight,
                      TensorId v_weight_id, cudaStream_t stream,
                      const std::optional<ProjectionPlan>& plan = std::nullopt) {
  const int sm_count = vlb::testing::test_device().sm_count;
  const std::int64_t rows = in.shape.vision_rows();
  DeviceBuffer k = poisoned_output(rows * ModelDims::kKvProjDim, stream);
  DeviceBuffer v = poisoned_output(rows * ModelDims::kKvProjDim, stream);
  ProjectionLaunch launch;
  launch.activations = in.on_device<bf16>(TensorId::kVisionHiddenStates);
  launch.shape = {rows, ModelDims::kKvProjDim, ModelDims::kHidden, 2};
  launch.plan = plan;
  launch.outputs[0] = {k_weight, in.on_device<bf16>(TensorId::kKProjBias), k.as<bf16>(), RopeKind::kVision,
                       in.on_device<std::int64_t>(TensorId::kVisionGridThw), 1.0f};
  launch.outputs[1] = {v_weight, in.on_device<bf16>(TensorId::kVProjBias), v.as<bf16>(), RopeKind::kNone, nullptr,
                       1.0f};
  DeviceBuffer workspace(projection_workspace_bytes(launch.shape, sm_count, plan));
  const Workspace view{workspace.data(), workspace.bytes()};
  if (plan.has_value()) {
    launch_projection(launch, sm_count, view, stream);
  } else {
    launch_kv_projection(launch.activations, rows, k_weight, launch.outputs[0].bias, v_weight,
                         launch.outputs[1].bias, launch.outputs[0].positions, k.as<bf16>(), v.as<bf16>(), sm_count,
                         view, stream);
  }
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
  expect_rows_match("K", k.as<bf16>(), rows, k_reference(in, k_weight_id), in.seed);
  expect_rows_match("V", v.as<bf16>(), rows, v_reference(in, v_weight_id), in.seed + 1);
}

// Every kernel with every decomposition it runs (split-K with 3 splits: an uneven division of K), and swizzled tile
// orders (a wrong tile-to-output mapping there would write some tiles twice and leave others poisoned).
std::vector<std::pair<std::string, ProjectionPlan>> every_plan(const ProjectionShape& shape) {
  std::vector<std::pair<std::string, ProjectionPlan>> plans;
  for (ProjectionKernel kernel : {ProjectionKernel::kCooperative128x128, ProjectionKernel::kPingpong128x128,
                                  ProjectionKernel::kPingpong64x128}) {
    const std::string name(kernel_name(kernel));
    ProjectionPlan data_parallel = make_plan(shape, kernel, Decomposition::kDataParallel);
    plans.emplace_back(name + " data-parallel", data_parallel);
    data_parallel.swizzle = 8;
    plans.emplace_back(name + " data-parallel swizzle 8", data_parallel);
    if (kernel_tile(kernel).data_parallel_only) continue;
    ProjectionPlan stream_k = make_plan(shape, kernel, Decomposition::kStreamK);
    plans.emplace_back(name + " stream-k", stream_k);
    stream_k.swizzle = 2;
    plans.emplace_back(name + " stream-k swizzle 2", stream_k);
    plans.emplace_back(name + " split-k 3", make_plan(shape, kernel, Decomposition::kSplitK, 3));
  }
  return plans;
}

}  // namespace

TEST_CASE("Q projection: bias, 1D RoPE and scale fold on ragged rows", "[fused_b200][gpu]") {
  if (skip_without_fused_kernels("projection")) return;
  // 37 rows: 32 tiles (split-K 4); 375 rows: 96 tiles of 128 rows (data-parallel, cooperative); 1082 rows: 288
  // tiles, 2.2 waves (stream-K).
  const std::pair<ProblemShape, std::uint64_t> cases[] = {{{1, 37, 196}, 101}, {{3, 125, 196}, 202},
                                                          {{2, 541, 196}, 303}};
  const int sm_count = vlb::testing::test_device().sm_count;
  vlb::testing::TestStream stream;
  for (const auto& [shape, seed] : cases) {
    INFO(describe(shape) << " seed " << seed);
    const StageInputs in(shape, seed, stream.get());
    const std::int64_t rows = shape.lang_rows();
    DeviceBuffer q = poisoned_output(rows * ModelDims::kQProjDim, stream.get());
    DeviceBuffer workspace(q_projection_workspace_bytes(rows, sm_count));
    const float q_scale = 1.0f / std::sqrt(128.0f);
    launch_q_projection(in.on_device<bf16>(TensorId::kLanguageHiddenStates), rows,
                        in.on_device<bf16>(TensorId::kQProjWeight), in.on_device<bf16>(TensorId::kQProjBias),
                        in.on_device<std::int64_t>(TensorId::kLanguagePositionIds), q_scale, q.as<bf16>(), sm_count,
                        Workspace{workspace.data(), workspace.bytes()}, stream.get());
    stream.synchronize();
    ReferenceProjection reference;
    reference.activations = in.host.bf16_tensor(TensorId::kLanguageHiddenStates);
    reference.weight = in.host.bf16_tensor(TensorId::kQProjWeight);
    reference.bias = in.host.bf16_tensor(TensorId::kQProjBias);
    reference.positions = in.host.int64_tensor(TensorId::kLanguagePositionIds);
    reference.in_features = ModelDims::kHidden;
    reference.out_features = ModelDims::kQProjDim;
    reference.rope = ReferenceRope::kLanguage;
    reference.scale = q_scale;
    expect_rows_match("Q", q.as<bf16>(), rows, reference, seed);
  }
}

TEST_CASE("K+V projection in one launch: bias, sectioned 3D RoPE on K", "[fused_b200][gpu]") {
  if (skip_without_fused_kernels("projection")) return;
  vlb::testing::TestStream stream;
  // 37 rows: 16 tiles (split-K 8); 375 rows: 96 tiles of 64 rows (ping-pong 64x128, the last tile ragged); 1568
  // rows: 208 tiles, 1.6 waves (data-parallel, ping-pong 128x128).
  const std::pair<ProblemShape, std::uint64_t> cases[] = {{{1, 16, 37}, 404}, {{3, 16, 125}, 505},
                                                          {{2, 16, 784}, 606}};
  for (const auto& [shape, seed] : cases) {
    INFO(describe(shape) << " seed " << seed);
    const StageInputs in(shape, seed, stream.get());
    run_and_check_kv(in, in.on_device<bf16>(TensorId::kKProjWeight), TensorId::kKProjWeight,
                     in.on_device<bf16>(TensorId::kVProjWeight), TensorId::kVProjWeight, stream.get());
  }
}

TEST_CASE("K+V projection with the weights in either address order, and the same weight twice", "[fused_b200][gpu]") {
  if (skip_without_fused_kernels("projection")) return;
  vlb::testing::TestStream stream;
  const StageInputs in({2, 16, 141}, 707, stream.get());
  const std::size_t weight_bytes = in.device.bytes(TensorId::kKProjWeight);
  DeviceBuffer both(2 * weight_bytes);
  auto* first = both.as<bf16>();
  auto* second = reinterpret_cast<bf16*>(both.as<std::byte>() + weight_bytes);
  SECTION("V's weight below K's: the groups are reordered in the launch") {
    VLB_CUDA_CHECK(cudaMemcpyAsync(first, in.device.data(TensorId::kVProjWeight), weight_bytes,
                                   cudaMemcpyDeviceToDevice, stream.get()));
    VLB_CUDA_CHECK(cudaMemcpyAsync(second, in.device.data(TensorId::kKProjWeight), weight_bytes,
                                   cudaMemcpyDeviceToDevice, stream.get()));
    run_and_check_kv(in, second, TensorId::kKProjWeight, first, TensorId::kVProjWeight, stream.get());
  }
  SECTION("one weight for both: no positive group stride, two launches") {
    const bf16* k_weight = in.on_device<bf16>(TensorId::kKProjWeight);
    run_and_check_kv(in, k_weight, TensorId::kKProjWeight, k_weight, TensorId::kKProjWeight, stream.get());
  }
}

TEST_CASE("K and V on cuBLAS: one batched GEMM where weights and outputs are strides (the biases after it where "
          "they are not), two GEMMs where not",
          "[fused_b200][gpu]") {
  if (skip_without_fused_kernels("projection")) return;
  vlb::testing::TestStream stream;
  // 1568 vision rows, as the suite's cases 7, 8 and 11. The weights and biases are copied into one buffer each in a
  // known order; the biases 2304 bytes apart, not back to back, so that a stride taken as bytes would be caught.
  const StageInputs in({2, 16, 784}, 1001, stream.get());
  const std::int64_t rows = in.shape.vision_rows();
  const std::size_t weight_bytes = in.device.bytes(TensorId::kKProjWeight);
  const std::size_t bias_bytes = in.device.bytes(TensorId::kKProjBias);
  const std::size_t bias_pitch = bias_bytes + 256;
  DeviceBuffer weights(2 * weight_bytes);
  DeviceBuffer biases(2 * bias_pitch);
  auto* low_weight = weights.as<bf16>();
  auto* high_weight = reinterpret_cast<bf16*>(weights.as<std::byte>() + weight_bytes);
  auto* k_bias = biases.as<bf16>();  // the lower and the higher bias slot
  auto* v_bias = reinterpret_cast<bf16*>(biases.as<std::byte>() + bias_pitch);
  const auto copy = [&](void* to, TensorId from, std::size_t bytes) {
    VLB_CUDA_CHECK(cudaMemcpyAsync(to, in.device.data(from), bytes, cudaMemcpyDeviceToDevice, stream.get()));
  };
  DeviceBuffer k = poisoned_output(rows * ModelDims::kKvProjDim, stream.get());
  DeviceBuffer v = poisoned_output(rows * ModelDims::kKvProjDim, stream.get());
  bf16* k_out = std::min(k.as<bf16>(), v.as<bf16>());  // the outputs in address order too
  bf16* v_out = std::max(k.as<bf16>(), v.as<bf16>());
  DeviceBuffer workspace(CublasProjections::workspace_bytes());
  const Workspace view{workspace.data(), workspace.bytes()};
  const bf16* vision = in.on_device<bf16>(TensorId::kVisionHiddenStates);
  const std::int64_t* grid = in.on_device<std::int64_t>(TensorId::kVisionGridThw);

  SECTION("the batched GEMM alone: K (not rotated yet) and V, each with its own bias") {
    copy(low_weight, TensorId::kKProjWeight, weight_bytes);
    copy(high_weight, TensorId::kVProjWeight, weight_bytes);
    copy(k_bias, TensorId::kKProjBias, bias_bytes);
    copy(v_bias, TensorId::kVProjBias, bias_bytes);
    const auto strides = batched_pair_strides({low_weight, high_weight}, {k_bias, v_bias}, {k_out, v_out});
    REQUIRE(strides.has_value());
    CHECK(strides->bias == static_cast<std::int64_t>(bias_pitch / sizeof(bf16)));
    const CublasLinear linear;
    REQUIRE(linear.launch_pair(vision, rows, ModelDims::kKvProjDim, ModelDims::kHidden, low_weight, k_bias, k_out,
                               *strides, view, stream.get()));
    stream.synchronize();
    ReferenceProjection unrotated_k = k_reference(in, TensorId::kKProjWeight);
    unrotated_k.rope = ReferenceRope::kNone;
    expect_rows_match("K", k_out, rows, unrotated_k, in.seed);
    expect_rows_match("V", v_out, rows, v_reference(in, TensorId::kVProjWeight), in.seed + 1);
  }
  SECTION("project_kv: one batched GEMM in either order of K and V, the biases after it where their order disagrees "
          "(or where asked; two GEMMs instead where the biases must stay in the GEMMs), two GEMMs where the outputs' "
          "does") {
    // (K's weight below V's, K's bias below V's, K's output below V's).
    const auto [k_weight_low, k_bias_low, k_out_low] = GENERATE(table<bool, bool, bool>(
        {{true, true, true}, {false, false, false}, {false, true, false}, {true, false, true}, {true, true, false}}));
    const KvBiasPlacement placement = GENERATE(KvBiasPlacement::kGemmWherePossible, KvBiasPlacement::kAfterGemm,
                                               KvBiasPlacement::kGemmOnly);
    const bool one_order = k_weight_low == k_bias_low && k_weight_low == k_out_low;
    const KvGemms expected = k_weight_low != k_out_low                              ? KvGemms::kTwoGemms
                             : placement == KvBiasPlacement::kAfterGemm             ? KvGemms::kBatchedBiasesAfter
                             : one_order                                            ? KvGemms::kBatched
                             : placement == KvBiasPlacement::kGemmOnly              ? KvGemms::kTwoGemms
                                                                                    : KvGemms::kBatchedBiasesAfter;
    INFO("K below V: weight " << k_weight_low << ", bias " << k_bias_low << ", output " << k_out_low
                              << "; placement " << static_cast<int>(placement));
    bf16* k_weight = k_weight_low ? low_weight : high_weight;
    bf16* v_weight = k_weight_low ? high_weight : low_weight;
    const bf16* k_bias_at = k_bias_low ? k_bias : v_bias;
    const bf16* v_bias_at = k_bias_low ? v_bias : k_bias;
    copy(k_weight, TensorId::kKProjWeight, weight_bytes);
    copy(v_weight, TensorId::kVProjWeight, weight_bytes);
    copy(const_cast<bf16*>(k_bias_at), TensorId::kKProjBias, bias_bytes);
    copy(const_cast<bf16*>(v_bias_at), TensorId::kVProjBias, bias_bytes);
    bf16* k_at = k_out_low ? k_out : v_out;
    bf16* v_at = k_out_low ? v_out : k_out;
    CHECK(kv_batch_starts_with_v(k_weight, v_weight) == !k_weight_low);
    const bool v_first = kv_batch_starts_with_v(k_weight, v_weight);
    const auto strides = v_first ? batched_pair_strides({v_weight, k_weight}, {v_bias_at, k_bias_at}, {v_at, k_at})
                                 : batched_pair_strides({k_weight, v_weight}, {k_bias_at, v_bias_at}, {k_at, v_at});
    CHECK(strides.has_value() == one_order);
    const CublasProjections projections;
    const KvGemms ran = projections.project_kv(vision, rows, k_weight, k_bias_at, v_weight, v_bias_at, grid, k_at,
                                               v_at, view, stream.get(), RopeArithmetic::kFp32,
                                               LaunchOrder::kAfterPrevious, placement);
    CHECK(ran == expected);
    stream.synchronize();
    expect_rows_match("K", k_at, rows, k_reference(in, TensorId::kKProjWeight), in.seed);
    expect_rows_match("V", v_at, rows, v_reference_as_left(in, ran), in.seed + 1);
  }
  SECTION("project_kv on CUTLASS's 128 x 208 pair where it fills one wave: with the biases in its epilogue (in "
          "either order) and after it, in both launch orders, after a GEMM of its own") {
    const int sm_count = vlb::testing::test_device().sm_count;
    if (skip_unless_hopper_kernels("the CUTLASS K/V pair")) return;
    if (!kv_pair_on_cutlass(rows, sm_count)) {
      vlb::testing::mark_skipped("the CUTLASS K/V pair: " + std::to_string(rows) + " rows are not one wave of its " +
                                 "tiles on " + std::to_string(sm_count) + " SMs");
      return;
    }
    const KvBiasPlacement placement = GENERATE(KvBiasPlacement::kGemmWherePossible, KvBiasPlacement::kAfterGemm);
    const LaunchOrder order = GENERATE(LaunchOrder::kAfterPrevious, LaunchOrder::kOverlapPrevious);
    // K's bias below V's, as the weights, or above it (v32: a negative bias stride, which only CUTLASS's pair takes).
    const bool biases_in_order = GENERATE(true, false);
    INFO("placement " << static_cast<int>(placement) << ", order " << static_cast<int>(order)
                      << ", biases in the weights' order " << biases_in_order);
    const bf16* k_bias_at = biases_in_order ? k_bias : v_bias;
    const bf16* v_bias_at = biases_in_order ? v_bias : k_bias;
    copy(low_weight, TensorId::kKProjWeight, weight_bytes);
    copy(high_weight, TensorId::kVProjWeight, weight_bytes);
    copy(const_cast<bf16*>(k_bias_at), TensorId::kKProjBias, bias_bytes);
    copy(const_cast<bf16*>(v_bias_at), TensorId::kVProjBias, bias_bytes);
    CHECK(batched_pair_strides({low_weight, high_weight}, {k_bias_at, v_bias_at}, {k_out, v_out}).has_value() ==
          biases_in_order);
    const CublasProjections projections(sm_count);
    // Q's GEMM first, as in the fused operation, where the pair is its programmatic dependent.
    DeviceBuffer scratch = poisoned_output(rows * ModelDims::kKvProjDim, stream.get());
    projections.project_q(vision, rows / 4, in.on_device<bf16>(TensorId::kQProjWeight),
                          in.on_device<bf16>(TensorId::kQProjBias), scratch.as<bf16>(), view, stream.get());
    const KvGemms ran = projections.project_kv(vision, rows, low_weight, k_bias_at, high_weight, v_bias_at, grid,
                                               k_out, v_out, view, stream.get(), RopeArithmetic::kFp32, order,
                                               placement);
    CHECK(ran == (placement == KvBiasPlacement::kGemmWherePossible ? KvGemms::kBatched
                                                                   : KvGemms::kBatchedBiasesAfter));
    stream.synchronize();
    expect_rows_match("K", k_out, rows, k_reference(in, TensorId::kKProjWeight), in.seed);
    expect_rows_match("V", v_out, rows, v_reference_as_left(in, ran), in.seed + 1);
  }
  SECTION("biases 2^31 bytes or more apart, which cuBLASLt 13.1's batched GEMM reads 4 GiB off: added after it; "
          "in the epilogue of CUTLASS's pair, which reads them with plain loads") {
    // The fused operation launches K's pass, which then adds K's bias, programmatically; after a GEMM, and after
    // this test's copies, the result must be the same.
    const LaunchOrder order = GENERATE(LaunchOrder::kAfterPrevious, LaunchOrder::kOverlapPrevious);
    const bool on_cutlass = GENERATE(false, true);
    INFO("order " << static_cast<int>(order) << ", CUTLASS's pair allowed " << on_cutlass);
    const int sm_count = vlb::testing::test_device().sm_count;
    if (on_cutlass && skip_unless_hopper_kernels("far biases on CUTLASS's pair")) return;
    if (on_cutlass && !kv_pair_on_cutlass(rows, sm_count)) {
      vlb::testing::mark_skipped("far biases on CUTLASS's pair: " + std::to_string(rows) +
                                 " rows are not one wave of its tiles on " + std::to_string(sm_count) + " SMs");
      return;
    }
    const std::size_t far_pitch = static_cast<std::size_t>(kMaxBiasStrideBytes) + 2304;
    DeviceBuffer far_biases(far_pitch + bias_bytes);
    auto* far_k_bias = far_biases.as<bf16>();
    auto* far_v_bias = reinterpret_cast<bf16*>(far_biases.as<std::byte>() + far_pitch);
    copy(low_weight, TensorId::kKProjWeight, weight_bytes);
    copy(high_weight, TensorId::kVProjWeight, weight_bytes);
    copy(far_k_bias, TensorId::kKProjBias, bias_bytes);
    copy(far_v_bias, TensorId::kVProjBias, bias_bytes);
    CHECK_FALSE(batched_pair_strides({low_weight, high_weight}, {far_k_bias, far_v_bias}, {k_out, v_out}).has_value());
    const CublasProjections projections(on_cutlass ? sm_count : 0);
    // A GEMM of its own first, as Q's comes before K/V in the fused operation.
    DeviceBuffer scratch = poisoned_output(rows * ModelDims::kKvProjDim, stream.get());
    projections.project_q(vision, rows / 4, in.on_device<bf16>(TensorId::kQProjWeight),
                          in.on_device<bf16>(TensorId::kQProjBias), scratch.as<bf16>(), view, stream.get());
    const KvGemms ran = projections.project_kv(vision, rows, low_weight, far_k_bias, high_weight, far_v_bias, grid,
                                               k_out, v_out, view, stream.get(), RopeArithmetic::kFp32, order);
    CHECK(ran == (on_cutlass ? KvGemms::kBatched : KvGemms::kBatchedBiasesAfter));
    stream.synchronize();
    expect_rows_match("K", k_out, rows, k_reference(in, TensorId::kKProjWeight), in.seed);
    expect_rows_match("V", v_out, rows, v_reference_as_left(in, ran), in.seed + 1);
  }
}

TEST_CASE("O projection: plain GEMM into the output on ragged rows", "[fused_b200][gpu]") {
  if (skip_without_fused_kernels("projection")) return;
  const int sm_count = vlb::testing::test_device().sm_count;
  vlb::testing::TestStream stream;
  // 37 and 375 rows: the fused kernels; 3900 rows: the plain 128x256 kernel (3.8 waves), ragged last tile.
  const std::pair<ProblemShape, std::uint64_t> cases[] = {{{1, 37, 196}, 808}, {{3, 125, 196}, 909},
                                                          {{2, 1950, 196}, 910}};
  for (const auto& [shape, seed] : cases) {
    INFO(describe(shape) << " seed " << seed);
    const StageInputs in(shape, seed, stream.get());
    const std::int64_t rows = shape.lang_rows();
    if (vlb::fused_b200::testing::test_device_kernels() == KernelArchitecture::kSm90) {
      const ProjectionPlan plan =
          plan_projection({rows, ModelDims::kHidden, ModelDims::kHidden, 1}, sm_count, OutputWork::kPlain);
      INFO("kernel " << kernel_name(plan.kernel));
      CHECK((plan.kernel == ProjectionKernel::kPlainCooperative128x256) == (shape.lang_rows() == 3900));
    }
    DeviceBuffer out = poisoned_output(rows * ModelDims::kHidden, stream.get());
    DeviceBuffer workspace(o_projection_workspace_bytes(rows, sm_count));
    // Any [rows, 4096] bf16 activations do: the language hidden states stand in for the attention output.
    launch_o_projection(in.on_device<bf16>(TensorId::kLanguageHiddenStates), rows,
                        in.on_device<bf16>(TensorId::kOProjWeight), out.as<bf16>(), sm_count,
                        Workspace{workspace.data(), workspace.bytes()}, stream.get());
    stream.synchronize();
    ReferenceProjection reference;
    reference.activations = in.host.bf16_tensor(TensorId::kLanguageHiddenStates);
    reference.weight = in.host.bf16_tensor(TensorId::kOProjWeight);
    reference.in_features = ModelDims::kHidden;
    reference.out_features = ModelDims::kHidden;
    expect_rows_match("O", out.as<bf16>(), rows, reference, seed);
  }
}

TEST_CASE("Every plan on every kernel computes the same Q", "[fused_b200][gpu]") {
  if (skip_unless_hopper_kernels("every plan")) return;
  const int sm_count = vlb::testing::test_device().sm_count;
  vlb::testing::TestStream stream;
  const ProblemShape shape{3, 125, 196};
  const std::uint64_t seed = 1111;
  const StageInputs in(shape, seed, stream.get());
  const std::int64_t rows = shape.lang_rows();
  ProjectionLaunch launch;
  launch.activations = in.on_device<bf16>(TensorId::kLanguageHiddenStates);
  launch.shape = {rows, ModelDims::kQProjDim, ModelDims::kHidden, 1};
  ReferenceProjection reference;
  reference.activations = in.host.bf16_tensor(TensorId::kLanguageHiddenStates);
  reference.weight = in.host.bf16_tensor(TensorId::kQProjWeight);
  reference.bias = in.host.bf16_tensor(TensorId::kQProjBias);
  reference.positions = in.host.int64_tensor(TensorId::kLanguagePositionIds);
  reference.in_features = ModelDims::kHidden;
  reference.out_features = ModelDims::kQProjDim;
  reference.rope = ReferenceRope::kLanguage;

  for (const auto& [name, plan] : every_plan(launch.shape)) {
    INFO("plan " << name);
    launch.plan = plan;
    DeviceBuffer q = poisoned_output(rows * ModelDims::kQProjDim, stream.get());
    DeviceBuffer workspace(projection_workspace_bytes(launch.shape, sm_count, plan));
    launch.outputs[0] = {in.on_device<bf16>(TensorId::kQProjWeight), in.on_device<bf16>(TensorId::kQProjBias),
                         q.as<bf16>(), RopeKind::kLanguage,
                         in.on_device<std::int64_t>(TensorId::kLanguagePositionIds), 1.0f};
    launch_projection(launch, sm_count, Workspace{workspace.data(), workspace.bytes()}, stream.get());
    stream.synchronize();
    expect_rows_match(name.c_str(), q.as<bf16>(), rows, reference, seed);
  }
}

TEST_CASE("Every plan on every kernel computes the same K and V", "[fused_b200][gpu]") {
  if (skip_unless_hopper_kernels("every plan")) return;
  vlb::testing::TestStream stream;
  const StageInputs in({3, 16, 125}, 1212, stream.get());
  const ProjectionShape shape{in.shape.vision_rows(), ModelDims::kKvProjDim, ModelDims::kHidden, 2};
  for (const auto& [name, plan] : every_plan(shape)) {
    INFO("plan " << name);
    run_and_check_kv(in, in.on_device<bf16>(TensorId::kKProjWeight), TensorId::kKProjWeight,
                     in.on_device<bf16>(TensorId::kVProjWeight), TensorId::kVProjWeight, stream.get(), plan);
  }
}
