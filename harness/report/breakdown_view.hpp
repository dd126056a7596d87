#pragma once
// The per-kernel view of a case (`vlbench show`, and `vlbench -v` after each run): where the timed calls' time went,
// kernel by kernel, with the launch configuration, the share of the span and the gaps between kernels.
#include <cstdio>

#include "harness/report/results.hpp"

namespace vlb {

// The case's header line and its breakdown table ("no kernel breakdown: ..." when the timing has none).
void print_kernel_breakdown(std::FILE* out, const CaseResult& result);

}  // namespace vlb
