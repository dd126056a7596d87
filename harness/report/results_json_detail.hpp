#pragma once
// Pieces of the results JSON shared by the converter, the validator and the partial-file reader. Internal.
#include <string_view>

#include "harness/report/json_node.hpp"
#include "harness/report/results.hpp"

namespace vlb::report_detail {

inline constexpr std::string_view kResultsSchemaName = "vlbench-results";
// How messages name a document that did not come from a file.
inline constexpr std::string_view kUnnamedDocument = "results JSON";

// Typed reading: every required key present with the right type (else InputError naming the JSON path), the schema
// name and version checked, statuses and timer names parsed by name.
RunRecord run_record_from_node(const JsonNode& root);
CaseResult case_result_from_node(const JsonNode& node);

// The cross-field rules over an already typed record (see docs/results-schema.md, "Validation rules"); `root` is the
// document it was read from, used only to name paths in messages.
void check_case_rules(const CaseResult& result, const JsonNode& node);
void check_run_rules(const RunRecord& run, const JsonNode& root);

}  // namespace vlb::report_detail
