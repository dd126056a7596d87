#pragma once
// The results model: one schema for the terminal table, the results JSON, the SOL-ExecBench traces and the plots.
// docs/results-schema.md documents the JSON form (schema_version below); report/results_schema.hpp lists its keys,
// report/results_json.hpp converts.
#include <optional>
#include <string>
#include <vector>

#include "harness/check/comparison.hpp"
#include "harness/check/status.hpp"
#include "harness/core/problem.hpp"
#include "harness/sol/speed_of_light.hpp"
#include "harness/timing/measurement.hpp"

namespace vlb {

// 2: the judge's outside clock and every timed call's judgement in `timing`, the sandbox in `environment`;
// `correctness` holds the rounds only. 3: each case's `load_s` and `first_call_ms`. Files of versions 1 and 2 still
// read (the later fields empty).
inline constexpr int kResultsSchemaVersion = 3;

struct EnvironmentRecord {
  std::string hostname;
  std::string gpu_name, gpu_uuid;
  int compute_capability = 0;
  int sm_count = 0;
  std::size_t l2_bytes = 0;
  std::size_t global_memory_bytes = 0;
  double max_sm_clock_mhz = 0, max_memory_clock_mhz = 0;
  int driver_version = 0, runtime_version = 0;  // CUDA's integer form, 13000 = 13.0
  std::string cuda_toolkit_version;             // the nvcc that built vlbench
  std::string cublas_version;
  std::string cutlass_version;
  std::string gpu_spec_key;                     // which GpuSpec the SOL figures use
  std::string sandbox;                          // what held around the workers (isolation/sandbox.hpp)
};

struct RunSettingsRecord {
  std::string suite;
  std::vector<std::string> solutions;
  std::vector<std::string> case_selectors;
  std::uint64_t seed = 0;
  int correctness_rounds = 0;
  TimingSettings timing;
  bool isolation = false;
  std::string baseline_source;
};

struct CorrectnessRound {
  std::uint64_t seed = 0;
  std::string positions;  // "official" | "random"
  ComparisonStats stats;
  CaseStatus status = CaseStatus::kPassed;
  std::string reason;
};

struct CaseResult {
  std::string solution;
  int case_index = -1;
  std::string uuid;
  ProblemShape shape;
  Tolerance tolerance;
  CaseStatus status = CaseStatus::kSkipped;
  std::string reason;  // for any status but PASSED: one line saying why
  std::vector<CorrectnessRound> correctness;  // every correctness round that ran (timed calls: timing.judged_calls)
  std::optional<TimingResult> timing;         // only when the case was timed
  WorkCount work;
  std::optional<SolEstimate> sol;
  std::optional<double> sol_fraction;         // T_SOL / median latency
  std::optional<double> baseline_ms;          // T_b
  std::optional<double> score;
  bool implausibly_fast = false;
  double wall_time_s = 0;
  std::optional<double> load_s;         // the solution's load in its worker, on the judge's clock
  std::optional<double> first_call_ms;  // round 0's call on the outside clock: a JIT's compile time shows here
  std::optional<double> peak_device_memory_bytes;
};

struct SummaryRecord {
  int cases = 0, passed = 0, failed = 0, skipped = 0;
  std::string latency_statistic = "median";  // which per-case statistic the means below average
  std::optional<double> mean_latency_ms;     // over timed cases
  std::optional<double> mean_score;          // over cases with a score
  std::optional<double> mean_sol_fraction;
  double wall_time_s = 0;
};

struct RunRecord {
  int schema_version = kResultsSchemaVersion;
  std::string harness_version;
  std::string git_commit;
  bool git_dirty = false;
  std::vector<std::string> argv;
  std::string timestamp;  // ISO 8601 UTC
  EnvironmentRecord environment;
  RunSettingsRecord settings;
  std::vector<CaseResult> cases;
  std::optional<SummaryRecord> summary;  // absent in a partial file
};

SummaryRecord summarize(const std::vector<CaseResult>& cases, double wall_time_s);

}  // namespace vlb
