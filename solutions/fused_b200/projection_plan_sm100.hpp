#pragma once
// Host-side choices of the Blackwell (sm_100a) projection path, tested on the CPU: which CUTLASS sm100 tile a shape
// runs on, and how much workspace the fp32 staging of the accumulators takes (BLACKWELL.md explains the design: the
// GEMM writes its fp32 accumulators to the workspace, one kernel then applies bias, RoPE and scale).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "solutions/fused_b200/projection_plan.hpp"

namespace vlb::fused_b200 {

// The sm100 GEMM tiles (MMA tile per cluster): 128x128x64 on one SM (tcgen05.mma cta_group::1, cluster 1x1), and
// 256x128x64 on two SMs (cta_group::2, cluster 2x1: each SM holds 128 rows of A and half of the B tile, and one MMA
// reads both SMs' shared memory).
enum class Sm100Tile { kOneSm128x128, kTwoSm256x128 };
std::string_view sm100_tile_name(Sm100Tile tile);  // "1sm-128x128", "2sm-256x128"
std::int64_t sm100_tile_rows(Sm100Tile tile);      // 128 or 256 (rows of one cluster tile)

// 2-SM tiles once their clusters fill every SM pair at least once (each cluster takes two SMs); 1-SM tiles on smaller
// problems, where 256-row tiles would leave SMs idle.
Sm100Tile plan_sm100_projection(const ProjectionShape& shape, int sm_count);

// Bytes of the fp32 accumulators of every group ([groups][rows][out_features]), 256-byte aligned; 0 for plain work,
// which the GEMM writes as bf16 straight to the output.
std::size_t sm100_staging_bytes(const ProjectionShape& shape, OutputWork work);

}  // namespace vlb::fused_b200
