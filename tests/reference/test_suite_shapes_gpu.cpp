// All 16 workloads of the suite (docs/operation.md) through the GPU reference, checked against the GPU exact fp32 path with
// each workload's tolerance: the references fit in memory and run in seconds at every size, the largest included
// (about 6 s on an H200, where the least margin was workload 15 with 99.87% of the elements within tolerance).
#include <catch2/catch.hpp>

#include <array>
#include <chrono>
#include <cstdio>

#include "harness/check/comparison.hpp"
#include "harness/inputs/input_set.hpp"
#include "support/gpu_test.hpp"
#include "support_gpu_runs.hpp"
#include "support_reference_inputs.hpp"

namespace {
struct Workload {
  vlb::ProblemShape shape;
  double atol;
};

// docs/operation.md's table, in order.
constexpr std::array<Workload, 16> kWorkloads = {{
    {{2, 256, 392}, 0.0098},  {{64, 256, 392}, 0.018},  {{1, 512, 784}, 0.0082},  {{2, 1024, 1568}, 0.012},
    {{16, 512, 784}, 0.013},  {{1, 4096, 6272}, 0.0053}, {{4, 541, 980}, 0.012},  {{2, 512, 784}, 0.012},
    {{8, 128, 196}, 0.011},   {{8, 256, 392}, 0.01},    {{1, 8192, 12544}, 0.011}, {{1, 1024, 1568}, 0.0067},
    {{32, 373, 588}, 0.02},   {{4, 512, 784}, 0.0095},  {{16, 128, 196}, 0.017},  {{2, 128, 196}, 0.0088},
}};
}  // namespace

TEST_CASE("every suite workload: the GPU reference passes against the GPU exact fp32 path", "[reference][suite][gpu]") {
  vlb::testing::TestStream stream;
  for (std::size_t w = 0; w < kWorkloads.size(); ++w) {
    const Workload& workload = kWorkloads[w];
    INFO("workload " << w << ": " << vlb::describe(workload.shape));
    vlb::DeviceInputs device(workload.shape);
    device.generate({9000 + w, vlb::PositionPattern::kOfficial}, stream.get());
    const auto start = std::chrono::steady_clock::now();
    const auto gpu = vlb::testing::run_gpu_reference(device, stream.get());
    const auto middle = std::chrono::steady_clock::now();
    const auto exact = vlb::testing::run_exact_fp32_gpu(device, stream.get());
    const auto end = std::chrono::steady_clock::now();
    const auto tolerance = vlb::testing::workload_tolerance(workload.atol);
    const auto stats = vlb::compare_on_host(gpu, exact, tolerance);
    const auto verdict = vlb::judge(stats, tolerance);
    std::printf("workload %2zu %-24s matched %.4f%%  max abs %.4g  reference %.2f s  exact %.2f s\n", w,
                vlb::describe(workload.shape).c_str(), 100.0 * stats.matched_ratio, stats.max_abs_error,
                std::chrono::duration<double>(middle - start).count(),
                std::chrono::duration<double>(end - middle).count());
    INFO(verdict.reason);
    CHECK(verdict.status == vlb::CaseStatus::kPassed);
  }
}
