#pragma once
// The command line of running at scale: --devices (several GPUs of this host), --shard (one task of a job array),
// `vlbench merge`, and the internal --device-worker. Kept apart from command_line.cpp, which calls these.
#include <optional>
#include <string>
#include <vector>

#include "harness/cli/command_line.hpp"

namespace vlb::cli {

struct ScaleoutOptions {
  std::string devices;
  std::string shard;
  std::string device_worker_folder;
  std::vector<std::string> merge_inputs;
  std::string merge_output;
  bool merge_force = false;
};

void add_scaleout_options(CLI::App& app, ScaleoutOptions& options);

// The request when the command line asked for `merge` or a device worker; nullopt otherwise. `arguments` as given
// (without the program name), recorded in a merged file.
std::optional<Request> scaleout_request(const CLI::App& app, const ScaleoutOptions& options,
                                        const std::vector<std::string>& arguments);

// --devices and --shard into the plan. Throws UsageError for bad values, or --device together with --devices.
void apply_scaleout_options(const CLI::App& app, const ScaleoutOptions& options, RunPlan& plan);

}  // namespace vlb::cli
