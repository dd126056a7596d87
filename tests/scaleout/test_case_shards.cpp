// Shares of the selected cases (--shard, and the per-GPU shares of --devices): disjoint, covering, balanced by work,
// and the same wherever they are computed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <set>

#include "harness/core/errors.hpp"
#include "harness/scaleout/case_shards.hpp"
#include "harness/sol/speed_of_light.hpp"

namespace {

vlb::RunPlan builtin_plan() {
  vlb::RunPlan plan;
  plan.workloads_dir = vlb::default_workloads_dir();
  plan.solutions = {"reference"};
  return plan;
}

double work_of(const std::vector<vlb::Case>& cases, const std::vector<int>& positions) {
  double total = 0;
  for (int position : positions) total += vlb::count_work(cases[position].shape).flops;
  return total;
}

vlb::Case custom(std::int64_t batch, std::int64_t lang, std::int64_t vision) {
  vlb::Case result;
  result.shape = {batch, lang, vision};
  return result;
}

}  // namespace

TEST_CASE("--shard i/n is 0-based and checked", "[runner][shards]") {
  CHECK(vlb::parse_shard("0/4") == vlb::ShardSpec{0, 4});
  CHECK(vlb::parse_shard("3/4") == vlb::ShardSpec{3, 4});
  CHECK(vlb::parse_shard("0/1") == vlb::ShardSpec{0, 1});
  CHECK(vlb::shard_text({2, 7}) == "2/7");
  for (const char* bad : {"4/4", "-1/4", "1/0", "0/-2", "a/b", "1", "1/2/3", "", "/4", "1/", " 1/4"}) {
    INFO(bad);
    CHECK_THROWS_AS(vlb::parse_shard(bad), vlb::UsageError);
  }
  CHECK_THROWS_WITH(vlb::parse_shard("4/4"), Catch::Contains("0 <= i < n") && Catch::Contains("--array=0-3"));
  CHECK_THROWS_WITH(vlb::parse_shard("x"), Catch::Contains("write i/n"));
}

TEST_CASE("the shares of the suite are disjoint, cover it, and are balanced by work", "[runner][shards]") {
  const vlb::SelectedCases selected = vlb::select_plan_cases(builtin_plan());
  const auto& cases = selected.cases;
  REQUIRE(cases.size() == 16);
  double heaviest = 0;
  for (const auto& c : cases) heaviest = std::max(heaviest, vlb::count_work(c.shape).flops);
  for (int count = 1; count <= 18; ++count) {
    INFO("n = " << count);
    std::multiset<int> seen;
    double lightest_share = 1e300, heaviest_share = 0;
    for (int index = 0; index < count; ++index) {
      const std::vector<int> share = vlb::shard_positions(cases, {index, count});
      CHECK(std::is_sorted(share.begin(), share.end()));  // selection order kept
      CHECK(share == vlb::shard_positions(cases, {index, count}));  // deterministic
      seen.insert(share.begin(), share.end());
      const double work = work_of(cases, share);
      lightest_share = std::min(lightest_share, work);
      heaviest_share = std::max(heaviest_share, work);
    }
    std::multiset<int> every;
    for (int position = 0; position < 16; ++position) every.insert(position);
    CHECK(seen == every);  // each case in exactly one share
    // Greedy by work, heaviest first: no share exceeds another by more than the heaviest single case.
    CHECK(heaviest_share - lightest_share <= heaviest);
  }
  // More shares than cases: the extra shares are empty.
  CHECK(vlb::shard_positions(cases, {17, 18}).empty());
}

TEST_CASE("the rule: heaviest first, each to the share with the least work so far", "[runner][shards]") {
  // Work grows with every axis; these five are in a known order: 4 > 0 > 2 > 1 = 3 (1 and 3 have one shape).
  const std::vector<vlb::Case> cases = {custom(4, 512, 784), custom(1, 256, 392), custom(2, 512, 784),
                                        custom(1, 256, 392), custom(16, 512, 784)};
  const double w0 = vlb::count_work(cases[0].shape).flops, w1 = vlb::count_work(cases[1].shape).flops,
               w2 = vlb::count_work(cases[2].shape).flops, w4 = vlb::count_work(cases[4].shape).flops;
  REQUIRE(w4 > w0 + w2 + 2 * w1);
  REQUIRE(w2 + 2 * w1 < w0);
  // Two shares: 4 alone outweighs the rest, which all go to share 1.
  CHECK(vlb::shard_positions(cases, {0, 2}) == std::vector<int>{4});
  CHECK(vlb::shard_positions(cases, {1, 2}) == std::vector<int>{0, 1, 2, 3});
  // Three shares: 4 | 0 | 2, then 1 and 3 to share 2, which stays the lightest (2 + 1 + 3 < 0).
  CHECK(vlb::shard_positions(cases, {0, 3}) == std::vector<int>{4});
  CHECK(vlb::shard_positions(cases, {1, 3}) == std::vector<int>{0});
  CHECK(vlb::shard_positions(cases, {2, 3}) == std::vector<int>{1, 2, 3});
  // Equal work: the earlier case first, to the lower share.
  const std::vector<vlb::Case> same = {custom(1, 128, 196), custom(1, 128, 196), custom(1, 128, 196)};
  CHECK(vlb::shard_positions(same, {0, 3}) == std::vector<int>{0});
  CHECK(vlb::shard_positions(same, {1, 3}) == std::vector<int>{1});
  CHECK(vlb::shard_positions(same, {2, 3}) == std::vector<int>{2});
}

TEST_CASE("a plan's shards apply in order to its selected cases", "[runner][shards]") {
  vlb::RunPlan plan = builtin_plan();
  plan.case_selectors = {"15", "10", "3", "2x37x196", "0", "12"};
  const vlb::SelectedCases all = vlb::select_plan_cases(plan);
  REQUIRE(all.cases.size() == 6);
  plan.shards = {{1, 2}};
  const vlb::SelectedCases half = vlb::select_plan_cases(plan);
  const std::vector<int> positions = vlb::shard_positions(all.cases, {1, 2});
  REQUIRE(half.cases.size() == positions.size());
  for (std::size_t i = 0; i < positions.size(); ++i) CHECK(half.cases[i].shape == all.cases[positions[i]].shape);
  // A device worker's share of a shard: the second split is of the first one's cases.
  plan.shards = {{1, 2}, {0, 2}};
  const vlb::SelectedCases quarter = vlb::select_plan_cases(plan);
  const std::vector<int> inner = vlb::shard_positions(half.cases, {0, 2});
  REQUIRE(quarter.cases.size() == inner.size());
  for (std::size_t i = 0; i < inner.size(); ++i) CHECK(quarter.cases[i].label() == half.cases[inner[i]].label());
  plan.shards = {{2, 2}};
  CHECK_THROWS_AS(vlb::select_plan_cases(plan), vlb::UsageError);
}
