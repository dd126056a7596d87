#include "export/support_export.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sstream>

#include "harness/timing/statistics.hpp"

namespace vlb::test {

namespace {

double uniform(std::mt19937_64& rng, double low, double high) {
  return std::uniform_real_distribution<double>(low, high)(rng);
}

CorrectnessRound make_round(std::mt19937_64& rng, const char* positions, CaseStatus status) {
  CorrectnessRound round;
  round.seed = rng();
  round.positions = positions;
  round.status = status;
  if (status != CaseStatus::kPassed) round.reason = "below the required match ratio";
  ComparisonStats& stats = round.stats;
  stats.elements = 1 + static_cast<std::int64_t>(rng() % 1000000);
  stats.matched = stats.elements - static_cast<std::int64_t>(rng() % (stats.elements / 200 + 1));
  stats.matched_ratio = static_cast<double>(stats.matched) / static_cast<double>(stats.elements);
  stats.max_abs_error = uniform(rng, 1e-4, 5e-2);
  stats.max_rel_error = uniform(rng, 1e-3, 4.0);
  stats.worst_index = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(stats.elements));
  return round;
}

void set_official_workload(CaseResult& result, int case_index) {
  const nlohmann::json workload = official_workloads().at(static_cast<std::size_t>(case_index)).at("workload");
  result.case_index = case_index;
  result.uuid = workload.at("uuid").get<std::string>();
  result.shape = {workload.at("axes").at("batch_size").get<std::int64_t>(),
                  workload.at("axes").at("lang_seq_len").get<std::int64_t>(),
                  workload.at("axes").at("vision_seq_len").get<std::int64_t>()};
  result.tolerance.atol = workload.at("tolerance").at("max_atol").get<double>();
  result.tolerance.rtol = workload.at("tolerance").at("max_rtol").get<double>();
}

CaseResult make_failed_case(std::mt19937_64& rng, const std::string& solution, int case_index, CaseStatus status,
                            const std::string& reason) {
  CaseResult result;
  result.solution = solution;
  set_official_workload(result, case_index);
  result.status = status;
  result.reason = reason + " (seeded " + std::to_string(rng() % 1000) + ")";
  return result;
}

}  // namespace

std::uint64_t fresh_seed() { return std::random_device{}() * 0x9e3779b97f4a7c15ull + std::random_device{}(); }

std::vector<nlohmann::json> official_workloads() {
  std::istringstream lines(testing::read_text(std::filesystem::path(VLBENCH_SOURCE_DIR) / "workloads" / "workloads.jsonl"));
  std::vector<nlohmann::json> workloads;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) workloads.push_back(nlohmann::json::parse(line));
  }
  REQUIRE(workloads.size() == 16);
  return workloads;
}

CaseResult make_timed_case(std::mt19937_64& rng, const std::string& solution, int case_index, double median_ms) {
  CaseResult result;
  result.solution = solution;
  set_official_workload(result, case_index);
  result.status = CaseStatus::kPassed;
  result.correctness = {make_round(rng, "official", CaseStatus::kPassed),
                        make_round(rng, "random", CaseStatus::kPassed)};
  TimingResult timing;
  for (int i = 0; i < 50; ++i) timing.samples_ms.push_back(median_ms * uniform(rng, 0.97, 1.03));
  timing.event_samples_ms = timing.samples_ms;
  timing.stats = compute_statistics(timing.samples_ms);
  timing.stop_reason = "iterations";
  result.timing = timing;
  return result;
}

RunRecord make_export_run(std::uint64_t seed, const std::string& solution) {
  std::mt19937_64 rng(seed);
  RunRecord run;
  run.harness_version = "0.1.0";
  run.git_commit = "0123456789abcdef0123456789abcdef01234567";
  run.timestamp = "2026-11-29T15:" + std::to_string(10 + rng() % 50) + ":00Z";
  run.environment.gpu_name = "NVIDIA H200";
  run.environment.gpu_spec_key = "H200_SXM";
  run.environment.compute_capability = 90;
  run.environment.driver_version = 13000;
  run.environment.runtime_version = 13000;
  run.environment.cuda_toolkit_version = "13.0.88";
  run.environment.cublas_version = "13.0.2";
  run.environment.cutlass_version = "4.2.0";
  run.settings.suite = "all";
  run.settings.solutions = {solution, "reference"};
  run.settings.seed = seed;

  run.cases.push_back(make_timed_case(rng, solution, 0, uniform(rng, 0.1, 0.3)));

  CaseResult numerical = make_failed_case(rng, solution, 1, CaseStatus::kIncorrectNumerical, "98.1% of elements");
  numerical.correctness = {make_round(rng, "official", CaseStatus::kIncorrectNumerical),
                           make_round(rng, "random", CaseStatus::kIncorrectNumerical)};
  numerical.correctness[1].stats.nan_count = 1 + static_cast<std::int64_t>(rng() % 100);
  run.cases.push_back(numerical);

  run.cases.push_back(make_failed_case(rng, solution, 2, CaseStatus::kIncorrectShape, "output has 3 dimensions"));
  run.cases.push_back(make_failed_case(rng, solution, 3, CaseStatus::kRuntimeError, "cudaErrorIllegalAddress"));
  run.cases.push_back(make_failed_case(rng, solution, 4, CaseStatus::kTimeout, "call ran past 30 s"));
  run.cases.push_back(make_failed_case(rng, solution, 5, CaseStatus::kRewardHack, "input q_proj_weight modified"));
  run.cases.push_back(make_failed_case(rng, solution, 6, CaseStatus::kSkipped, "targets sm_100, GPU is sm_90"));

  CaseResult custom = make_timed_case(rng, solution, 7, uniform(rng, 0.1, 0.3));
  custom.case_index = -1;
  custom.uuid.clear();
  custom.shape = {3, 100, 196};
  run.cases.push_back(custom);

  CaseResult untimed = make_timed_case(rng, solution, 8, 1.0);
  untimed.timing.reset();
  run.cases.push_back(untimed);

  run.cases.push_back(make_timed_case(rng, "reference", 0, uniform(rng, 1.0, 3.0)));
  run.summary = summarize(run.cases, 12.5);
  return run;
}

}  // namespace vlb::test
