#include "harness/scaleout/case_shards.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <numeric>

#include "harness/core/errors.hpp"
#include "harness/sol/speed_of_light.hpp"

namespace vlb {
namespace {

std::optional<int> parse_count(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

void check_shard(const ShardSpec& shard) {
  if (shard.count < 1 || shard.index < 0 || shard.index >= shard.count) {
    throw UsageError(fmt::format("shard {}/{} does not exist: write i/n with n >= 1 and 0 <= i < n (0-based, as a job "
                                 "array --array=0-{})",
                                 shard.index, shard.count, std::max(shard.count, 1) - 1));
  }
}

std::vector<std::vector<int>> split_by_work(const std::vector<Case>& cases, int count) {
  std::vector<int> heaviest_first(cases.size());
  std::iota(heaviest_first.begin(), heaviest_first.end(), 0);
  std::vector<double> work(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) work[i] = count_work(cases[i].shape).flops;
  std::stable_sort(heaviest_first.begin(), heaviest_first.end(), [&](int a, int b) { return work[a] > work[b]; });

  std::vector<std::vector<int>> shares(count);
  std::vector<double> load(count, 0.0);
  for (int position : heaviest_first) {
    const auto lightest = std::min_element(load.begin(), load.end()) - load.begin();  // first of equals
    shares[lightest].push_back(position);
    load[lightest] += work[position];
  }
  for (auto& share : shares) std::sort(share.begin(), share.end());
  return shares;
}

}  // namespace

ShardSpec parse_shard(std::string_view text) {
  const std::size_t slash = text.find('/');
  const auto index = slash == std::string_view::npos ? std::nullopt : parse_count(text.substr(0, slash));
  const auto count = slash == std::string_view::npos ? std::nullopt : parse_count(text.substr(slash + 1));
  if (!index || !count) {
    throw UsageError(fmt::format("--shard '{}': write i/n, e.g. 0/4 for the first of four shares (0-based)", text));
  }
  const ShardSpec shard{*index, *count};
  check_shard(shard);
  return shard;
}

std::string shard_text(const ShardSpec& shard) { return fmt::format("{}/{}", shard.index, shard.count); }

std::vector<int> shard_positions(const std::vector<Case>& cases, const ShardSpec& shard) {
  check_shard(shard);
  return split_by_work(cases, shard.count)[shard.index];
}

SelectedCases select_plan_cases(const RunPlan& plan) {
  SelectedCases selected{load_suite(plan.suite, plan.workloads_dir), {}};
  selected.cases = select_cases(selected.suite, plan.case_selectors, plan.custom_case_atol);
  for (const ShardSpec& shard : plan.shards) {
    std::vector<Case> share;
    for (int position : shard_positions(selected.cases, shard)) share.push_back(selected.cases[position]);
    selected.cases = std::move(share);
  }
  return selected;
}

}  // namespace vlb
