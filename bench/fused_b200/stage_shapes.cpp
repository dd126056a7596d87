#include "bench/fused_b200/stage_shapes.hpp"

#include <set>

#include "harness/core/problem.hpp"

namespace vlb::fused_b200::bench {

std::string stage_name(Stage stage) {
  switch (stage) {
    case Stage::kQ: return "Q";
    case Stage::kKv: return "KV";
    case Stage::kO: return "O";
  }
  return "?";
}

std::vector<StageShape> stage_shapes(const std::vector<Workload>& workloads) {
  std::set<std::int64_t> lang_rows;
  std::set<std::int64_t> vision_rows;
  for (const Workload& workload : workloads) {
    lang_rows.insert(workload.shape.lang_rows());
    vision_rows.insert(workload.shape.vision_rows());
  }
  std::vector<StageShape> shapes;
  for (std::int64_t rows : lang_rows) shapes.push_back({Stage::kQ, rows, ModelDims::kQProjDim, ModelDims::kHidden, 1});
  for (std::int64_t rows : vision_rows) {
    shapes.push_back({Stage::kKv, rows, ModelDims::kKvProjDim, ModelDims::kHidden, 2});
  }
  for (std::int64_t rows : lang_rows) shapes.push_back({Stage::kO, rows, ModelDims::kHidden, ModelDims::kQProjDim, 1});
  return shapes;
}

}  // namespace vlb::fused_b200::bench
