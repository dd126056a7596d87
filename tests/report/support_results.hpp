#pragma once
// Realistic, seeded results records for the report tests, and an exact field-by-field comparison.
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>

#include "harness/report/results.hpp"
#include "support/scratch_folder.hpp"

namespace vlb::test {

// `count` latency samples around `median_ms` with about `relative_noise` spread, and their statistics (computed
// here, so the report tests do not depend on the timing unit).
TimingResult make_timing(std::mt19937_64& rng, double median_ms, double relative_noise, int count);

// A PASSED, timed case with two correctness rounds, SOL figures and a score; every field set to a non-default value.
CaseResult make_passed_case(std::mt19937_64& rng, const std::string& solution, int case_index, double median_ms);

// Several cases of different statuses (PASSED, INCORRECT_NUMERICAL with NaN stats, RUNTIME_ERROR, SKIPPED, a custom
// PASSED case, REWARD_HACK with violations), every field of the run set, and the summary.
RunRecord make_seeded_run(std::uint64_t seed);

// Fails the current Catch2 test on the first field that differs (doubles bitwise-equal, NaN equals NaN).
void require_same_run(const RunRecord& expected, const RunRecord& actual);
void require_same_case(const CaseResult& expected, const CaseResult& actual);

}  // namespace vlb::test
