#pragma once
// The stage shapes of a suite: every distinct B*Lq (Q and O projections) and B*Lv (K+V projection), with the
// floors of each (FLOPs at the measured bf16 GEMM rate, bytes at the measured copy bandwidth).
#include <cstdint>
#include <string>
#include <vector>

#include "harness/suite/suite.hpp"

namespace vlb::fused_b200::bench {

enum class Stage { kQ, kKv, kO };
std::string stage_name(Stage stage);  // "Q", "KV", "O"

struct StageShape {
  Stage stage = Stage::kQ;
  std::int64_t rows = 0;
  std::int64_t n = 0;   // per group
  std::int64_t k = 0;
  int groups = 1;

  double flops() const { return 2.0 * static_cast<double>(rows) * n * k * groups; }
  // Activations read once, weights read once, outputs written once (bf16), bias and positions ignored.
  double min_bytes() const { return 2.0 * (static_cast<double>(rows) * k + static_cast<double>(n) * k * groups +
                                           static_cast<double>(rows) * n * groups); }
};

std::vector<StageShape> stage_shapes(const std::vector<Workload>& workloads);

}  // namespace vlb::fused_b200::bench
