#pragma once
// Realistic, seeded results records for the report tests, and an exact field-by-field comparison that walks the
// schema's field lists (harness/report/results_schema.hpp), so that a new field is compared without an edit here.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iomanip>
#include <random>
#include <string>
#include <type_traits>

#include "harness/report/results.hpp"
#include "harness/report/results_schema.hpp"
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

// Fails the current Catch2 test on the first field that differs, naming its path ("run.cases[2].timing.stats.p90");
// doubles must be equal, NaN equals NaN.
template <class T>
void require_same(const T& expected, const T& actual, const std::string& path) {
  if constexpr (JsonRecord<T>) {
    for_each_json_field<T>([&](const auto& field) {
      require_same(expected.*(field.member), actual.*(field.member), path + "." + std::string(field.key));
    });
  } else if constexpr (kIsJsonOptional<T>) {
    INFO(path);
    REQUIRE(expected.has_value() == actual.has_value());
    if (expected) require_same(*expected, *actual, path);
  } else if constexpr (kIsJsonArray<T>) {
    INFO(path);
    REQUIRE(expected.size() == actual.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      require_same(expected[i], actual[i], path + "[" + std::to_string(i) + "]");
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    INFO(path << ": expected " << std::setprecision(17) << expected << ", got " << actual);
    REQUIRE(((std::isnan(expected) && std::isnan(actual)) || expected == actual));
  } else {
    INFO(path);
    REQUIRE(expected == actual);
  }
}

void require_same_run(const RunRecord& expected, const RunRecord& actual);
void require_same_case(const CaseResult& expected, const CaseResult& actual);

}  // namespace vlb::test
