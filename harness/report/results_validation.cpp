// The cross-field rules of a results document (docs/results-schema.md, "Validation rules"), checked after the typed
// reader has checked every key and type. Fields are named through the schema's field lists.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "harness/report/results_json_detail.hpp"
#include "harness/report/results_schema.hpp"
#include "harness/report/text_format.hpp"
#include "harness/timing/statistics.hpp"

namespace vlb::report_detail {

namespace {

// The value of `member` inside the record that `record` holds.
template <JsonRecord Record, class Member>
JsonValue field(const JsonValue& record, Member Record::*member) {
  return record.at(json_key(member));
}

// PASSED carries no reason; every other status says why in one line.
void check_reason(CaseStatus status, const std::string& reason, const JsonValue& reason_node) {
  if (status == CaseStatus::kPassed && !reason.empty()) reason_node.fail("a PASSED result has no reason");
  if (status != CaseStatus::kPassed && reason.empty()) {
    reason_node.fail("a " + std::string(status_name(status)) + " result needs a non-empty reason");
  }
}

void check_shape(const ProblemShape& shape, const JsonValue& node) {
  if (shape.batch <= 0) field(node, &ProblemShape::batch).fail("must be positive");
  if (shape.lang_seq <= 0) field(node, &ProblemShape::lang_seq).fail("must be positive");
  if (shape.vision_seq <= 0) field(node, &ProblemShape::vision_seq).fail("must be positive");
}

void check_round(const CorrectnessRound& round, const JsonValue& node) {
  if (round.positions != "official" && round.positions != "random") {
    field(node, &CorrectnessRound::positions)
        .fail("expected \"official\" or \"random\", found \"" + round.positions + "\"");
  }
  const JsonValue stats = field(node, &CorrectnessRound::stats);
  if (round.stats.elements < 0) field(stats, &ComparisonStats::elements).fail("must not be negative");
  if (round.stats.matched < 0 || round.stats.matched > round.stats.elements) {
    field(stats, &ComparisonStats::matched)
        .fail("must lie between 0 and elements (" + std::to_string(round.stats.elements) + ")");
  }
  check_reason(round.status, round.reason, field(node, &CorrectnessRound::reason));
}

// A sample is a finite, non-negative number of milliseconds, no longer than the longest --case-timeout: zero is
// CUPTI's span of a call that put no work on the GPU, which the run marks REWARD_HACK (the kernels launched changed
// between calls) and keeps, as it keeps every measured sample. Anything else is a damaged or hand-edited file.
void check_samples(const std::vector<double>& samples, const JsonValue& node) {
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double sample = samples[i];
    if (!(std::isfinite(sample) && sample >= 0)) {
      node.fail(fmt::format("sample {} is {}: a latency is a finite, non-negative number of milliseconds", i,
                            std::isnan(sample) ? std::string("null") : fmt::format("{:g}", sample)));
    }
    if (sample > kMaxLatencyMs) {
      node.fail(fmt::format("sample {} is {:g} ms, more than the {:g} ms (one day, the longest --case-timeout) any "
                            "call can take: an impossible latency",
                            i, sample, kMaxLatencyMs));
    }
  }
}

// Two statistics agree when they differ by rounding only (files written by vlbench round-trip exactly).
bool agrees(double written, double computed) {
  return std::abs(written - computed) <= 1e-9 + 1e-6 * std::max(std::abs(written), std::abs(computed));
}

// The statistics are those of samples_ms: a median that its samples do not give (hand-edited, or two files spliced
// together) would make compare's verdict and the ratio disagree.
void check_statistics(const TimingResult& timing, const JsonValue& stats_node) {
  if (timing.stats.count != timing.samples_ms.size()) {
    field(stats_node, &Statistics::count)
        .fail(fmt::format("is {} but samples_ms holds {} samples", timing.stats.count, timing.samples_ms.size()));
  }
  const Statistics computed = compute_statistics(timing.samples_ms);
  const std::pair<double Statistics::*, double> checked[] = {
      {&Statistics::median, computed.median}, {&Statistics::mean, computed.mean},
      {&Statistics::min, computed.min},       {&Statistics::max, computed.max},
      {&Statistics::p10, computed.p10},       {&Statistics::p90, computed.p90},
      {&Statistics::stddev, computed.stddev}};
  for (const auto& [member, expected] : checked) {
    const double written = timing.stats.*member;
    if (!agrees(written, expected)) {
      field(stats_node, member)
          .fail(fmt::format("is {:g} but the {} samples of samples_ms give {:g}: the statistics must be those of "
                            "the samples",
                            written, timing.samples_ms.size(), expected));
    }
  }
}

void check_timing(const CaseResult& result, const JsonValue& node) {
  if (!result.timing) return;
  const TimingResult& timing = *result.timing;
  const JsonValue timing_node = field(node, &CaseResult::timing);
  if (result.status == CaseStatus::kSkipped) timing_node.fail("a SKIPPED case never ran, so it has no timing (null)");
  if (timing.samples_ms.empty()) {
    field(timing_node, &TimingResult::samples_ms).fail("a timed case has at least one sample");
  }
  check_samples(timing.samples_ms, field(timing_node, &TimingResult::samples_ms));
  check_samples(timing.event_samples_ms, field(timing_node, &TimingResult::event_samples_ms));
  check_samples(timing.cupti_samples_ms, field(timing_node, &TimingResult::cupti_samples_ms));
  const bool passed = result.status == CaseStatus::kPassed;
  const JsonValue stats_node = field(timing_node, &TimingResult::stats);
  if (!(std::isfinite(timing.stats.median) && (passed ? timing.stats.median > 0 : timing.stats.median >= 0))) {
    field(stats_node, &Statistics::median)
        .fail(fmt::format("is {}{}",
                          std::isnan(timing.stats.median) ? "null" : fmt::format("{:g}", timing.stats.median),
                          passed ? ": a PASSED case's median latency is positive"
                                 : ": a median latency is finite and non-negative"));
  }
  check_statistics(timing, stats_node);
}

void check_count(int written, int expected, const JsonValue& node, std::string_view what) {
  if (written != expected) {
    node.fail("is " + std::to_string(written) + " but the cases array holds " + std::to_string(expected) + " " +
              std::string(what));
  }
}

void check_summary(const RunRecord& run, const JsonValue& node) {
  const SummaryRecord& summary = *run.summary;
  int passed = 0, failed = 0, skipped = 0;
  for (const CaseResult& result : run.cases) {
    passed += result.status == CaseStatus::kPassed;
    failed += is_failure(result.status);
    skipped += result.status == CaseStatus::kSkipped;
  }
  check_count(summary.cases, static_cast<int>(run.cases.size()), field(node, &SummaryRecord::cases), "cases");
  check_count(summary.passed, passed, field(node, &SummaryRecord::passed), "PASSED cases");
  check_count(summary.failed, failed, field(node, &SummaryRecord::failed), "failed cases");
  check_count(summary.skipped, skipped, field(node, &SummaryRecord::skipped), "SKIPPED cases");
  if (summary.latency_statistic.empty()) field(node, &SummaryRecord::latency_statistic).fail("must name a statistic");
}

}  // namespace

void check_case_rules(const CaseResult& result, const JsonValue& node) {
  if (result.solution.empty()) field(node, &CaseResult::solution).fail("must name a solution");
  if (result.case_index < -1) {
    field(node, &CaseResult::case_index).fail("must be a suite index, or -1 for a custom case");
  }
  check_shape(result.shape, field(node, &CaseResult::shape));
  check_reason(result.status, result.reason, field(node, &CaseResult::reason));
  const std::vector<JsonValue> rounds = field(node, &CaseResult::correctness).elements();
  for (std::size_t i = 0; i < result.correctness.size(); ++i) check_round(result.correctness[i], rounds.at(i));
  check_timing(result, node);
}

void UniqueCases::check(const CaseResult& result, const JsonValue& node, const std::string& where) {
  const Key key = result.uuid.empty() ? Key{result.solution, "", result.shape.batch, result.shape.lang_seq,
                                            result.shape.vision_seq}
                                      : Key{result.solution, result.uuid, 0, 0, 0};
  const auto [first, inserted] = first_seen_.emplace(key, where);
  if (!inserted) {
    node.fail(fmt::format("{} of solution '{}' is listed twice ({} and {}): a results file holds each (solution, "
                          "case) once, so counting it twice would skew the summary, compare and merge",
                          case_label(result), result.solution, first->second, where));
  }
}

void check_run_rules(const RunRecord& run, const JsonValue& root) {
  const std::vector<JsonValue> cases = field(root, &RunRecord::cases).elements();
  UniqueCases unique;
  for (std::size_t i = 0; i < run.cases.size(); ++i) {
    check_case_rules(run.cases[i], cases.at(i));
    unique.check(run.cases[i], cases.at(i), cases.at(i).path());
  }
  if (run.summary) check_summary(run, field(root, &RunRecord::summary));
}

}  // namespace vlb::report_detail
