#pragma once
// What one vlbench invocation should do, as plain data: the CLI fills it, the runner executes it.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/inputs/generator.hpp"
#include "harness/timing/measurement.hpp"

namespace vlb {

struct CorrectnessPlan {
  // Rounds with fresh seeds (seed, seed+1, ...); the last uses random positions unless there is only one round
  // and positions are official. With forced_positions set, every round uses that pattern.
  int rounds = 3;
  std::optional<PositionPattern> forced_positions;
  std::optional<double> max_abs_error_cap;
  bool operator==(const CorrectnessPlan&) const = default;
};

// One of `count` disjoint shares of the selected cases (--shard index/count, 0-based): runner/case_shards.hpp.
struct ShardSpec {
  int index = 0;
  int count = 1;
  bool operator==(const ShardSpec&) const = default;
};

// --devices: `all` GPUs of this host, or the listed ordinals; one device worker process per GPU.
struct DeviceList {
  bool all = false;
  std::vector<int> ordinals;  // when not `all`: distinct, in the order given
  bool operator==(const DeviceList&) const = default;
};

struct RunPlan {
  std::string suite = "all";
  std::filesystem::path workloads_dir;
  std::vector<std::string> solutions;
  std::vector<std::string> case_selectors;
  double custom_case_atol = 0.01;
  std::vector<ShardSpec> shards;  // applied in order to the selected cases (--shard; a device worker's share)
  std::uint64_t seed = 20260;
  CorrectnessPlan correctness;
  bool time_cases = true;
  TimingSettings timing;
  int device = 0;
  std::optional<DeviceList> devices;  // set: several GPUs, one device worker each (`device` is not used)
  std::optional<std::string> gpu_spec_key;
  std::optional<std::filesystem::path> baseline_path;  // default: the published table for the selected GPU spec
  std::optional<std::filesystem::path> json_path;
  std::optional<std::filesystem::path> dump_dir;  // write a safetensors dump of each checked case here
  bool isolation = true;          // each (solution, case) in its own worker process, the reference in this one
  double case_timeout_s = 600;    // per (solution, case), with isolation
  bool nvtx_ranges = false;       // name each call and the judge's work in NVTX ranges (for `vlbench profile`)
  bool verbose = false;           // -v: the per-kernel breakdown of every case after the table
  std::vector<std::string> argv;  // as given, starting with "vlbench"
  bool operator==(const RunPlan&) const = default;
};

}  // namespace vlb
