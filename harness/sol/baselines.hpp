#pragma once
// Baseline latencies T_b per workload uuid for one GPU (the published B200 figures, or a file that
// scripts/pytorch_baseline.py wrote for another GPU): the score's denominator and the speedup's reference.
#include <map>
#include <optional>
#include <string>

namespace vlb {

struct BaselineTable {
  std::string gpu_key;  // matches GpuSpec::key
  std::string source;   // "NVIDIA SOL-ExecBench published B200 values", "scripts/pytorch_baseline.py on ...", ...
  std::string method;   // what produced the numbers ("pytorch-eager", "pytorch-sdpa-cudagraph", ...)
  std::map<std::string, double> latency_ms;            // uuid -> T_b
  std::map<std::string, double> published_t_sol_ms;   // uuid -> T_SOL, where the source publishes it
  std::optional<double> latency_for(const std::string& uuid) const;
};

// Throws InputError naming file and field.
BaselineTable load_baselines(const std::string& path);

}  // namespace vlb
