#pragma once
// Where a call's time goes, kernel by kernel, over the timed calls (CUPTI records): each kernel of the call in launch
// order (its name demangled and shortened, its grid and block), its median duration and its share of the median span,
// the median gap from each kernel's end to the next one's start (negative where they overlap), and the gaps' sum.
// For sequential kernels the kernels' medians and the gaps add up to the span.
#include <optional>
#include <string>
#include <vector>

#include "harness/timing/cupti_span.hpp"
#include "harness/timing/measurement.hpp"

namespace vlb {

// "void vlb::fused_b200::sm90::attention_kernel<vlb::Config<128, 128>>(Params)" -> "attention_kernel<Config<…>>":
// demangled, without return type, parameters and namespaces, templates nested deeper than two levels elided, at most
// kMaxShortNameChars characters. Names that are not mangled C++ (cuBLAS's "nvjet_..." kernels) stay as they are.
inline constexpr std::size_t kMaxShortNameChars = 96;
std::string short_kernel_name(const std::string& name);

// The breakdown of the calls whose records came in the same kernel sequence as the first call's (a call that launched
// another sequence is the kernel-set audit's business); nullopt when no call has records.
std::optional<KernelBreakdown> kernel_breakdown(const std::vector<CallActivity>& calls);

}  // namespace vlb
