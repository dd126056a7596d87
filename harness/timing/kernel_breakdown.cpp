#include "harness/timing/kernel_breakdown.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "harness/timing/statistics.hpp"

namespace vlb {
namespace {

constexpr std::string_view kAnonymous = "(anonymous namespace)";

std::optional<std::string> demangled(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !text) return std::nullopt;
  return std::string(text.get());
}

// What a mangled name the demangler refuses still says plainly (nvcc mangles some CUTLASS kernels in ways libstdc++'s
// demangler rejects): the function's own name, its namespaces dropped, "<…>" where template arguments follow.
// "_ZN7cutlass13device_kernelINS_4gemm..." -> "device_kernel<…>"; nullopt where even that is not there.
std::optional<std::string> leading_name(const std::string& mangled) {
  std::size_t at = 2;  // after "_Z"
  const bool nested = at < mangled.size() && mangled[at] == 'N';
  if (nested) ++at;
  std::string last;
  while (at < mangled.size() && std::isdigit(static_cast<unsigned char>(mangled[at]))) {
    std::size_t length = 0;
    while (at < mangled.size() && std::isdigit(static_cast<unsigned char>(mangled[at])) && length < 100000) {
      length = length * 10 + static_cast<std::size_t>(mangled[at++] - '0');
    }
    if (length == 0 || length > mangled.size() - at) return std::nullopt;
    last = mangled.substr(at, length);
    at += length;
    if (!nested) break;
  }
  if (last.empty()) return std::nullopt;
  return at < mangled.size() && mangled[at] == 'I' ? last + "<…>" : last;
}

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// "vlb::fused_b200::Config<cute::tuple<int>>" -> "Config<tuple<int>>": every qualifier (an identifier, or
// "(anonymous namespace)", before "::") dropped, in one pass (a regex backtracks quadratically on long names).
std::string without_qualifiers(const std::string& name) {
  std::string out;
  for (std::size_t i = 0; i < name.size();) {
    if (name.compare(i, 2, "::") != 0) {
      out += name[i++];
      continue;
    }
    std::size_t start = out.size();
    while (start > 0 && is_identifier_char(out[start - 1])) --start;
    if (start == out.size() && out.ends_with(kAnonymous)) start -= kAnonymous.size();
    out.erase(start);
    i += 2;
  }
  return out;
}

std::string cut(std::string name) {
  if (name.size() > kMaxShortNameChars) name = name.substr(0, kMaxShortNameChars - 1) + "…";
  return name;
}

// The part before the top-level parameter list, without a leading return type.
std::string function_name(const std::string& signature) {
  int depth = 0;
  std::size_t end = signature.size();
  for (std::size_t i = 0; i < signature.size(); ++i) {
    if (signature.compare(i, kAnonymous.size(), kAnonymous) == 0) {
      i += kAnonymous.size() - 1;  // a namespace, not the parameter list
      continue;
    }
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
  std::optional<std::string> signature = name;  // a name that is not mangled: a plain one, or one demangled already
  if (name.rfind("_Z", 0) == 0) {
    signature = demangled(name);
    if (!signature) return cut(leading_name(name).value_or(name));
  }
  return cut(without_qualifiers(elide_deep_templates(function_name(*signature))));
}

const std::string& ShortKernelNames::of(const std::string& name) {
  const auto found = made_.find(name);
  if (found != made_.end()) return found->second;
  return made_.emplace(name, short_kernel_name(name)).first->second;
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
