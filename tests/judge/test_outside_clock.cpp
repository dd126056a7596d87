// The judge's own clock against every timed case recorded under results/: each honest run's medians must pass the
// check with the slack the judge has now, and a forger's halved median must be caught on the judge's reference runs.
// The data are real runs (each case's `timing.outside_clock` and `outside_samples_ms`); the slack's first form (a 50
// us floor, no output term) failed the first test on an honest fused_b200 case of an H100 run (30x64x28).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "harness/core/problem.hpp"
#include "harness/judge/outside_clock.hpp"
#include "harness/timing/statistics.hpp"

namespace {

namespace fs = std::filesystem;

// One timed case of a results file, as the judge's check saw it.
struct RecordedCase {
  std::string where;  // file, case index and shape, for the failure message
  std::string solution;
  double reported_median_ms = 0;
  double outside_median_ms = 0;
  std::size_t output_bytes = 0;
  vlb::TimerKind timer = vlb::TimerKind::kEvents;
  vlb::OutsideClockCalibration calibration;
};

std::string read_text(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

std::vector<RecordedCase> recorded_cases(const fs::path& file) {
  const std::string text = read_text(file);
  std::vector<RecordedCase> found;
  if (text.find("\"outside_samples_ms\"") == std::string::npos) return found;  // no judged timing in this file
  const nlohmann::json results = nlohmann::json::parse(text);
  const auto timer = results.at("settings").at("timing").at("timer").get<std::string>() == "cupti"
                         ? vlb::TimerKind::kCupti
                         : vlb::TimerKind::kEvents;
  for (const auto& result : results.at("cases")) {
    const auto timing = result.find("timing");
    if (timing == result.end() || timing->is_null() || !timing->contains("outside_clock") ||
        timing->at("outside_clock").is_null() || timing->at("outside_samples_ms").empty()) {
      continue;
    }
    const auto& clock = timing->at("outside_clock");
    const auto& shape = result.at("shape");
    const vlb::ProblemShape problem{shape.at("batch_size").get<std::int64_t>(),
                                    shape.at("lang_seq_len").get<std::int64_t>(),
                                    shape.at("vision_seq_len").get<std::int64_t>()};
    RecordedCase recorded;
    recorded.where = file.string() + " case " + std::to_string(result.at("case_index").get<int>()) + " (" +
                     vlb::describe(problem) + ")";
    recorded.solution = result.at("solution").get<std::string>();
    recorded.reported_median_ms = timing->at("stats").at("median").get<double>();
    const auto outside = timing->at("outside_samples_ms").get<std::vector<double>>();
    recorded.outside_median_ms = vlb::compute_statistics(outside).median;
    recorded.output_bytes = vlb::tensor_spec(vlb::TensorId::kOutput, problem).bytes();
    recorded.timer = timer;
    recorded.calibration.calls = clock.at("calibration_calls").get<int>();
    recorded.calibration.overhead_ms = clock.at("overhead_ms").get<double>();
    recorded.calibration.spread_ms = clock.at("spread_ms").get<double>();
    if (!clock.at("cupti_overhead_ms").is_null()) {
      recorded.calibration.cupti_overhead_ms = clock.at("cupti_overhead_ms").get<double>();
    }
    found.push_back(std::move(recorded));
  }
  return found;
}

std::vector<RecordedCase> recorded_cases_under(const fs::path& folder) {
  std::vector<RecordedCase> found;
  for (const auto& entry : fs::recursive_directory_iterator(folder)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    for (RecordedCase& recorded : recorded_cases(entry.path())) found.push_back(std::move(recorded));
  }
  return found;
}

// The solutions of tests/robustness are forgers by design; every other solution's runs are honest.
bool honest(const RecordedCase& recorded) { return recorded.solution.rfind("advers", 0) != 0; }

const fs::path kResults = fs::path(VLBENCH_SOURCE_DIR) / "results";

}  // namespace

TEST_CASE("every honest timed case under results/ passes the judge's clock with the slack it has now",
          "[judge][outside_clock]") {
  const std::vector<RecordedCase> cases = recorded_cases_under(kResults);
  int checked = 0;
  bool saw_the_h100_case = false;  // the honest case the first form flagged
  for (const RecordedCase& recorded : cases) {
    if (!honest(recorded)) continue;
    ++checked;
    saw_the_h100_case |= recorded.where.find("v27/b_second_form/few_keys_new.json") != std::string::npos &&
                         recorded.where.find("B=30 Lq=64 Lv=28") != std::string::npos;
    INFO(recorded.where << " (" << recorded.solution << ")");
    CHECK_FALSE(vlb::outside_clock_violation(recorded.reported_median_ms, recorded.timer, recorded.outside_median_ms,
                                             recorded.calibration, recorded.output_bytes));
  }
  CHECK(saw_the_h100_case);
  CHECK(checked >= 3000);  // 2,929 at the slack's second form, 3,064 at v28: results/ was found and read whole
}

TEST_CASE("a median halved is caught on every case of 0.2 ms and more in the judge's reference runs",
          "[judge][outside_clock]") {
  // The suite runs the slack's margin table was made from (docs/threat-model.md), the headline run and the H100 runs of
  // the slack's second form.
  std::vector<RecordedCase> cases = recorded_cases_under(kResults / "h200" / "judge" / "ab_3ac807e");
  for (const char* file : {"fused_b200/v18/d_commit/fused_b200.json", "fused_b200.json", "reference.json",
                           "template.json"}) {
    for (RecordedCase& recorded : recorded_cases(kResults / "h200" / file)) cases.push_back(std::move(recorded));
  }
  for (RecordedCase& recorded : recorded_cases_under(kResults / "h100" / "fused_b200" / "v27" / "b_second_form")) {
    cases.push_back(std::move(recorded));
  }
  int caught = 0;
  for (const RecordedCase& recorded : cases) {
    if (recorded.reported_median_ms < 0.2) continue;
    INFO(recorded.where << " (" << recorded.solution << "): " << recorded.reported_median_ms << " ms");
    CHECK(vlb::outside_clock_violation(recorded.reported_median_ms / 2, recorded.timer, recorded.outside_median_ms,
                                       recorded.calibration, recorded.output_bytes)
              .has_value());
    ++caught;
  }
  CHECK(caught >= 100);
}

TEST_CASE("the slack grows with the output up to 64 MB, and with the call", "[judge][outside_clock]") {
  vlb::OutsideClockCalibration calibration;
  calibration.overhead_ms = 0.35;
  calibration.spread_ms = 0.01;  // 3 x 10 us is under the 60 us floor
  const double call_outside_ms = 0.35 + 1.0;  // a 1 ms call as the judge saw it
  const double none = vlb::outside_clock_slack_ms(calibration, call_outside_ms, 0);
  CHECK(none == Approx(0.060 + 0.08 + 0.002));
  CHECK(vlb::outside_clock_slack_ms(calibration, call_outside_ms, 16'000'000) == Approx(none + 0.024));
  CHECK(vlb::outside_clock_slack_ms(calibration, call_outside_ms, 64'000'000) == Approx(none + 0.096));
  CHECK(vlb::outside_clock_slack_ms(calibration, call_outside_ms, 537'000'000) == Approx(none + 0.096));
  calibration.spread_ms = 0.05;  // a noisy calibration: three interquartile ranges replace the floor
  CHECK(vlb::outside_clock_slack_ms(calibration, call_outside_ms, 0) == Approx(0.150 + 0.08 + 0.002));
}
