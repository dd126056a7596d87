#include "harness/cli/dry_run_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/cli/kept_files.hpp"
#include "harness/core/printable_text.hpp"
#include "harness/scaleout/case_shards.hpp"
#include "harness/plan/extension_build.hpp"
#include "harness/plan/plan_check.hpp"
#include "harness/plan/solution_catalog.hpp"
#include "harness/sol/speed_of_light.hpp"

namespace vlb::cli {

namespace {

std::string correctness_text(const RunPlan& plan) {
  const int rounds = plan.correctness.rounds;
  std::string text = fmt::format("{} round(s), seeds {}..{}", rounds, plan.seed, plan.seed + rounds - 1);
  if (plan.correctness.forced_positions) {
    return text + fmt::format(", {} positions", position_pattern_name(*plan.correctness.forced_positions));
  }
  return text + (rounds > 1 ? ", the last with random positions" : "");
}

std::string timing_text(const RunPlan& plan) {
  if (!plan.time_cases) return "none (--check-only)";
  const TimingSettings& timing = plan.timing;
  std::string calls = timing.adaptive ? fmt::format("adaptive, {} to {} samples, noise target {}",
                                                    timing.adaptive->min_samples, timing.adaptive->max_samples,
                                                    timing.adaptive->target_relative_noise)
                                      : fmt::format("{} timed calls", timing.timed_iterations);
  return fmt::format("{} warm-up + {}, {} timer, L2 {}", timing.warmup_iterations, calls,
                     timing.timer == TimerKind::kCupti ? "CUPTI" : "events",
                     timing.flush_l2 ? "flushed" : "not flushed");
}

// What a run does first for a C++ package, and where its build is kept.
std::string build_plan_text(const CatalogEntry& entry) {
  try {
    return fmt::format("{} is built as a torch extension before its first case, or found built in {}",
                       entry.info.name, extension_cache_root().string());
  } catch (const BuildFailure& failure) {
    return fmt::format("{} cannot be built here: {}", entry.info.name, failure.what());
  }
}

}  // namespace

int run_dry_run_command(const RunPlan& plan, std::FILE* out) {
  const CheckedPlan checked = check_plan(plan);
  fmt::print(out, "Dry run: every input was checked; nothing ran and no GPU was used.\n");
  // Names from files and the command line are printed safe for a terminal.
  fmt::print(out, "Suite '{}' ({}): {} case(s) x {} solution(s)\n", printable_text(checked.suite.name),
             printable_text(checked.suite.workloads_path.string()), checked.cases.size(), plan.solutions.size());
  for (const std::string& argument : plan.solutions) {
    const CatalogEntry& entry = SolutionCatalog::instance().at(argument);
    const bool builds = entry.builds_extension();
    const std::string solution = printable_text(
        entry.is_python_package()
            ? fmt::format("{} ({} package {})", entry.info.name, builds ? "C++" : "Python", entry.source_file)
            : entry.info.name);
    if (builds) fmt::print(out, "  {}\n", printable_text(build_plan_text(entry)));
    for (const Case& test_case : checked.cases) {
      // A custom case's label is its shape already.
      const std::string shape = test_case.workload != nullptr ? " " + describe(test_case.shape) : "";
      fmt::print(out, "  would run {:<14} {}{}  atol {}\n", solution, printable_text(test_case.label()), shape,
                 test_case.tolerance.atol);
    }
  }
  fmt::print(out, "Correctness: {}\n", correctness_text(plan));
  fmt::print(out, "Timing: {}\n", timing_text(plan));
  fmt::print(out, "GPU spec: {}\n",
             checked.gpu_spec ? checked.gpu_spec->key + " (--gpu-spec)" : "chosen from the GPU's name when it runs");
  fmt::print(out, "Baseline: {} ({} table(s) read)\n",
             checked.baselines ? checked.baselines->source
                               : std::string(plan.baseline_path ? "" : "chosen for the GPU spec when it runs"),
             checked.baseline_files.size());
  if (checked.file_inputs > 0) fmt::print(out, "Inputs from files: {} checked\n", checked.file_inputs);
  fmt::print(out, "Results: {}\n",
             plan.json_path ? printable_text(plan.json_path->string()) : "none (--json PATH writes them)");
  if (plan.json_path) {
    for (const std::string& line : describe_earlier_files(earlier_results_files(*plan.json_path))) {
      fmt::print(out, "  {}\n", line);
    }
  }
  if (plan.dump_dir) fmt::print(out, "Dumps: {}\n", printable_text(plan.dump_dir->string()));
  fmt::print(out, "Isolation: {}\n", plan.isolation ? "a worker process per (solution, case)" : "off (--no-isolation)");
  for (const ShardSpec& shard : plan.shards) {
    fmt::print(out, "Shard: {} of the selected cases (the cases above are that share)\n", shard_text(shard));
  }
  if (plan.devices) {
    const std::string gpus = plan.devices->all ? std::string("all of this host's")
                                               : fmt::format("{}", fmt::join(plan.devices->ordinals, ","));
    fmt::print(out, "GPUs: {} (one device worker each; the ordinals are checked against the host when it runs)\n",
               gpus);
  }
  return 0;
}

}  // namespace vlb::cli
