// The whole suite with every registered solution, three times in one process: device memory does not grow.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include "harness/judge/suite_runner.hpp"
#include "harness/plan/solution_catalog.hpp"
#include "harness/suite/suite.hpp"

TEST_CASE("three full-suite runs in one process leave device memory where it was", "[judge][gpu]") {
  vlb::RunPlan plan;
  plan.workloads_dir = vlb::default_workloads_dir();
  plan.solutions = vlb::SolutionCatalog::instance().names();
  plan.correctness.rounds = 1;
  plan.time_cases = false;
  plan.isolation = false;
  plan.argv = {"vlbench", "(load test)"};

  std::size_t free_after_first = 0;
  for (int repetition = 0; repetition < 3; ++repetition) {
    const vlb::RunOutput output = vlb::execute_plan(plan, nullptr);
    REQUIRE(output.record.cases.size() == 16 * plan.solutions.size());
    for (const auto& result : output.record.cases) {
      INFO(result.solution << " case " << result.case_index << ": " << result.reason);
      CHECK(result.status == vlb::CaseStatus::kPassed);
    }
    std::size_t free_bytes = 0, total_bytes = 0;
    REQUIRE(cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess);
    if (repetition == 0) {
      free_after_first = free_bytes;
    } else {
      // Allowance: allocator granularity, nothing like a case's buffers (hundreds of MiB).
      CHECK(free_bytes + (std::size_t{32} << 20) >= free_after_first);
    }
  }
}
