// The results JSON: exact round trips, strict numbers, and validation errors that name the JSON path.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <regex>
#include <string>

#include "harness/core/errors.hpp"
#include "harness/report/results_json.hpp"
#include "harness/timing/statistics.hpp"
#include "report/support_results.hpp"

namespace vlb {
namespace {

using nlohmann::json;

// Runs `action`, which must throw InputError whose message contains `expected`.
template <typename Action>
void require_input_error(Action&& action, const std::string& expected) {
  try {
    action();
  } catch (const InputError& error) {
    INFO("message: " << error.what());
    REQUIRE(std::string(error.what()).find(expected) != std::string::npos);
    return;
  }
  FAIL("expected InputError containing: " << expected);
}

void require_invalid(const json& document, const std::string& expected) {
  require_input_error([&] { validate_results_json(document); }, expected);
}

json seeded_document() { return to_json(test::make_seeded_run(20261129)); }

TEST_CASE("a version 1 file reads as version 2 with the fields version 2 added empty", "[report][json]") {
  json document = seeded_document();
  document["schema_version"] = 1;
  document["environment"].erase("sandbox");
  for (json& each : document["cases"]) {
    if (!each["timing"].is_object()) continue;
    for (const char* added : {"outside_samples_ms", "outside_clock", "judged_calls"}) each["timing"].erase(added);
  }
  REQUIRE_NOTHROW(validate_results_json(document));
  const RunRecord run = run_record_from_json(document);
  CHECK(run.schema_version == kResultsSchemaVersion);
  CHECK(run.environment.sandbox.empty());
  for (const CaseResult& result : run.cases) {
    if (!result.timing) continue;
    CHECK(result.timing->outside_samples_ms.empty());
    CHECK(result.timing->judged_calls.empty());
    CHECK_FALSE(result.timing->outside_clock.has_value());
  }
  // A version 2 document without them is damaged, not old.
  document["schema_version"] = 2;
  require_invalid(document, "environment.sandbox: required field is missing");
}

TEST_CASE("a version 2 document reads with no load or first-call time; a version 3 one must have them",
          "[report][json][schema]") {
  json document = seeded_document();
  document["schema_version"] = 2;
  for (json& each : document["cases"]) {
    each.erase("load_s");
    each.erase("first_call_ms");
  }
  const RunRecord run = run_record_from_json(document);
  for (const CaseResult& result : run.cases) {
    CHECK_FALSE(result.load_s.has_value());
    CHECK_FALSE(result.first_call_ms.has_value());
  }
  document["schema_version"] = 3;
  require_invalid(document, "load_s: required field is missing");
}

TEST_CASE("a seeded run record round-trips through JSON text exactly", "[report][json]") {
  const std::uint64_t seed = GENERATE(1u, 77u, 4242u, 987654321u);
  const RunRecord run = test::make_seeded_run(seed);
  const std::string text = to_json(run).dump();
  const json parsed = json::parse(text);
  REQUIRE_NOTHROW(validate_results_json(parsed));
  REQUIRE(parsed.at("schema") == "vlbench-results");
  REQUIRE(parsed.at("schema_version") == vlb::kResultsSchemaVersion);
  const RunRecord back = run_record_from_json(parsed);
  test::require_same_run(run, back);
  // Writing what was read gives the same text: nothing is lost or reformatted on the way.
  REQUIRE(to_json(back).dump() == text);
}

TEST_CASE("the JSON uses the documented snake_case keys", "[report][json]") {
  const json document = seeded_document();
  const json& timed = document.at("cases").at(0);
  REQUIRE(timed.at("shape").contains("batch_size"));
  REQUIRE(timed.at("shape").contains("lang_seq_len"));
  REQUIRE(timed.at("shape").contains("vision_seq_len"));
  REQUIRE(timed.at("status") == "PASSED");
  REQUIRE(timed.at("timing").at("samples_ms").size() == timed.at("timing").at("stats").at("count").get<std::size_t>());
  REQUIRE(document.at("cases").at(2).at("status") == "RUNTIME_ERROR");
  REQUIRE(document.at("cases").at(2).at("timing").is_null());
  REQUIRE(document.at("settings").at("timing").at("timer") == "cupti");
}

TEST_CASE("non-finite numbers are written as null and read back as NaN or nullopt", "[report][json]") {
  RunRecord run = test::make_seeded_run(31337);
  CaseResult& timed = run.cases.at(0);
  timed.timing->samples_ms.at(3) = std::numeric_limits<double>::quiet_NaN();
  timed.timing->event_samples_ms.at(5) = std::numeric_limits<double>::infinity();
  timed.timing->stats.stddev = -std::numeric_limits<double>::infinity();
  timed.score = std::numeric_limits<double>::infinity();
  timed.sol_fraction = std::numeric_limits<double>::quiet_NaN();
  run.summary->mean_latency_ms = std::numeric_limits<double>::quiet_NaN();

  const std::string text = to_json(run).dump(2);
  // Outside string literals (keys such as "nan_count" may spell it), no value may read nan or inf.
  const std::string values_only = std::regex_replace(text, std::regex(R"("(?:[^"\\]|\\.)*")"), "\"\"");
  REQUIRE(values_only.find("nan_count") == std::string::npos);
  for (const char* forbidden : {"nan", "NaN", "inf", "Inf", "Infinity"}) {
    INFO(forbidden);
    REQUIRE(values_only.find(forbidden) == std::string::npos);
  }
  REQUIRE(values_only.find("null") != std::string::npos);
  const json parsed = json::parse(text);  // nlohmann's parser is strict JSON
  REQUIRE(parsed.at("cases").at(0).at("timing").at("samples_ms").at(3).is_null());
  REQUIRE(parsed.at("cases").at(0).at("score").is_null());

  const RunRecord back = run_record_from_json(parsed);
  const CaseResult& read = back.cases.at(0);
  REQUIRE(std::isnan(read.timing->samples_ms.at(3)));
  REQUIRE(std::isnan(read.timing->event_samples_ms.at(5)));
  REQUIRE(std::isnan(read.timing->stats.stddev));
  REQUIRE(read.timing->samples_ms.at(4) == timed.timing->samples_ms.at(4));
  REQUIRE_FALSE(read.score.has_value());
  REQUIRE_FALSE(read.sol_fraction.has_value());
  REQUIRE_FALSE(back.summary->mean_latency_ms.has_value());
  // The NaN worst_output of the seeded INCORRECT_NUMERICAL case comes back as NaN too.
  REQUIRE(std::isnan(back.cases.at(1).correctness.back().stats.worst_output));
}

TEST_CASE("text that is not valid UTF-8 in a reason does not stop the writer", "[report][json]") {
  RunRecord run = test::make_seeded_run(5);
  run.cases.at(2).reason = std::string("solution said: \xff\xfe bad bytes");
  testing::ScratchFolder folder;
  const auto path = folder.path() / "results.json";
  ResultsWriter writer(path, run);
  for (const CaseResult& result : run.cases) writer.append_case(result);
  writer.finish(run);
  const RunRecord back = read_results_file(path);
  REQUIRE(back.cases.at(2).reason.find("bad bytes") != std::string::npos);
  REQUIRE(back.cases.at(2).reason != run.cases.at(2).reason);  // the bad bytes became U+FFFD
}

TEST_CASE("validation names the JSON path of a missing key or a wrong type", "[report][json][validation]") {
  json document = seeded_document();
  SECTION("missing key") {
    document["cases"][3].erase("reason");
    require_invalid(document, "results JSON: cases[3].reason: required field is missing");
  }
  SECTION("a string where a number belongs") {
    document["cases"][0]["timing"]["stats"]["median"] = "fast";
    require_invalid(document, "results JSON: cases[0].timing.stats.median: must be a number");
  }
  SECTION("a fraction where an integer belongs") {
    document["environment"]["sm_count"] = 131.5;
    require_invalid(document, "environment.sm_count: must be an integer");
  }
  SECTION("a negative seed") {
    document["settings"]["seed"] = -4;
    require_invalid(document, "settings.seed: must be a non-negative integer");
  }
  SECTION("an object where an array belongs") {
    document["cases"] = json::object();
    require_invalid(document, "cases: must be an array");
  }
  SECTION("a sample that is a string") {
    document["cases"][4]["timing"]["samples_ms"][2] = "0.3";
    require_invalid(document, "cases[4].timing.samples_ms[2]: must be a number");
  }
  SECTION("a document that is not an object") {
    require_invalid(json::array({1, 2}), "results JSON: must be a JSON object");
  }
  SECTION("the typed reader reports the same paths") {
    document["cases"][1]["correctness"][0]["stats"].erase("matched");
    require_input_error([&] { run_record_from_json(document); },
                        "cases[1].correctness[0].stats.matched: required field is missing");
  }
}

TEST_CASE("validation checks schema, statuses and the per-status rules", "[report][json][validation]") {
  json document = seeded_document();
  SECTION("unknown status") {
    document["cases"][2]["status"] = "CRASHED";
    require_invalid(document, "cases[2].status: unknown status 'CRASHED'");
  }
  SECTION("unknown status in a correctness round") {
    document["cases"][0]["correctness"][1]["status"] = "passed";
    require_invalid(document, "cases[0].correctness[1].status: unknown status 'passed'");
  }
  SECTION("another schema") {
    document["schema"] = "flashinfer-trace";
    require_invalid(document, "schema: expected \"vlbench-results\"");
  }
  SECTION("a newer schema version") {
    document["schema_version"] = kResultsSchemaVersion + 1;
    require_invalid(document, "schema_version: unsupported schema version " +
                                  std::to_string(kResultsSchemaVersion + 1));
  }
  SECTION("a PASSED case with a reason") {
    document["cases"][0]["reason"] = "looks fine";
    require_invalid(document, "cases[0].reason: a PASSED result has no reason");
  }
  SECTION("a failure without a reason") {
    document["cases"][2]["reason"] = "";
    require_invalid(document, "cases[2].reason: a RUNTIME_ERROR result needs a non-empty reason");
  }
  SECTION("a SKIPPED case with timing") {
    document["cases"][3]["timing"] = document["cases"][0]["timing"];
    require_invalid(document, "cases[3].timing: a SKIPPED case never ran");
  }
  SECTION("timing without samples") {
    document["cases"][0]["timing"]["samples_ms"] = json::array();
    require_invalid(document, "cases[0].timing.samples_ms: a timed case has at least one sample");
  }
  SECTION("a sample count that disagrees with the samples") {
    const auto count = document["cases"][5]["timing"]["stats"]["count"].get<std::size_t>();
    document["cases"][5]["timing"]["stats"]["count"] = count + 1;
    require_invalid(document, "cases[5].timing.stats.count: is " + std::to_string(count + 1) + " but samples_ms holds " +
                                  std::to_string(count) + " samples");
  }
  SECTION("unknown correctness positions") {
    document["cases"][1]["correctness"][1]["positions"] = "diagonal";
    require_invalid(document, "cases[1].correctness[1].positions: expected \"official\" or \"random\"");
  }
  SECTION("a shape with a zero axis") {
    document["cases"][4]["shape"]["vision_seq_len"] = 0;
    require_invalid(document, "cases[4].shape.vision_seq_len: must be positive");
  }
}

TEST_CASE("a call CUPTI saw no GPU work in reads back as a 0 ms sample of a REWARD_HACK case",
          "[report][json][validation]") {
  RunRecord run = test::make_seeded_run(31);
  CaseResult& hack = run.cases.back();
  REQUIRE(hack.status == CaseStatus::kRewardHack);
  REQUIRE(hack.timing);
  hack.timing->samples_ms.at(3) = 0.0;  // the call launched nothing: its CUPTI span is empty
  hack.timing->stats = compute_statistics(hack.timing->samples_ms);
  const json document = to_json(run);
  REQUIRE_NOTHROW(validate_results_json(document));
  test::require_same_run(run, run_record_from_json(json::parse(document.dump())));

  json all_zero = document;
  for (json& sample : all_zero["cases"].back()["timing"]["samples_ms"]) sample = 0.0;
  for (auto& [key, value] : all_zero["cases"].back()["timing"]["stats"].items()) {
    if (key != "count") value = 0.0;  // the statistics of zeros
  }
  REQUIRE_NOTHROW(validate_results_json(all_zero));
  json passed_zero = document;
  passed_zero["cases"][0]["timing"]["stats"]["median"] = 0.0;
  require_invalid(passed_zero, "cases[0].timing.stats.median: is 0: a PASSED case's median latency is positive");
  json negative = document;
  negative["cases"].back()["timing"]["samples_ms"][3] = -0.5;
  require_invalid(negative, "sample 3 is -0.5: a latency is a finite, non-negative number of milliseconds");
}

TEST_CASE("validation checks the summary against the cases", "[report][json][validation]") {
  json document = seeded_document();
  const int passed = document["summary"]["passed"].get<int>();
  SECTION("passed count") {
    document["summary"]["passed"] = passed + 1;
    require_invalid(document, "summary.passed: is " + std::to_string(passed + 1) + " but the cases array holds " +
                                  std::to_string(passed) + " PASSED cases");
  }
  SECTION("case count after a case was dropped") {
    document["cases"].erase(document["cases"].size() - 1);
    require_invalid(document, "summary.cases: is 6 but the cases array holds 5 cases");
  }
  SECTION("a summary-less document (a partial header) is valid") {
    document["summary"] = nullptr;
    REQUIRE_NOTHROW(validate_results_json(document));
  }
}

TEST_CASE("validation reads a file as a whole: samples against statistics, repeats, impossible values",
          "[report][json][validation]") {
  json document = seeded_document();
  json& timing = document["cases"][0]["timing"];
  SECTION("a median its samples do not give (issue 24: 123 ms over samples of 0.86 ms compared as 'same')") {
    timing["stats"]["median"] = 123.0;
    require_invalid(document, "cases[0].timing.stats.median: is 123 but the");
    require_invalid(document, "samples of samples_ms give");
  }
  SECTION("any other statistic that disagrees") {
    timing["stats"]["p90"] = timing["stats"]["p90"].get<double>() * 1.01;
    require_invalid(document, "cases[0].timing.stats.p90: is ");
  }
  SECTION("an impossible latency: longer than a day") {
    for (json& sample : timing["samples_ms"]) sample = 1e300;
    require_invalid(document, "cases[0].timing.samples_ms: sample 0 is 1e+300 ms, more than the 8.64e+07 ms (one day, "
                              "the longest --case-timeout) any call can take: an impossible latency");
  }
  SECTION("an impossible latency among the event samples") {
    timing["event_samples_ms"][1] = -2.0;
    require_invalid(document, "cases[0].timing.event_samples_ms: sample 1 is -2: a latency is a finite");
  }
  SECTION("a case listed twice (issue 24: counted twice by compare and merge)") {
    document["cases"].push_back(document["cases"][2]);
    document["summary"]["cases"] = document["cases"].size();
    require_invalid(document, "cases[6]: ");
    require_invalid(document, "is listed twice (cases[2] and cases[6])");
  }
}

TEST_CASE("a partial file or a JSONL file given as a results file says what it is", "[report][json]") {
  testing::ScratchFolder folder;
  const auto partial = folder.write("run.json.partial.jsonl", seeded_document().dump() + "\n");
  require_input_error([&] { read_results_file(partial); },
                      partial.string() + ": a partial file (what a run that did not finish leaves, one JSON value per "
                                         "line), not a results file: make one of it first with vlbench merge " +
                          partial.string() + " -o RESULTS.json");
  const auto jsonl = folder.write("traces.jsonl", "{\"a\": 1}\n{\"a\": 2}\n");
  require_input_error([&] { read_results_file(jsonl); }, "line 2, column 1: another value follows the end of the "
                                                          "document");
}

TEST_CASE("read_results_file names the file in its errors", "[report][json]") {
  testing::ScratchFolder folder;
  const auto path = folder.path() / "broken.json";
  SECTION("not JSON") {
    std::ofstream(path) << "{\"schema\": \"vlbench-results\", ";
    require_input_error([&] { read_results_file(path); }, path.string() + ": not valid JSON");
  }
  SECTION("a schema error") {
    json document = seeded_document();
    document["cases"][0]["timing"]["stats"]["median"] = true;
    std::ofstream(path) << document.dump(2);
    require_input_error([&] { read_results_file(path); },
                        path.string() + ": cases[0].timing.stats.median: must be a number");
  }
  SECTION("a missing file") {
    require_input_error([&] { read_results_file(folder.path() / "absent.json"); }, "cannot read results file");
  }
}

TEST_CASE("a C++ package that did not build reads back as COMPILE_ERROR, a failure of its case", "[report][json]") {
  RunRecord run = test::make_seeded_run(2718);
  CaseResult& broken = run.cases.front();
  const int failed_before = run.summary->failed + (is_failure(broken.status) ? -1 : 0);
  broken.status = CaseStatus::kCompileError;
  broken.reason = "my_kernel did not build (exited with code 1); the compiler's last lines: error: no kernel yet";
  broken.correctness.clear();
  broken.timing.reset();
  broken.sol_fraction.reset();
  broken.score.reset();
  broken.load_s.reset();
  broken.first_call_ms.reset();
  run.summary = summarize(run.cases, run.summary->wall_time_s);
  const json document = to_json(run);
  REQUIRE(document.at("cases").at(0).at("status") == "COMPILE_ERROR");
  REQUIRE_NOTHROW(validate_results_json(document));
  const RunRecord read = run_record_from_json(document);
  CHECK(read.cases.front().status == CaseStatus::kCompileError);
  CHECK(read.summary->failed == failed_before + 1);  // it counts as a failure
  CHECK(to_json(read) == document);
}

}  // namespace
}  // namespace vlb
