// Speed of light, score and plausibility against the published B200 figures of docs/operation.md.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "harness/core/errors.hpp"
#include "harness/core/problem.hpp"
#include "harness/sol/baselines.hpp"
#include "harness/sol/speed_of_light.hpp"
#include "support_sol_files.hpp"

namespace {

using vlb::ProblemShape;

// The 16 workloads' shapes, from docs/operation.md (the suite loader is tested on its own).
const std::map<std::string, ProblemShape>& published_shapes() {
  static const std::map<std::string, ProblemShape> shapes = {
      {"d48e8b5b-db2e-598e-9168-8e5c1b78d484", {2, 256, 392}},
      {"309f06b4-c228-566d-9095-9685ea1e3666", {64, 256, 392}},
      {"89ec0f7e-c392-5e20-be12-d966a31af92b", {1, 512, 784}},
      {"9df4cc20-4c6d-5b70-ad81-8185ad4755b0", {2, 1024, 1568}},
      {"7c3735bd-4bcc-5e49-b3b9-901e3454123d", {16, 512, 784}},
      {"8a7cfd99-ab74-5b7c-a21b-543c9637a618", {1, 4096, 6272}},
      {"663d8041-0fff-5415-9629-e3032f2ed8b2", {4, 541, 980}},
      {"b6f8bbbe-7f37-51d4-bfe8-080f4f6c86d6", {2, 512, 784}},
      {"3ff4a535-fce0-592a-8b43-410fbb2cdff7", {8, 128, 196}},
      {"e27b5246-1233-5f29-93b9-415c4f54e187", {8, 256, 392}},
      {"c87d0d68-ad71-5c8a-8666-5428ae78cfa3", {1, 8192, 12544}},
      {"ebb51ccb-8a62-5e9c-9578-f9357f55481c", {1, 1024, 1568}},
      {"81d65fe0-42e5-5bb2-8792-f06ce9a58d76", {32, 373, 588}},
      {"d0ec99c6-37fa-5302-b6c6-65564c7ec60b", {4, 512, 784}},
      {"fea58ba1-ce30-5243-8c33-3cdcf87cf4d8", {16, 128, 196}},
      {"f36740f8-c877-5855-af92-5f7fd3522d9b", {2, 128, 196}},
  };
  return shapes;
}

const vlb::GpuSpec& b200() {
  static const std::vector<vlb::GpuSpec> specs = vlb::load_gpu_specs(vlb::testing::project_file("workloads/gpus.json"));
  return vlb::select_gpu_spec(specs, "NVIDIA B200", std::nullopt);
}

}  // namespace

TEST_CASE("count_work follows the formula of docs/operation.md for MACs, FLOPs and bytes", "[sol]") {
  const ProblemShape shape{2, 128, 196};
  const vlb::WorkCount work = vlb::count_work(shape);
  const double expected_macs = 2.0 * 2 * 128 * 4096 * 4096 + 2.0 * 2 * 196 * 4096 * 1024 + 2.0 * 2 * 32 * 128 * 196 * 128;
  CHECK(work.macs == expected_macs);
  CHECK(work.flops == 2 * expected_macs);
  // bf16: hidden states, weights, biases, output; int64: positions (B*Lq) and thw (B*Lv*3).
  const double bf16_elements = 2.0 * 128 * 4096 + 2.0 * 196 * 4096 + 4096.0 * 4096 + 4096 + 2 * (1024.0 * 4096 + 1024) +
                               4096.0 * 4096 + 2.0 * 128 * 4096;
  const double int64_elements = 2.0 * 128 + 2.0 * 196 * 3;
  CHECK(work.bytes == 2 * bf16_elements + 8 * int64_elements);
}

TEST_CASE("speed of light reproduces every published B200 T_SOL", "[sol]") {
  const vlb::BaselineTable published = vlb::load_baselines(vlb::testing::project_file("workloads/baselines/b200-published.json"));
  REQUIRE(published.gpu_key == b200().key);
  REQUIRE(published.published_t_sol_ms.size() == published_shapes().size());
  for (const auto& [uuid, shape] : published_shapes()) {
    INFO(uuid << " " << vlb::describe(shape));
    REQUIRE(published.published_t_sol_ms.count(uuid) == 1);
    const vlb::SolEstimate estimate = vlb::speed_of_light(vlb::count_work(shape), b200());
    CHECK(estimate.compute_bound);
    CHECK(estimate.t_sol_ms == Approx(published.published_t_sol_ms.at(uuid)).margin(0.0001));
  }
}

TEST_CASE("speed of light takes the larger of the compute and memory terms plus the fixed overhead", "[sol]") {
  vlb::GpuSpec slow_memory{"test", {}, 1e15, 1e9, 0.001, "test"};
  const vlb::WorkCount work{1e12, 2e12, 5e6};
  const vlb::SolEstimate estimate = vlb::speed_of_light(work, slow_memory);
  CHECK(estimate.compute_ms == Approx(2.0));
  CHECK(estimate.memory_ms == Approx(5.0));
  CHECK_FALSE(estimate.compute_bound);
  CHECK(estimate.t_sol_ms == Approx(5.001));
  slow_memory.memory_bytes_per_s = 0;
  CHECK_THROWS_AS(vlb::speed_of_light(work, slow_memory), vlb::UsageError);
}

TEST_CASE("the score is 0.5 at the baseline, 1 at speed of light, undefined when T_b <= T_SOL", "[sol]") {
  CHECK(vlb::leaderboard_score(0.190256, 0.0284, 0.190256).value() == Approx(0.5));
  CHECK(vlb::leaderboard_score(0.0284, 0.0284, 0.190256).value() == Approx(1.0));
  // Halfway in latency between T_SOL and T_b: 1 / 1.5.
  CHECK(vlb::leaderboard_score(0.2, 0.1, 0.3).value() == Approx(1.0 / 1.5));
  CHECK(vlb::leaderboard_score(0.6, 0.1, 0.3).value() == Approx(1.0 / 3.5));
  CHECK_FALSE(vlb::leaderboard_score(0.2, 0.3, 0.3).has_value());
  CHECK_FALSE(vlb::leaderboard_score(0.2, 0.4, 0.3).has_value());
}

TEST_CASE("SOL fraction and the implausibly-fast flag", "[sol]") {
  CHECK(vlb::sol_fraction(0.1, 0.4) == Approx(0.25));
  CHECK_THROWS_AS(vlb::sol_fraction(0.1, 0.0), vlb::UsageError);
  CHECK_FALSE(vlb::implausibly_fast(0.1, 0.1));
  CHECK_FALSE(vlb::implausibly_fast(0.0981, 0.1));  // inside the 2% slack
  CHECK(vlb::implausibly_fast(0.0979, 0.1));
  CHECK(vlb::implausibly_fast(0.01, 0.1));
}
