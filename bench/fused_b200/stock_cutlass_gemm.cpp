// The stock GEMM list of a build without sm90a code: none.
#include "bench/fused_b200/stock_cutlass_gemm.hpp"

namespace vlb::fused_b200::bench {
#if !defined(VLBENCH_HAS_SM90)
std::vector<StockGemm> stock_gemms() { return {}; }
#endif
}  // namespace vlb::fused_b200::bench
