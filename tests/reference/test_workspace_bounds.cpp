// The references' workspaces stay bounded for every workload of the suite (docs/operation.md), the largest included.
#include <catch2/catch.hpp>

#include <array>

#include "harness/core/cublas_handle.hpp"
#include "reference/gpu_reference.hpp"
#include "reference/gpu_stages.hpp"

namespace {
// (B, Lq, Lv) of the 16 workloads.
constexpr std::array<vlb::ProblemShape, 16> kSuiteShapes = {{
    {2, 256, 392}, {64, 256, 392}, {1, 512, 784},  {2, 1024, 1568}, {16, 512, 784}, {1, 4096, 6272},
    {4, 541, 980}, {2, 512, 784},  {8, 128, 196},  {8, 256, 392},   {1, 8192, 12544}, {1, 1024, 1568},
    {32, 373, 588}, {4, 512, 784}, {16, 128, 196}, {2, 128, 196},
}};
constexpr std::size_t kMiB = std::size_t{1} << 20;
}  // namespace

TEST_CASE("the faithful stages' score chunk fits its budget for every workload", "[reference][workspace]") {
  for (const auto& shape : kSuiteShapes) {
    INFO(vlb::describe(shape));
    const std::int64_t rows = vlb::reference::score_chunk_rows(shape);
    CHECK(rows >= 1);
    CHECK(rows <= shape.lang_seq);
    CHECK(static_cast<std::size_t>(4 * rows * shape.vision_seq * 2) <= vlb::reference::kScoreChunkBytes);
    CHECK(vlb::reference::stage_workspace_bytes(shape) <= vlb::kCublasWorkspaceBytes + 129 * kMiB);
  }
  // The largest case: full scores would be 32 * 8192 * 12544 * 2 bytes = 6.6 GB.
  const vlb::ProblemShape largest{1, 8192, 12544};
  CHECK(vlb::reference::score_chunk_rows(largest) < 8192);
}

TEST_CASE("the exact fp32 GPU path's workspace is bounded for every workload", "[reference][workspace]") {
  for (const auto& shape : kSuiteShapes) {
    INFO(vlb::describe(shape));
    CHECK(vlb::reference::exact_fp32_workspace_bytes(shape) <= 512 * kMiB);
  }
  // It grows with Lv (K and V of one batch element), not with B or Lq.
  CHECK(vlb::reference::exact_fp32_workspace_bytes({64, 4096, 196}) ==
        vlb::reference::exact_fp32_workspace_bytes({1, 4096, 196}));
}
