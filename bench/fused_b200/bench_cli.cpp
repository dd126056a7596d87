#include "bench/fused_b200/bench_cli.hpp"

#include <cstdio>
#include <exception>

#include "harness/core/errors.hpp"
#include "harness/suite/suite.hpp"

namespace vlb::fused_b200::bench {

void add_common_options(CLI::App& app, CommonOptions& options) {
  options.workloads_dir = default_workloads_dir().string();
  app.add_option("--workloads", options.workloads_dir, "folder holding definition.json, workloads.jsonl, gpus.json");
  app.add_option("--json", options.json_path, "write the results to this JSON file");
  app.add_option("--seed", options.seed, "input seed");
  app.add_option("--warmup", options.timer.warmup_iterations, "warm-up iterations")->check(CLI::PositiveNumber);
  app.add_option("--iterations", options.timer.timed_iterations, "timed iterations")->check(CLI::PositiveNumber);
}

int run_reporting_errors(const std::function<int()>& body) {
  try {
    return body();
  } catch (const Error& error) {
    std::fprintf(stderr, "error: %s (%s)\n", error.message().c_str(), describe_location(error.where()).c_str());
    return static_cast<int>(error.exit_code());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return static_cast<int>(ExitCode::kSystemError);
  }
}

}  // namespace vlb::fused_b200::bench
