#pragma once
// Results of the built-in suite's cases as a run reports them, for the tests that move results around (the --devices
// fan-out, merge, the Slurm scripts). Each case is distinct (its own seeded samples and wall time), so a case put in
// the wrong place, lost or doubled shows. Needs the runner library (the units that drive the whole program).
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "harness/report/results.hpp"
#include "harness/scaleout/case_shards.hpp"
#include "harness/judge/case_session.hpp"
#include "harness/timing/statistics.hpp"

namespace vlb::testing {

// The built-in suite's 16 cases, in order.
inline SelectedCases builtin_cases() {
  RunPlan plan;
  plan.workloads_dir = default_workloads_dir();
  return select_plan_cases(plan);
}

// Every workload uuid a text (a listing, a log) mentions.
inline std::set<std::string> uuids_in(const std::string& text) {
  const std::regex uuid("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  std::set<std::string> found;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), uuid); it != std::sregex_iterator(); ++it) {
    found.insert(it->str());
  }
  return found;
}

// A PASSED, timed case of `solution` on `test_case`.
inline CaseResult fixture_case(const std::string& solution, const Case& test_case, std::mt19937_64& rng) {
  CaseResult result = new_case_result(solution, test_case);
  result.status = CaseStatus::kPassed;
  const double median_ms = std::uniform_real_distribution<double>(0.05, 3.0)(rng);
  std::normal_distribution<double> noise(0.0, 0.02);
  TimingResult timing;
  for (int i = 0; i < 9; ++i) timing.event_samples_ms.push_back(median_ms * (1.0 + noise(rng)));
  timing.samples_ms = timing.event_samples_ms;
  timing.stats = compute_statistics(timing.samples_ms);
  timing.stop_reason = "iterations";
  result.timing = timing;
  result.wall_time_s = std::uniform_real_distribution<double>(0.5, 9.0)(rng);
  return result;
}

// The header of a run of `solutions` over the built-in suite on an H200 (no cases, no summary).
inline RunRecord fixture_header(const std::vector<std::string>& solutions, std::uint64_t seed) {
  RunRecord run;
  run.harness_version = "0.1.0";
  run.git_commit = "3b351df0c0de";
  run.argv = {"vlbench", "-s", solutions.front()};
  run.timestamp = "2026-12-01T08:00:00Z";
  run.environment.hostname = "h200-node-1";
  run.environment.gpu_name = "NVIDIA H200";
  run.environment.gpu_uuid = "GPU-5b1e9c0a-7d2f-4e61-9a83-0c4f2d6b8e17";
  run.environment.compute_capability = 90;
  run.environment.sm_count = 132;
  run.environment.gpu_spec_key = "H200_SXM";
  run.settings.suite = "all";
  run.settings.solutions = solutions;
  run.settings.seed = seed;
  run.settings.correctness_rounds = 3;
  run.settings.isolation = true;
  run.settings.baseline_source = "PyTorch SDPA + CUDA graph, measured on our H200";
  return run;
}

}  // namespace vlb::testing
