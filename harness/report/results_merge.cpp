#include "harness/report/results_merge.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

#include "harness/core/errors.hpp"
#include "harness/core/json_value.hpp"
#include "harness/report/partial_results.hpp"
#include "harness/report/results_json.hpp"
#include "harness/report/results_schema.hpp"
#include "harness/report/text_format.hpp"

namespace vlb {
namespace {

// What must be equal for results to compare, each as text for the message.
struct Agreement {
  std::string_view what;
  std::function<std::string(const RunRecord&)> value;
};

std::string quoted(const std::string& text) { return "\"" + text + "\""; }

const std::vector<Agreement>& agreements() {
  static const std::vector<Agreement> list = {
      {"suite", [](const RunRecord& r) { return quoted(r.settings.suite); }},
      {"harness", [](const RunRecord& r) { return fmt::format("{} (commit {})", r.harness_version, r.git_commit); }},
      {"GPU model",
       [](const RunRecord& r) {
         return fmt::format("{} (sm_{})", quoted(r.environment.gpu_name), r.environment.compute_capability);
       }},
      {"speed-of-light spec", [](const RunRecord& r) { return quoted(r.environment.gpu_spec_key); }},
      {"baseline", [](const RunRecord& r) { return quoted(r.settings.baseline_source); }},
      {"timing settings", [](const RunRecord& r) { return dump_json(write_json(r.settings.timing)); }},
      {"seed", [](const RunRecord& r) { return std::to_string(r.settings.seed); }},
      {"correctness rounds", [](const RunRecord& r) { return std::to_string(r.settings.correctness_rounds); }},
      {"isolation", [](const RunRecord& r) { return r.settings.isolation ? "on" : "off (--no-isolation)"; }},
  };
  return list;
}

std::vector<std::string> differences(const std::vector<NamedRun>& runs) {
  std::vector<std::string> found;
  for (std::size_t i = 1; i < runs.size(); ++i) {
    for (const Agreement& agreement : agreements()) {
      const std::string first = agreement.value(runs.front().run), other = agreement.value(runs[i].run);
      if (first != other) {
        found.push_back(fmt::format("{} differs from {} in its {}: {} vs {}", runs[i].name, runs.front().name,
                                    agreement.what, other, first));
      }
    }
  }
  return found;
}

// One (solution, case): a suite case by its index and uuid, a custom case by its shape.
using CaseKey = std::tuple<std::string, int, std::string, std::int64_t, std::int64_t, std::int64_t>;

CaseKey key_of(const CaseResult& result) {
  return {result.solution, result.case_index, result.uuid,
          result.shape.batch, result.shape.lang_seq, result.shape.vision_seq};
}

struct SourcedCase {
  CaseResult result;
  std::size_t run = 0;  // index into the runs
};

// Every run's cases; a (solution, case) that an earlier run holds too is a conflict (with `force`: the later wins).
std::vector<SourcedCase> gather_cases(const std::vector<NamedRun>& runs, bool force, std::vector<std::string>& notes) {
  std::vector<SourcedCase> cases;
  std::map<CaseKey, std::size_t> first_run_of;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    for (const CaseResult& result : runs[r].run.cases) {
      const CaseKey key = key_of(result);
      std::size_t& holder = first_run_of.try_emplace(key, r).first->second;
      if (holder != r) {
        notes.push_back(fmt::format("{} of solution '{}' is in both {} and {}{}", report_detail::case_label(result),
                                    result.solution, runs[holder].name, runs[r].name,
                                    force ? " (the later file's result is kept)" : ""));
        if (force) {
          const std::size_t earlier = holder;
          std::erase_if(cases, [&](const SourcedCase& c) { return c.run == earlier && key_of(c.result) == key; });
          holder = r;
        }
      }
      cases.push_back({result, r});
    }
  }
  return cases;
}

template <class Values, class Value>
void append_new(Values& into, const Value& value) {
  if (std::find(into.begin(), into.end(), value) == into.end()) into.push_back(value);
}

// The distinct values, in order of first appearance, joined by commas: "h200-a,h200-b".
std::string distinct_joined(const std::vector<NamedRun>& runs, std::string EnvironmentRecord::*field) {
  std::vector<std::string> values;
  for (const NamedRun& named : runs) append_new(values, named.run.environment.*field);
  return fmt::format("{}", fmt::join(values, ","));
}

// Solutions in order of first appearance; within one, suite cases by index, then custom cases in the order read.
void sort_cases(std::vector<CaseResult>& cases, const std::vector<std::string>& solutions) {
  const auto rank = [&](const CaseResult& c) {
    const auto where = std::find(solutions.begin(), solutions.end(), c.solution) - solutions.begin();
    return std::tuple{where, c.case_index < 0, c.case_index};
  };
  std::stable_sort(cases.begin(), cases.end(), [&](const CaseResult& a, const CaseResult& b) { return rank(a) < rank(b); });
}

double run_wall_time_s(const RunRecord& run) {
  if (run.summary) return run.summary->wall_time_s;
  double total = 0;  // a partial file: no summary yet
  for (const CaseResult& result : run.cases) total += result.wall_time_s;
  return total;
}

RunRecord combine(const std::vector<NamedRun>& runs, std::vector<SourcedCase> cases) {
  RunRecord merged = runs.front().run;
  merged.argv.clear();
  merged.cases.clear();
  double wall_time_s = 0;
  for (const NamedRun& named : runs) {
    const RunRecord& run = named.run;
    merged.git_dirty = merged.git_dirty || run.git_dirty;
    merged.timestamp = std::min(merged.timestamp, run.timestamp);  // ISO 8601 UTC: text order is time order
    for (const std::string& solution : run.settings.solutions) append_new(merged.settings.solutions, solution);
    for (const std::string& selector : run.settings.case_selectors) append_new(merged.settings.case_selectors, selector);
    wall_time_s += run_wall_time_s(run);
  }
  merged.environment.hostname = distinct_joined(runs, &EnvironmentRecord::hostname);
  merged.environment.gpu_uuid = distinct_joined(runs, &EnvironmentRecord::gpu_uuid);
  for (SourcedCase& sourced : cases) merged.cases.push_back(std::move(sourced.result));
  sort_cases(merged.cases, merged.settings.solutions);
  merged.summary = summarize(merged.cases, wall_time_s);
  return merged;
}

}  // namespace

MergedRun merge_runs(const std::vector<NamedRun>& runs, bool force) {
  if (runs.empty()) throw UsageError("merge needs at least one results file");
  std::vector<std::string> problems = differences(runs);
  std::vector<SourcedCase> cases = gather_cases(runs, force, problems);
  if (!problems.empty() && !force) {
    throw InputError(fmt::format("cannot merge: {}; their results do not add up to one run (pass --force to merge "
                                 "them anyway)",
                                 fmt::join(problems, "; ")));
  }
  return {combine(runs, std::move(cases)), force ? problems : std::vector<std::string>{}};
}

RunRecord read_results_or_partial(const std::filesystem::path& path) {
  if (is_partial_results_path(path)) return read_partial_results(path);
  return read_results_file(path);
}

}  // namespace vlb
