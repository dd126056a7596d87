#include "solutions/fused_b200/projection_plan_sm100.hpp"

#include <string>

#include "harness/core/errors.hpp"

namespace vlb::fused_b200 {
namespace {

constexpr std::int64_t kTileColumns = 128;
constexpr std::size_t kAlignment = 256;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::string_view sm100_tile_name(Sm100Tile tile) {
  switch (tile) {
    case Sm100Tile::kOneSm128x128: return "1sm-128x128";
    case Sm100Tile::kTwoSm256x128: return "2sm-256x128";
  }
  return "unknown";
}

std::int64_t sm100_tile_rows(Sm100Tile tile) { return tile == Sm100Tile::kTwoSm256x128 ? 256 : 128; }

Sm100Tile plan_sm100_projection(const ProjectionShape& shape, int sm_count) {
  check_projection_shape(shape);
  if (sm_count < 1) throw UsageError("projection GEMM: sm_count must be >= 1, got " + std::to_string(sm_count));
  const std::int64_t two_sm_clusters = ceil_div(shape.rows, sm100_tile_rows(Sm100Tile::kTwoSm256x128)) *
                                       (shape.out_features / kTileColumns) * shape.groups;
  return two_sm_clusters * 2 >= sm_count ? Sm100Tile::kTwoSm256x128 : Sm100Tile::kOneSm128x128;
}

std::size_t sm100_staging_bytes(const ProjectionShape& shape, OutputWork work) {
  check_projection_shape(shape);
  if (work == OutputWork::kPlain) return 0;
  const auto bytes = static_cast<std::size_t>(shape.rows) * static_cast<std::size_t>(shape.out_features) *
                     static_cast<std::size_t>(shape.groups) * sizeof(float);
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

}  // namespace vlb::fused_b200
