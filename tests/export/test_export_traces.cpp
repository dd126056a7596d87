// SOL-ExecBench traces: one per evaluated official workload, nullability by status, reference latency and speedup,
// and the JSONL file read back line by line.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <sstream>

#include "export/support_export.hpp"
#include "harness/core/errors.hpp"
#include "harness/export/traces.hpp"
#include "harness/report/results_json.hpp"

namespace vlb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The Trace schema as SOL-ExecBench's pydantic models check it (data/trace.py, workload.py): required keys, types,
// the status vocabulary, and which of correctness / performance each status must carry.
void require_valid_trace(const json& trace) {
  INFO("trace: " << trace.dump());
  REQUIRE(trace.is_object());
  REQUIRE(trace.size() == 4);
  REQUIRE(trace.at("definition") == "034_vision_language_cross_attention_fusion");
  REQUIRE(trace.at("solution").is_string());
  REQUIRE_FALSE(trace.at("solution").get<std::string>().empty());

  const json& workload = trace.at("workload");
  REQUIRE(workload.at("uuid").is_string());
  REQUIRE_FALSE(workload.at("uuid").get<std::string>().empty());
  REQUIRE(workload.at("axes").size() == 3);
  for (const auto& [axis, value] : workload.at("axes").items()) REQUIRE((value.is_number_integer() && value >= 0));
  REQUIRE(workload.at("inputs").size() == 11);
  for (const auto& [name, descriptor] : workload.at("inputs").items()) REQUIRE(descriptor == json{{"type", "custom"}});
  const json& tolerance = workload.at("tolerance");
  REQUIRE(tolerance.size() == 3);
  for (const char* key : {"max_atol", "max_rtol", "required_matched_ratio"}) REQUIRE(tolerance.at(key).is_number());

  const json& evaluation = trace.at("evaluation");
  REQUIRE(evaluation.size() == 6);
  static const std::set<std::string> kStatuses = {"PASSED", "INCORRECT_NUMERICAL", "INCORRECT_SHAPE",
                                                  "RUNTIME_ERROR", "TIMEOUT", "REWARD_HACK"};
  const std::string status = evaluation.at("status").get<std::string>();
  REQUIRE(kStatuses.count(status) == 1);
  REQUIRE(evaluation.at("log").is_string());
  REQUIRE_FALSE(evaluation.at("timestamp").get<std::string>().empty());
  REQUIRE_FALSE(evaluation.at("environment").at("hardware").get<std::string>().empty());
  for (const auto& [library, version] : evaluation.at("environment").at("libs").items()) REQUIRE(version.is_string());

  const bool needs_correctness = status == "PASSED" || status == "INCORRECT_NUMERICAL";
  REQUIRE(evaluation.at("correctness").is_null() == !needs_correctness);
  REQUIRE(evaluation.at("performance").is_null() == (status != "PASSED"));
  if (needs_correctness) {
    const json& correctness = evaluation.at("correctness");
    for (const char* key : {"max_relative_error", "max_absolute_error"}) {
      const json& value = correctness.at(key);
      REQUIRE((value.is_number() && value.get<double>() >= 0));
    }
    REQUIRE(correctness.at("has_nan").is_boolean());
    REQUIRE(correctness.at("has_inf").is_boolean());
    REQUIRE_FALSE((correctness.at("has_nan") == true && correctness.at("has_inf") == true));
  }
  if (status == "PASSED") {
    for (const auto& [key, value] : evaluation.at("performance").items()) {
      REQUIRE(value.is_number());
      REQUIRE(value.get<double>() >= 0);
    }
  }
}

const json* trace_for(const std::vector<json>& traces, const std::string& solution, const std::string& uuid) {
  for (const json& trace : traces) {
    if (trace.at("solution") == solution && trace.at("workload").at("uuid") == uuid) return &trace;
  }
  return nullptr;
}

double worst_over_rounds(const CaseResult& result, double ComparisonStats::*field) {
  double worst = 0;
  for (const CorrectnessRound& round : result.correctness) worst = std::max(worst, round.stats.*field);
  return worst;
}

TEST_CASE("every evaluated official workload gives one schema-valid trace", "[export][traces]") {
  const std::uint64_t seed = test::fresh_seed();
  CAPTURE(seed);
  const RunRecord run = test::make_export_run(seed, "fused_b200");
  const std::vector<json> traces = make_traces(run, nullptr);

  // SKIPPED, the custom shape and the untimed PASSED case are left out; the reference's own case stays.
  REQUIRE(traces.size() == run.cases.size() - 3);
  for (const json& trace : traces) require_valid_trace(trace);
  for (const CaseResult& result : run.cases) {
    const json* trace = trace_for(traces, result.solution, result.uuid);
    const bool expected = !result.uuid.empty() && result.status != CaseStatus::kSkipped &&
                          (result.status != CaseStatus::kPassed || result.timing.has_value());
    INFO("case " << result.case_index << " " << status_name(result.status));
    REQUIRE((trace != nullptr) == expected);
    if (trace == nullptr) continue;
    const json& evaluation = trace->at("evaluation");
    REQUIRE(evaluation.at("status") == std::string(status_name(result.status)));
    REQUIRE(evaluation.at("log") == result.reason);
    REQUIRE(evaluation.at("timestamp") == run.timestamp);
    REQUIRE(trace->at("workload").at("axes") ==
            json{{"batch_size", result.shape.batch},
                 {"lang_seq_len", result.shape.lang_seq},
                 {"vision_seq_len", result.shape.vision_seq}});
  }
}

TEST_CASE("workload inputs, axes and tolerance are those of workloads/workloads.jsonl", "[export][traces]") {
  const std::uint64_t seed = test::fresh_seed();
  CAPTURE(seed);
  const std::vector<json> traces = make_traces(test::make_export_run(seed, "template"), nullptr);
  const std::vector<json> official = test::official_workloads();
  for (const json& trace : traces) {
    const json& workload = trace.at("workload");
    const auto match = std::find_if(official.begin(), official.end(), [&](const json& line) {
      return line.at("workload").at("uuid") == workload.at("uuid");
    });
    REQUIRE(match != official.end());
    REQUIRE(workload.at("axes") == match->at("workload").at("axes"));
    REQUIRE(workload.at("inputs") == match->at("workload").at("inputs"));
    const json& tolerance = match->at("workload").at("tolerance");
    REQUIRE(workload.at("tolerance").at("max_atol") == tolerance.at("max_atol"));
    REQUIRE(workload.at("tolerance").at("max_rtol") == tolerance.at("max_rtol"));
    REQUIRE(workload.at("tolerance").at("required_matched_ratio") == 0.99);  // what vlbench and SOL-ExecBench apply
    REQUIRE(trace.at("definition") == match->at("definition"));
  }
}

TEST_CASE("correctness carries the worst round, NaNs flagged; performance the median and the speedup",
          "[export][traces]") {
  const std::uint64_t seed = test::fresh_seed();
  CAPTURE(seed);
  const RunRecord run = test::make_export_run(seed, "fused_b200");
  const std::vector<json> traces = make_traces(run, nullptr);
  const CaseResult& passed = run.cases[0];
  const CaseResult& numerical = run.cases[1];
  const CaseResult& reference = run.cases.back();
  REQUIRE(reference.solution == "reference");
  REQUIRE(reference.uuid == passed.uuid);

  const json& passed_eval = trace_for(traces, passed.solution, passed.uuid)->at("evaluation");
  REQUIRE(passed_eval.at("correctness").at("max_absolute_error").get<double>() ==
          worst_over_rounds(passed, &ComparisonStats::max_abs_error));
  REQUIRE(passed_eval.at("correctness").at("max_relative_error").get<double>() ==
          worst_over_rounds(passed, &ComparisonStats::max_rel_error));
  REQUIRE(passed_eval.at("correctness").at("has_nan") == false);
  REQUIRE(passed_eval.at("correctness").at("extra").at("rounds") == passed.correctness.size());
  const json& performance = passed_eval.at("performance");
  REQUIRE(performance.at("latency_ms").get<double>() == passed.timing->stats.median);
  REQUIRE(performance.at("reference_latency_ms").get<double>() == reference.timing->stats.median);
  REQUIRE(performance.at("speedup_factor").get<double>() ==
          Approx(reference.timing->stats.median / passed.timing->stats.median).epsilon(1e-12));

  const json& numerical_eval = trace_for(traces, numerical.solution, numerical.uuid)->at("evaluation");
  // A NaN in the output: flagged, and the error figures are 0, as SOL-ExecBench writes them.
  REQUIRE(numerical_eval.at("correctness").at("has_nan") == true);
  REQUIRE(numerical_eval.at("correctness").at("has_inf") == false);
  REQUIRE(numerical_eval.at("correctness").at("max_absolute_error").get<double>() == 0.0);
  REQUIRE(numerical_eval.at("correctness").at("max_relative_error").get<double>() == 0.0);

  const json& environment = passed_eval.at("environment");
  REQUIRE(environment.at("hardware") == "NVIDIA_H200");
  REQUIRE(environment.at("libs") == json{{"cuda", "13.0.88"},
                                         {"cuda_runtime", "13.0"},
                                         {"cuda_driver", "13.0"},
                                         {"cublas", "13.0.2"},
                                         {"cutlass", "4.2.0"}});
}

TEST_CASE("a separate reference run supplies reference latencies; without one they are left out", "[export][traces]") {
  const std::uint64_t seed = test::fresh_seed();
  CAPTURE(seed);
  RunRecord run = test::make_export_run(seed, "fused_b200");
  run.cases.pop_back();  // no reference case in the run itself
  const CaseResult& passed = run.cases[0];

  const std::vector<json> without_reference = make_traces(run, nullptr);
  const json& alone = trace_for(without_reference, passed.solution, passed.uuid)->at("evaluation");
  REQUIRE(alone.at("performance").contains("latency_ms"));
  REQUIRE_FALSE(alone.at("performance").contains("reference_latency_ms"));
  REQUIRE_FALSE(alone.at("performance").contains("speedup_factor"));

  std::mt19937_64 rng(seed + 1);
  RunRecord reference_run = test::make_export_run(seed + 2, "unused");
  reference_run.cases = {test::make_timed_case(rng, "reference", passed.case_index, 2.5)};
  const std::vector<json> traces = make_traces(run, &reference_run);
  const json& performance = trace_for(traces, passed.solution, passed.uuid)->at("evaluation").at("performance");
  const double reference_ms = reference_run.cases[0].timing->stats.median;
  REQUIRE(performance.at("reference_latency_ms").get<double>() == reference_ms);
  REQUIRE(performance.at("speedup_factor").get<double>() ==
          Approx(reference_ms / passed.timing->stats.median).epsilon(1e-12));
  for (const json& trace : traces) require_valid_trace(trace);
}

TEST_CASE("an Inf without NaN sets has_inf; a NaN error figure never reaches the file as a number", "[export][traces]") {
  const std::uint64_t seed = test::fresh_seed();
  CAPTURE(seed);
  RunRecord run = test::make_export_run(seed, "fused_b200");
  CaseResult& numerical = run.cases[1];
  for (CorrectnessRound& round : numerical.correctness) round.stats.nan_count = 0;
  numerical.correctness.back().stats.inf_count = 3;
  json correctness = trace_for(make_traces(run, nullptr), numerical.solution, numerical.uuid)
                         ->at("evaluation").at("correctness");
  REQUIRE(correctness.at("has_inf") == true);
  REQUIRE(correctness.at("has_nan") == false);
  REQUIRE(correctness.at("max_absolute_error").get<double>() == 0.0);

  numerical.correctness.back().stats.inf_count = 0;
  numerical.correctness[0].stats.max_abs_error = std::nan("");
  correctness = trace_for(make_traces(run, nullptr), numerical.solution, numerical.uuid)
                    ->at("evaluation").at("correctness");
  REQUIRE(correctness.at("max_absolute_error").get<double>() == 0.0);
  REQUIRE(correctness.at("max_relative_error").is_number());
}

TEST_CASE("a status that needs correctness but has no round is an input error", "[export][traces]") {
  RunRecord run = test::make_export_run(test::fresh_seed(), "fused_b200");
  run.cases[1].correctness.clear();
  try {
    (void)make_traces(run, nullptr);
    FAIL("expected InputError");
  } catch (const InputError& error) {
    REQUIRE_THAT(error.what(), Catch::Contains("INCORRECT_NUMERICAL") && Catch::Contains(run.cases[1].uuid));
  }
}

TEST_CASE("the JSONL file reads back line by line as the same traces", "[export][traces][io]") {
  const std::uint64_t seed = test::fresh_seed();
  CAPTURE(seed);
  const std::vector<json> traces = make_traces(test::make_export_run(seed, "fused_b200"), nullptr);
  testing::ScratchFolder scratch;
  const fs::path path = scratch.write("traces.jsonl", "an earlier file, kept beside the new one\n");
  const std::optional<fs::path> kept = write_traces_jsonl(path, traces);

  std::istringstream lines(testing::read_text(path));
  std::vector<json> read_back;
  for (std::string line; std::getline(lines, line);) read_back.push_back(json::parse(line));
  REQUIRE(read_back == traces);
  // The earlier file is kept as PATH.~1~; besides it only the file itself remains: the temporary was renamed over it.
  REQUIRE(kept == scratch.file("traces.jsonl.~1~"));
  REQUIRE(testing::read_text(*kept) == "an earlier file, kept beside the new one\n");
  REQUIRE(std::distance(fs::directory_iterator(scratch.path()), fs::directory_iterator()) == 2);
  REQUIRE_FALSE(write_traces_jsonl(scratch.file("new.jsonl"), traces).has_value());

  REQUIRE_THROWS_AS(write_traces_jsonl(scratch.path() / "missing" / "traces.jsonl", traces), UsageError);
  REQUIRE_THROWS_AS(write_traces_jsonl(scratch.path(), traces), UsageError);
}

TEST_CASE("exporting a results file writes the traces make_traces gives, and counts them", "[export][traces][io]") {
  const std::uint64_t seed = test::fresh_seed();
  CAPTURE(seed);
  RunRecord run = test::make_export_run(seed, "fused_b200");
  const RunRecord reference_run = run;  // carries the reference case
  run.cases.pop_back();
  run.summary = summarize(run.cases, 12.5);
  testing::ScratchFolder scratch;
  scratch.write("results.json", to_json(run).dump(2));
  scratch.write("reference.json", to_json(reference_run).dump(2));

  const ExportRequest request{scratch.path() / "results.json", scratch.path() / "reference.json",
                              scratch.path() / "out.jsonl"};
  const ExportedTraces exported = export_traces(request);
  std::istringstream lines(testing::read_text(request.output_path));
  std::vector<json> written;
  for (std::string line; std::getline(lines, line);) written.push_back(json::parse(line));
  const RunRecord run_read = read_results_file(request.results_path);
  const RunRecord reference_read = read_results_file(*request.reference_path);
  REQUIRE(written == make_traces(run_read, &reference_read));
  REQUIRE(written.front().at("evaluation").at("performance").contains("speedup_factor"));
  REQUIRE(exported.written == written.size());
  REQUIRE(exported.left_out == run.cases.size() - written.size());
  REQUIRE(exported.left_out == 3);  // SKIPPED, the custom shape, PASSED without timing

  scratch.write("broken.json", "{\"schema_version\": 1,");
  REQUIRE_THROWS_AS(export_traces({scratch.path() / "broken.json", std::nullopt, scratch.path() / "x.jsonl"}),
                    InputError);
}

}  // namespace
}  // namespace vlb
