#include "harness/timing/kernel_breakdown.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <regex>

#include "harness/timing/statistics.hpp"

namespace vlb {
namespace {

std::string demangled(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && text ? std::string(text.get()) : name;
}

// The part before the top-level parameter list, without a leading return type.
std::string function_name(const std::string& signature) {
  int depth = 0;
  std::size_t end = signature.size();
  for (std::size_t i = 0; i < signature.size(); ++i) {
    if (signature[i] == '<') ++depth;
    if (signature[i] == '>') --depth;
    if (signature[i] == '(' && depth == 0 && i > 0) {
      end = i;
      break;
    }
  }
  std::string name = signature.substr(0, end);
  if (name.rfind("void ", 0) == 0) name.erase(0, 5);
  return name;
}

// Template arguments nested deeper than two levels become one "<…>".
std::string elide_deep_templates(const std::string& name) {
  std::string out;
  int depth = 0;
  for (const char c : name) {
    if (c == '<') {
      ++depth;
      if (depth <= 2) out += c;
      if (depth == 3) out += "<…";
      continue;
    }
    if (c == '>') {
      if (depth <= 3) out += c;
      --depth;
      continue;
    }
    if (depth <= 2) out += c;
  }
  return out;
}

}  // namespace

std::string short_kernel_name(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name.size() <= kMaxShortNameChars ? name : name.substr(0, kMaxShortNameChars - 1) + "…";
  static const std::regex qualifier(R"((\(anonymous namespace\)|[A-Za-z_][A-Za-z0-9_]*)::)");
  std::string shortened = std::regex_replace(elide_deep_templates(function_name(demangled(name))), qualifier, "");
  if (shortened.size() > kMaxShortNameChars) shortened = shortened.substr(0, kMaxShortNameChars - 1) + "…";
  return shortened;
}

std::optional<KernelBreakdown> kernel_breakdown(const std::vector<CallActivity>& calls) {
  std::vector<std::vector<ActivityRecord>> sequences;
  for (const CallActivity& call : calls) {
    if (call.records.empty()) continue;
    std::vector<ActivityRecord> records = call.records;
    std::sort(records.begin(), records.end(), [](const ActivityRecord& a, const ActivityRecord& b) {
      return a.start_ns < b.start_ns;
    });
    sequences.push_back(std::move(records));
  }
  if (sequences.empty()) return std::nullopt;
  const std::vector<ActivityRecord>& first = sequences.front();
  const auto same_sequence = [&](const std::vector<ActivityRecord>& records) {
    return records.size() == first.size() &&
           std::equal(records.begin(), records.end(), first.begin(),
                      [](const ActivityRecord& a, const ActivityRecord& b) { return a.name == b.name; });
  };
  std::erase_if(sequences, [&](const std::vector<ActivityRecord>& records) { return !same_sequence(records); });

  KernelBreakdown breakdown;
  breakdown.calls = static_cast<int>(sequences.size());
  std::vector<double> spans;
  for (const auto& records : sequences) {
    std::uint64_t end = 0;
    for (const ActivityRecord& record : records) end = std::max(end, record.end_ns);
    spans.push_back(static_cast<double>(end - records.front().start_ns) * 1e-6);
  }
  breakdown.span_ms = compute_statistics(spans).median;
  for (std::size_t k = 0; k < first.size(); ++k) {
    std::vector<double> durations, gaps;
    for (const auto& records : sequences) {
      durations.push_back(static_cast<double>(records[k].end_ns - records[k].start_ns) * 1e-6);
      if (k + 1 < first.size()) {
        gaps.push_back((static_cast<double>(records[k + 1].start_ns) - static_cast<double>(records[k].end_ns)) * 1e-6);
      }
    }
    KernelShare share;
    share.name = first[k].display_name.empty() ? short_kernel_name(first[k].name) : first[k].display_name;
    if (first[k].grid[0] > 0) {
      share.grid.assign(first[k].grid.begin(), first[k].grid.end());
      share.block.assign(first[k].block.begin(), first[k].block.end());
    }
    share.median_ms = compute_statistics(durations).median;
    share.share = breakdown.span_ms > 0 ? share.median_ms / breakdown.span_ms : 0.0;
    breakdown.kernels.push_back(std::move(share));
    if (!gaps.empty()) {
      breakdown.gaps_ms.push_back(compute_statistics(gaps).median);
      breakdown.gaps_total_ms += breakdown.gaps_ms.back();
    }
  }
  return breakdown;
}

}  // namespace vlb
