#include "harness/export/traces.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "harness/core/errors.hpp"
#include "harness/core/json_value.hpp"
#include "harness/core/output_file.hpp"
#include "harness/core/problem.hpp"
#include "harness/report/results_json.hpp"

namespace vlb {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The input descriptors of the official workloads (workloads/workloads.jsonl): every input is "custom", made by the
// definition's custom_inputs_entrypoint (SOL-ExecBench: when any input is custom, all are).
json workload_inputs() {
  json inputs = json::object();
  for (int i = 0; i < kNumInputs; ++i) inputs[std::string(tensor_name(static_cast<TensorId>(i)))] = {{"type", "custom"}};
  return inputs;
}

// The rule that was applied, in SOL-ExecBench's keys (without it the evaluator would assume atol = rtol = 0.01).
json tolerance_json(const Tolerance& tolerance) {
  return {{"max_atol", tolerance.atol},
          {"max_rtol", tolerance.rtol},
          {"required_matched_ratio", tolerance.required_match_ratio}};
}

json workload_json(const CaseResult& result) {
  return {{"uuid", result.uuid},
          {"axes",
           {{"batch_size", result.shape.batch},
            {"lang_seq_len", result.shape.lang_seq},
            {"vision_seq_len", result.shape.vision_seq}}},
          {"inputs", workload_inputs()},
          {"tolerance", tolerance_json(result.tolerance)}};
}

std::string describe_case(const CaseResult& result) {
  return "case " + std::to_string(result.case_index) + " (solution '" + result.solution + "', workload " +
         result.uuid + ")";
}

// The worst figures over every correctness round (the final timed output included). As SOL-ExecBench writes it: a
// NaN or Inf in any output sets has_nan (or has_inf, when there is no NaN) and the error figures are 0.
json correctness_json(const CaseResult& result) {
  if (result.correctness.empty()) {
    throw InputError(describe_case(result) + " is " + std::string(status_name(result.status)) +
                     " but records no correctness round, so its trace cannot carry the correctness that "
                     "SOL-ExecBench requires for that status");
  }
  // A NaN figure (unknown) must win over any number, which std::max would not guarantee.
  const auto worst = [](double current, double next) { return std::isnan(next) || next > current ? next : current; };
  double max_abs = 0, max_rel = 0, min_matched_ratio = 1;
  bool has_nan = false, has_inf = false;
  for (const CorrectnessRound& round : result.correctness) {
    const ComparisonStats& stats = round.stats;
    max_abs = worst(max_abs, stats.max_abs_error);
    max_rel = worst(max_rel, stats.max_rel_error);
    min_matched_ratio = -worst(-min_matched_ratio, -stats.matched_ratio);
    has_nan = has_nan || stats.nan_count > 0;
    has_inf = has_inf || stats.inf_count > 0;
  }
  const bool finite = !has_nan && !has_inf && std::isfinite(max_abs) && std::isfinite(max_rel);
  return {{"max_relative_error", finite ? max_rel : 0.0},
          {"max_absolute_error", finite ? max_abs : 0.0},
          {"has_nan", has_nan},
          {"has_inf", has_inf && !has_nan},
          {"extra", {{"min_matched_ratio", min_matched_ratio}, {"rounds", result.correctness.size()}}}};
}

// uuid -> median latency of the `reference` solution's timed, passed cases.
std::map<std::string, double> reference_latencies(const RunRecord* run) {
  std::map<std::string, double> latencies;
  if (run == nullptr) return latencies;
  for (const CaseResult& result : run->cases) {
    if (result.solution != kReferenceSolutionName || result.uuid.empty()) continue;
    if (result.status != CaseStatus::kPassed || !result.timing) continue;
    latencies.emplace(result.uuid, result.timing->stats.median);
  }
  return latencies;
}

json performance_json(double latency_ms, const std::optional<double>& reference_ms) {
  json performance = {{"latency_ms", latency_ms}};
  if (reference_ms && latency_ms > 0) {
    performance["reference_latency_ms"] = *reference_ms;
    performance["speedup_factor"] = *reference_ms / latency_ms;
  }
  return performance;
}

// "NVIDIA H200" -> "NVIDIA_H200", SOL-ExecBench's spelling of hardware names.
std::string hardware_name(const EnvironmentRecord& environment) {
  std::string name = !environment.gpu_name.empty() ? environment.gpu_name : environment.gpu_spec_key;
  if (name.empty()) return "unknown";
  std::replace(name.begin(), name.end(), ' ', '_');
  return name;
}

// CUDA's integer version (13000) as "13.0".
std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

// Library versions as strings only (the schema types libs as string -> string): unknown ones are left out.
json environment_json(const EnvironmentRecord& environment) {
  json libs = json::object();
  const auto add = [&](const char* key, const std::string& value) {
    if (!value.empty()) libs[key] = value;
  };
  add("cuda", environment.cuda_toolkit_version);
  if (environment.runtime_version > 0) add("cuda_runtime", cuda_version_text(environment.runtime_version));
  if (environment.driver_version > 0) add("cuda_driver", cuda_version_text(environment.driver_version));
  add("cublas", environment.cublas_version);
  add("cutlass", environment.cutlass_version);
  return {{"hardware", hardware_name(environment)}, {"libs", libs}};
}

bool has_trace(const CaseResult& result) {
  if (result.uuid.empty() || result.status == CaseStatus::kSkipped) return false;
  // PASSED needs performance; a correctness-only run has none to give.
  return result.status != CaseStatus::kPassed || result.timing.has_value();
}

json evaluation_json(const CaseResult& result, const RunRecord& run,
                     const std::map<std::string, double>& preferred_references,
                     const std::map<std::string, double>& fallback_references) {
  json evaluation = {{"status", std::string(status_name(result.status))},
                     {"log", result.reason},
                     {"correctness", nullptr},
                     {"performance", nullptr},
                     {"environment", environment_json(run.environment)},
                     {"timestamp", run.timestamp.empty() ? std::string("unknown") : run.timestamp}};
  if (result.status == CaseStatus::kPassed || result.status == CaseStatus::kIncorrectNumerical) {
    evaluation["correctness"] = correctness_json(result);
  }
  if (result.status == CaseStatus::kPassed) {
    std::optional<double> reference_ms;
    if (const auto found = preferred_references.find(result.uuid); found != preferred_references.end()) {
      reference_ms = found->second;
    } else if (const auto fallback = fallback_references.find(result.uuid); fallback != fallback_references.end()) {
      reference_ms = fallback->second;
    }
    evaluation["performance"] = performance_json(result.timing->stats.median, reference_ms);
  }
  return evaluation;
}

}  // namespace

std::vector<json> make_traces(const RunRecord& run, const RunRecord* reference_run) {
  const std::map<std::string, double> preferred = reference_latencies(reference_run);
  const std::map<std::string, double> fallback = reference_latencies(&run);
  std::vector<json> traces;
  for (const CaseResult& result : run.cases) {
    if (!has_trace(result)) continue;
    traces.push_back({{"definition", std::string(kDefinitionName)},
                      {"solution", result.solution},
                      {"workload", workload_json(result)},
                      {"evaluation", evaluation_json(result, run, preferred, fallback)}});
  }
  return traces;
}

std::string traces_error_prefix(const fs::path& path) { return "cannot write traces to " + path.string() + ": "; }

std::optional<fs::path> write_traces_jsonl(const fs::path& path, const std::vector<json>& traces) {
  std::string text;
  for (const json& trace : traces) text += dump_json(trace) + '\n';
  return write_output_file(path, text, traces_error_prefix(path));
}

namespace {

// --reference must be what it says: results of the `reference` solution, on the GPU model the results ran on
// (a speedup over a reference timed on another GPU means nothing).
void check_reference_run(const RunRecord& run, const RunRecord& reference, const ExportRequest& request) {
  const std::string file = request.reference_path->string();
  if (reference_latencies(&reference).empty()) {
    throw InputError(file + ": --reference holds no timed, PASSED case of solution '" +
                     std::string(kReferenceSolutionName) + "', so no trace would get a reference latency: give the " +
                     "results file of a run of --solution reference");
  }
  const auto model = [](const RunRecord& r) {
    return r.environment.gpu_name + " (sm_" + std::to_string(r.environment.compute_capability) + ")";
  };
  if (model(run) != model(reference)) {
    throw InputError(file + ": --reference ran on " + model(reference) + ", " + request.results_path.string() +
                     " on " + model(run) + ": a speedup over a reference timed on another GPU model means nothing");
  }
}

}  // namespace

ExportedTraces export_traces(const ExportRequest& request) {
  const std::string prefix = traces_error_prefix(request.output_path);
  std::vector<NamedInput> inputs = {{"the results file it exports", request.results_path}};
  if (request.reference_path) inputs.push_back({"the --reference results file", *request.reference_path});
  refuse_output_over_input(request.output_path, inputs, prefix);
  check_output_file(request.output_path, prefix);  // before reading: an unwritable path fails first

  const RunRecord run = read_results_file(request.results_path);
  std::optional<RunRecord> reference;
  if (request.reference_path) {
    reference = read_results_file(*request.reference_path);
    check_reference_run(run, *reference, request);
  }
  const std::vector<json> traces = make_traces(run, reference ? &*reference : nullptr);
  if (traces.empty()) {
    throw InputError(request.results_path.string() + ": none of its " + std::to_string(run.cases.size()) +
                     " case(s) gives a trace (SKIPPED, custom shapes and PASSED cases without timing give none), so "
                     "there is nothing to export");
  }
  ExportedTraces exported{traces.size(), run.cases.size() - traces.size(), std::nullopt};
  exported.kept = write_traces_jsonl(request.output_path, traces);
  return exported;
}

}  // namespace vlb
