#pragma once
// Speed of light as the leaderboard computes it (docs/operation.md): tensor-core MACs and the bytes of every input and output
// once; T_SOL = max(compute, memory) for a GPU spec; SOL% = T_SOL / latency; score S = 1 / (1 + (T - T_SOL)/(T_b - T_SOL)).
#include <optional>
#include <string>
#include <vector>

#include "harness/core/problem.hpp"

namespace vlb {

struct WorkCount {
  double macs = 0;   // 2*B*Lq*4096*4096 + 2*B*Lv*4096*1024 + 2*B*32*Lq*Lv*128
  double flops = 0;  // 2 * macs
  double bytes = 0;  // every input and the output, once
};
WorkCount count_work(const ProblemShape& shape);

struct GpuSpec {
  std::string key;                 // "B200", "H200_SXM", ...
  std::vector<std::string> match;  // substrings of the CUDA device name that select this spec
  double dense_bf16_flops_per_s = 0;
  double memory_bytes_per_s = 0;
  double fixed_overhead_ms = 0;    // added to T_SOL (the leaderboard's B200 values carry ~0.0004 ms)
  std::string source;              // where the numbers come from
};

struct SolEstimate {
  double compute_ms = 0, memory_ms = 0, t_sol_ms = 0;
  bool compute_bound = true;
};
SolEstimate speed_of_light(const WorkCount& work, const GpuSpec& gpu);

double sol_fraction(double t_sol_ms, double latency_ms);  // T_SOL / latency
// The leaderboard score; nullopt when T_b <= T_SOL (undefined).
std::optional<double> leaderboard_score(double latency_ms, double t_sol_ms, double baseline_ms);
// A latency below T_SOL cannot be real (beyond a small measurement slack).
bool implausibly_fast(double latency_ms, double t_sol_ms);

// workloads/gpus.json: the table of GPU specs. Throws InputError naming file and field.
std::vector<GpuSpec> load_gpu_specs(const std::string& path);
// The spec whose `match` names the device, or the one keyed `override_key` when given; throws UsageError otherwise.
const GpuSpec& select_gpu_spec(const std::vector<GpuSpec>& specs, const std::string& device_name,
                               const std::optional<std::string>& override_key);

}  // namespace vlb
