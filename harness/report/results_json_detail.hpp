#pragma once
// Reading a results document shared by the file reader, the validator and the partial-file reader. Internal.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>

#include "harness/core/json_value.hpp"
#include "harness/report/results.hpp"

namespace vlb::report_detail {

// How messages name a document that did not come from a file.
inline constexpr std::string_view kUnnamedDocument = "results JSON";

// Typed reading by the field lists of results_schema.hpp: every key present with its type (else InputError naming
// the JSON path); for a whole document the schema name and version are checked first.
RunRecord read_run_record(const JsonValue& root);
CaseResult read_case_result(const JsonValue& node);
// The document's schema version (InputError for another schema or a version this vlbench does not read), and what a
// case of an earlier `version` lacks, added empty (a partial file's case lines).
std::int64_t schema_version_of(const JsonValue& root);
void add_later_case_fields(JsonDocument& result, std::int64_t version);

// The cross-field rules over an already typed record (docs/results-schema.md, "Validation rules"); the JsonValue is
// what the record was read from, used to name paths in messages.
void check_case_rules(const CaseResult& result, const JsonValue& node);
void check_run_rules(const RunRecord& run, const JsonValue& root);

// No call can take longer than the longest --case-timeout (86400 s): a latency beyond it is impossible.
inline constexpr double kMaxLatencyMs = 86400.0 * 1000.0;

// Each (solution, case) once per document: a suite case by solution and uuid, a custom case by solution and shape.
// `where` names the place in messages ("cases[3]", "line 5").
class UniqueCases {
 public:
  void check(const CaseResult& result, const JsonValue& node, const std::string& where);

 private:
  using Key = std::tuple<std::string, std::string, std::int64_t, std::int64_t, std::int64_t>;
  std::map<Key, std::string> first_seen_;
};

}  // namespace vlb::report_detail
