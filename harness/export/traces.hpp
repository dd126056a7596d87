#pragma once
// SOL-ExecBench / flashinfer-bench traces from a results record: one JSON object per (solution, workload) result, in
// the Trace schema those projects validate (definition, solution, workload, evaluation), written as JSONL.
// docs/leaderboard.md lists how each vlbench status maps to a trace and which fields each status carries.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "harness/report/results.hpp"

namespace vlb {

inline constexpr std::string_view kReferenceSolutionName = "reference";

// One trace per case of `run`, in the run's order. SKIPPED cases (never evaluated; SOL-ExecBench has no such status)
// and custom-shape cases (no workload uuid) give no trace. reference_latency_ms comes from the `reference` solution's
// case with the same uuid, looked up first in `reference_run` (when given), then in `run` itself; when there is none,
// the performance object leaves reference_latency_ms and speedup_factor out (SOL-ExecBench's schema types them as
// non-negative numbers with default 0, so null would not validate).
std::vector<nlohmann::json> make_traces(const RunRecord& run, const RunRecord* reference_run);

// Writes one compact JSON object per line, atomically (temporary file in the same folder, then rename); an existing
// file at PATH is kept as PATH.~N~ (core/output_file.hpp), whose path is returned. Throws UsageError when PATH cannot
// be written, SystemError when writing fails.
std::optional<std::filesystem::path> write_traces_jsonl(const std::filesystem::path& path,
                                                        const std::vector<nlohmann::json>& traces);

// `vlbench export RESULTS.json [--reference REF.json] -o traces.jsonl`.
struct ExportRequest {
  std::filesystem::path results_path;
  std::optional<std::filesystem::path> reference_path;
  std::filesystem::path output_path;
};
struct ExportedTraces {
  std::size_t written = 0;   // lines in the traces file
  std::size_t left_out = 0;  // cases without a trace (SKIPPED, custom shapes, PASSED without timing)
  std::optional<std::filesystem::path> kept;  // where the file that was at the output path is kept
};
// Reads the results (and reference) files and writes the traces. Throws UsageError for an output path that is one of
// the inputs or cannot be written (checked before anything is read), InputError for a bad results file, a --reference
// file without reference cases or from another GPU model, and a results file that gives no trace.
ExportedTraces export_traces(const ExportRequest& request);

}  // namespace vlb
