#pragma once
// The attention kernels' TMA tile load, architecture-neutral device code (cp.async.bulk.tensor is the same on sm90
// and sm100): one tile (query rows or keys) of a [head_dim, heads, tokens, batch] tensor as 64-column boxes, one per
// column half, landing as the K-major SW128 layout that wgmma and tcgen05.mma read (attention_tensor_map.hpp makes
// the descriptors).
#include <cute/arch/copy_sm90_tma.hpp>

#include <cstdint>

namespace vlb::fused_b200 {

template <int kBoxColumns, int kBoxes, class Element>
CUTE_DEVICE void load_head_tile(const CUtensorMap& map, std::uint64_t* barrier, Element* smem, int tile_rows, int head,
                                int token, int batch, cute::TMA::CacheHintSm90 hint) {
  CUTE_UNROLL
  for (int half = 0; half < kBoxes; ++half) {
    cute::SM90_TMA_LOAD_4D::copy(&map, barrier, static_cast<std::uint64_t>(hint), smem + half * tile_rows * kBoxColumns,
                                 half * kBoxColumns, head, token, batch);
  }
}

}  // namespace vlb::fused_b200
