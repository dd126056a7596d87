#pragma once
// Shared helpers of the export tests: a seeded results record with one case per status (scratch folders and file
// reading come from support/scratch_folder.hpp).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>

#include "harness/report/results.hpp"
#include "support/scratch_folder.hpp"

namespace vlb::test {

// A fresh seed per test run, reported by Catch2 on failure (CAPTURE it).
std::uint64_t fresh_seed();

// A PASSED, timed case of the suite's workload `case_index` (uuid and shape as in workloads/workloads.jsonl) with
// two correctness rounds whose figures are drawn from `rng`.
CaseResult make_timed_case(std::mt19937_64& rng, const std::string& solution, int case_index, double median_ms);

// One case per status of `solution` on distinct official workloads: PASSED, INCORRECT_NUMERICAL (a round with NaNs),
// INCORRECT_SHAPE, RUNTIME_ERROR, TIMEOUT, REWARD_HACK, SKIPPED, a custom-shape PASSED case (no uuid) and a PASSED
// case without timing; plus the `reference` solution PASSED and timed on the first workload. Environment filled.
RunRecord make_export_run(std::uint64_t seed, const std::string& solution);

// The official workloads file, one parsed line per workload.
std::vector<nlohmann::json> official_workloads();

}  // namespace vlb::test
