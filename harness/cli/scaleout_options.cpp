#include "harness/cli/scaleout_options.hpp"

#include <CLI/CLI.hpp>

#include "harness/core/errors.hpp"
#include "harness/scaleout/case_shards.hpp"
#include "harness/scaleout/device_list.hpp"

namespace vlb::cli {

namespace {
constexpr const char* kMergeCommand = "merge";
}  // namespace

void add_scaleout_options(CLI::App& app, ScaleoutOptions& options) {
  app.add_option("--devices", options.devices,
                 "Run on several GPUs of this host: 'all' or ordinals such as 0,2,3; one worker process per GPU, each "
                 "case on one GPU alone, one results file");
  app.add_option("--shard", options.shard,
                 "Run share i of n of the selected cases (i/n, 0-based, shares balanced by work): one task of a job "
                 "array; `vlbench merge` joins the shards' results");
  // Internal: how a --devices run starts the worker of one GPU (the folder holds its serialized plan).
  app.add_option("--device-worker", options.device_worker_folder)->group("");

  CLI::App* merge = app.add_subcommand(kMergeCommand, "Merge results files of separate runs (hosts, shards) into one");
  // Its own examples only (a subcommand inherits the top level's footer); tests/docs runs each line.
  merge->footer("Examples:\n"
                "  vlbench merge shard-0.json shard-1.json -o results/run.json\n"
                "  vlbench merge shard-0.json shard-1.json -o all.json --force");
  merge->add_option("FILES", options.merge_inputs, "Results files (or PATH.partial.jsonl of a run that did not finish)")
      ->required();
  merge->add_option("--output,-o", options.merge_output, "The merged results file to write")->required();
  merge->add_flag("--force", options.merge_force,
                  "Merge even runs of different suites, harness versions, GPU models or settings (saying what differs)");
}

std::optional<Request> scaleout_request(const CLI::App& app, const ScaleoutOptions& options,
                                        const std::vector<std::string>& arguments) {
  Request request;
  if (!options.device_worker_folder.empty()) {
    request.command = Command::kDeviceWorker;
    request.worker_folder = options.device_worker_folder;
    return request;
  }
  if (!app.get_subcommand(kMergeCommand)->parsed()) return std::nullopt;
  request.command = Command::kMerge;
  request.merge.inputs.assign(options.merge_inputs.begin(), options.merge_inputs.end());
  request.merge.output = options.merge_output;
  request.merge.force = options.merge_force;
  request.merge.argv = arguments;
  request.merge.argv.insert(request.merge.argv.begin(), "vlbench");
  return request;
}

void apply_scaleout_options(const CLI::App& app, const ScaleoutOptions& options, RunPlan& plan) {
  if (app.get_option("--shard")->count() > 0) plan.shards.push_back(parse_shard(options.shard));
  if (app.get_option("--devices")->count() == 0) return;
  if (app.get_option("--device")->count() > 0) {
    throw UsageError("--device and --devices exclude each other: give one GPU with --device N, or several with "
                     "--devices");
  }
  plan.devices = parse_device_list(options.devices);
}

}  // namespace vlb::cli
