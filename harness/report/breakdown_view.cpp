#include "harness/report/breakdown_view.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/core/printable_text.hpp"
#include "harness/report/text_format.hpp"

namespace vlb {
namespace {

std::string dims(const std::vector<int>& values) {
  return values.empty() ? std::string("-") : fmt::format("{}", fmt::join(values, "x"));
}

}  // namespace

void print_kernel_breakdown(std::FILE* out, const CaseResult& result) {
  fmt::print(out, "{} {}: {}", printable_text(result.solution), report_detail::case_label(result),
             status_name(result.status));
  if (!result.timing) {
    fmt::print(out, ", not timed\n");
    return;
  }
  fmt::print(out, ", median {:.1f} us\n", result.timing->stats.median * 1000.0);
  if (result.load_s && result.first_call_ms) {  // a JIT (torch.compile, Triton) compiles in the first call
    fmt::print(out, "  load {:.2f} s; first call {:.1f} ms (correctness round 0, outside the timed calls)\n",
               *result.load_s, *result.first_call_ms);
  }
  const std::optional<KernelBreakdown>& breakdown = result.timing->breakdown;
  if (!breakdown) {
    fmt::print(out, "  no kernel breakdown: {}\n",
               result.timing->cupti_available ? "no timed call had its CUPTI records" : "CUPTI was unavailable");
    return;
  }
  fmt::print(out, "  CUPTI span {:.1f} us (median of {} timed calls); kernels in launch order:\n",
             breakdown->span_ms * 1000.0, breakdown->calls);
  fmt::print(out, "  {:>3}  {:<60} {:>14} {:>9} {:>10} {:>7}\n", "#", "kernel", "grid", "block", "median us", "share");
  for (std::size_t i = 0; i < breakdown->kernels.size(); ++i) {
    const KernelShare& kernel = breakdown->kernels[i];
    fmt::print(out, "  {:>3}  {:<60} {:>14} {:>9} {:>10.1f} {:>6.1f}%\n", i, printable_text(kernel.name),
               dims(kernel.grid), dims(kernel.block), kernel.median_ms * 1000.0, kernel.share * 100.0);
    if (i < breakdown->gaps_ms.size()) {
      fmt::print(out, "  {:>3}  {:<60} {:>14} {:>9} {:>10.1f}\n", "", "  gap to the next", "", "",
                 breakdown->gaps_ms[i] * 1000.0);
    }
  }
  fmt::print(out, "  gaps in all: {:.1f} us ({:.1f}% of the span; negative: kernels overlap)\n",
             breakdown->gaps_total_ms * 1000.0,
             breakdown->span_ms > 0 ? 100.0 * breakdown->gaps_total_ms / breakdown->span_ms : 0.0);
}

}  // namespace vlb
