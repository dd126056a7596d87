#pragma once
// What the fused_b200 benchmarks share on the command line: the common options, and running a body with its errors
// mapped to the harness's exit codes (README, "Exit codes").
#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <string>

#include "bench/fused_b200/stage_timer.hpp"

namespace vlb::fused_b200::bench {

struct CommonOptions {
  std::string workloads_dir;
  std::string json_path;
  std::uint64_t seed = 2026;
  TimerSettings timer;
};

// --workloads, --json, --seed, --warmup, --iterations.
void add_common_options(CLI::App& app, CommonOptions& options);

// body()'s return value, or the exit code of what it throws (printed as one line on stderr).
int run_reporting_errors(const std::function<int()>& body);

}  // namespace vlb::fused_b200::bench
