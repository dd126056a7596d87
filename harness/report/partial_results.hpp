#pragma once
// Reading back what a run that did not finish left behind: PATH.partial.jsonl, written by ResultsWriter (see
// results_json.hpp and docs/results-schema.md, "The partial file").
#include <filesystem>

#include "harness/report/results.hpp"

namespace vlb {

// The header line and every case line, each validated; `summary` stays absent. A last line cut short (no final
// newline and not valid JSON: the crash happened mid-write) is dropped. Throws InputError naming file and line.
RunRecord read_partial_results(const std::filesystem::path& partial_path);

}  // namespace vlb
