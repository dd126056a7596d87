#pragma once
// Where a call's time goes, kernel by kernel, over the timed calls (CUPTI records): each kernel of the call in launch
// order (its name demangled and shortened, its grid and block), its median duration and its share of the median span,
// the median gap from each kernel's end to the next one's start (negative where they overlap), and the gaps' sum.
// For sequential kernels the kernels' medians and the gaps add up to the span.
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "harness/timing/cupti_span.hpp"
#include "harness/timing/measurement.hpp"

namespace vlb {

// "void vlb::fused_b200::sm90::attention_kernel<vlb::Config<128, 128>>(Params)" -> "attention_kernel<Config<…>>":
// demangled, without return type, parameters and namespaces, templates nested deeper than two levels elided, at most
// kMaxShortNameChars characters. A name demangled already (as Nsight Compute reports it) is shortened the same way;
// plain names (cuBLAS's "nvjet_..." kernels) stay as they are.
inline constexpr std::size_t kMaxShortNameChars = 96;
// A mangled name the demangler refuses keeps its function's own name ("device_kernel<…>").
std::string short_kernel_name(const std::string& name);

// short_kernel_name, made once per name: demangling a long CUTLASS name takes up to tens of milliseconds (failing,
// longest), and a worker names the same kernels on every call.
class ShortKernelNames {
 public:
  const std::string& of(const std::string& name);

 private:
  std::unordered_map<std::string, std::string> made_;
};

// The breakdown of the calls whose records came in the same kernel sequence as the first call's (a call that launched
// another sequence is the kernel-set audit's business); nullopt when no call has records.
std::optional<KernelBreakdown> kernel_breakdown(const std::vector<CallActivity>& calls);

}  // namespace vlb
