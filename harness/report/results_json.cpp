// RunRecord <-> JSON through the field lists of results_schema.hpp; the file reader.
#include "harness/report/results_json.hpp"

#include <fmt/format.h>

#include <string>

#include "harness/core/errors.hpp"
#include "harness/core/text_file.hpp"
#include "harness/report/results_json_detail.hpp"
#include "harness/report/results_schema.hpp"

namespace vlb {

void JsonCodec<CaseStatus>::read(const JsonValue& node, CaseStatus& status) {
  read_json_by_name(node, status, parse_status);
}

void JsonCodec<TimerKind>::read(const JsonValue& node, TimerKind& timer) {
  read_json_by_name(node, timer, [](const std::string& name) {
    if (name == "events") return TimerKind::kEvents;
    if (name == "cupti") return TimerKind::kCupti;
    throw InputError("unknown timer '" + name + "' (expected \"events\" or \"cupti\")");
  });
}

nlohmann::json to_json(const RunRecord& run) {
  nlohmann::json document = write_json(run);
  document[std::string(kResultsSchemaKey)] = kResultsSchemaName;
  return document;
}

nlohmann::json to_json(const CaseResult& result) { return write_json(result); }

namespace report_detail {

namespace {

constexpr std::int64_t kFirstSchemaVersion = 1;

std::int64_t check_schema(const JsonValue& root) {
  const JsonValue schema = root.at(kResultsSchemaKey);
  if (schema.as_string() != kResultsSchemaName) {
    schema.fail("expected \"" + std::string(kResultsSchemaName) + "\", found \"" + schema.as_string() + "\"");
  }
  const JsonValue version = root.at(json_key(&RunRecord::schema_version));
  if (version.as_int64() < kFirstSchemaVersion || version.as_int64() > kResultsSchemaVersion) {
    version.fail("unsupported schema version " + std::to_string(version.as_int64()) + " (this vlbench reads versions " +
                 std::to_string(kFirstSchemaVersion) + " to " + std::to_string(kResultsSchemaVersion) + ")");
  }
  return version.as_int64();
}

// What later versions added, empty, in a document of `version`: version 2's sandbox of the environment (the cases'
// fields are add_later_case_fields').
void add_later_fields(JsonDocument& document, std::int64_t version) {
  auto& environment = document[std::string(json_key(&RunRecord::environment))];
  if (version < 2 && environment.is_object()) {
    environment.emplace(std::string(json_key(&EnvironmentRecord::sandbox)), "");
  }
  auto& cases = document[std::string(json_key(&RunRecord::cases))];
  if (!cases.is_array()) return;
  for (auto& each : cases) add_later_case_fields(each, version);
}

}  // namespace

// Version 2 added the outside clock, the judged timed calls and the breakdown to `timing`; version 3 the case's
// load_s and first_call_ms. They read as empty.
void add_later_case_fields(JsonDocument& result, std::int64_t version) {
  if (!result.is_object()) return;
  if (version < 3) {
    result.emplace(std::string(json_key(&CaseResult::load_s)), nullptr);
    result.emplace(std::string(json_key(&CaseResult::first_call_ms)), nullptr);
  }
  auto& timing = result[std::string(json_key(&CaseResult::timing))];
  if (version >= 2 || !timing.is_object()) return;
  timing.emplace(std::string(json_key(&TimingResult::outside_samples_ms)), JsonDocument::array());
  timing.emplace(std::string(json_key(&TimingResult::outside_clock)), nullptr);
  timing.emplace(std::string(json_key(&TimingResult::judged_calls)), JsonDocument::array());
  timing.emplace(std::string(json_key(&TimingResult::breakdown)), nullptr);
}

std::int64_t schema_version_of(const JsonValue& root) { return check_schema(root); }

RunRecord read_run_record(const JsonValue& root) {
  const std::int64_t version = check_schema(root);
  if (version == kResultsSchemaVersion) return read_json<RunRecord>(root);
  JsonDocument upgraded = root.json();
  add_later_fields(upgraded, version);
  RunRecord record = read_json<RunRecord>(JsonValue(upgraded, root.source()));
  record.schema_version = kResultsSchemaVersion;
  return record;
}

CaseResult read_case_result(const JsonValue& node) { return read_json<CaseResult>(node); }

}  // namespace report_detail

RunRecord run_record_from_json(const nlohmann::json& document) {
  const JsonDocument ordered(document);
  return report_detail::read_run_record(JsonValue(ordered, std::string(report_detail::kUnnamedDocument)));
}

void validate_results_json(const nlohmann::json& document) {
  const JsonDocument ordered(document);
  const JsonValue root(ordered, std::string(report_detail::kUnnamedDocument));
  report_detail::check_run_rules(report_detail::read_run_record(root), root);
}

RunRecord read_results_file(const std::filesystem::path& path) {
  if (is_partial_results_path(path)) {
    throw InputError(fmt::format("{}: a partial file (what a run that did not finish leaves, one JSON value per line), "
                                 "not a results file: make one of it first with vlbench merge {} -o RESULTS.json",
                                 path.string(), path.string()));
  }
  const JsonDocument document = parse_json(read_text_file(path, "results file"), path.string());
  const JsonValue root(document, path.string());
  RunRecord run = report_detail::read_run_record(root);
  report_detail::check_run_rules(run, root);
  return run;
}

}  // namespace vlb
