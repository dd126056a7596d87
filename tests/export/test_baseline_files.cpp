// The H200 PyTorch baseline tables in workloads/baselines/ load as vlbench baselines, name a known GPU spec, and
// cover every workload of the suite with a plausible latency.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "export/support_export.hpp"
#include "harness/sol/baselines.hpp"
#include "harness/sol/speed_of_light.hpp"

namespace vlb {
namespace {

namespace fs = std::filesystem;

TEST_CASE("the converted H200 PyTorch baselines cover the suite", "[export][baselines]") {
  const fs::path folder = fs::path(VLBENCH_SOURCE_DIR) / "workloads";
  const std::vector<GpuSpec> specs = load_gpu_specs((folder / "gpus.json").string());
  std::set<std::string> suite_uuids;
  for (const nlohmann::json& line : test::official_workloads()) suite_uuids.insert(line.at("workload").at("uuid"));

  for (const auto& [file, method] : {std::pair{"h200-pytorch-cudagraph.json", "pytorch-sdpa-cudagraph"},
                                     std::pair{"h200-pytorch-eager.json", "pytorch-eager"}}) {
    INFO(file);
    const BaselineTable table = load_baselines((folder / "baselines" / file).string());
    REQUIRE(table.gpu_key == "H200_SXM");
    REQUIRE(std::any_of(specs.begin(), specs.end(), [&](const GpuSpec& spec) { return spec.key == table.gpu_key; }));
    REQUIRE(table.method == method);
    REQUIRE(table.source.find("H200") != std::string::npos);
    REQUIRE(table.latency_ms.size() == suite_uuids.size());
    for (const auto& [uuid, milliseconds] : table.latency_ms) {
      INFO(uuid);
      REQUIRE(suite_uuids.count(uuid) == 1);
      REQUIRE(milliseconds > 0.05);  // a whole PyTorch call: at least several kernel launches
      REQUIRE(milliseconds < 10.0);
    }
  }
}

TEST_CASE("the CUDA-graph baseline is never slower than eager by more than noise", "[export][baselines]") {
  const fs::path folder = fs::path(VLBENCH_SOURCE_DIR) / "workloads" / "baselines";
  const BaselineTable graph = load_baselines((folder / "h200-pytorch-cudagraph.json").string());
  const BaselineTable eager = load_baselines((folder / "h200-pytorch-eager.json").string());
  for (const auto& [uuid, graph_ms] : graph.latency_ms) {
    INFO(uuid);
    REQUIRE(graph_ms <= eager.latency_ms.at(uuid) * 1.02);
  }
}

}  // namespace
}  // namespace vlb
