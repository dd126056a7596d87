// Selecting cases by index, uuid, uuid prefix or custom size, and the usage errors of bad selectors.
#include <catch2/catch.hpp>

#include "harness/suite/suite.hpp"
#include "suite/suite_test_files.hpp"

using namespace vlb;
using vlb::testing::require_usage_error;

namespace {
const Suite& builtin_suite() {
  static const Suite suite = load_suite("all", vlb::testing::source_workloads_dir());
  return suite;
}
}  // namespace

TEST_CASE("no selector selects every workload in order", "[suite][selection]") {
  const Suite& suite = builtin_suite();
  const auto cases = select_cases(suite, {});
  REQUIRE(cases.size() == suite.workloads.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CHECK(cases[i].index == static_cast<int>(i));
    CHECK(cases[i].workload == &suite.workloads[i]);
    CHECK(cases[i].uuid == suite.workloads[i].uuid);
    CHECK(cases[i].shape == suite.workloads[i].shape);
    CHECK(cases[i].tolerance.atol == suite.workloads[i].tolerance.atol);
  }
}

TEST_CASE("selection by index, uuid, uuid prefix and custom size, in the order given", "[suite][selection]") {
  const Suite& suite = builtin_suite();
  const auto cases = select_cases(
      suite, {"3", "c87d0d68-ad71-5c8a-8666-5428ae78cfa3", "81d65fe0", "fea58ba1-ce30", "1x64x196", "0"}, 0.02);
  REQUIRE(cases.size() == 6);
  CHECK(cases[0].index == 3);
  CHECK(cases[0].shape == ProblemShape{2, 1024, 1568});
  CHECK(cases[0].tolerance.atol == 0.012);
  CHECK(cases[0].label() == "#3 9df4cc20");
  CHECK(cases[1].index == 10);
  CHECK(cases[1].shape == ProblemShape{1, 8192, 12544});
  CHECK(cases[2].index == 12);
  CHECK(cases[2].uuid == "81d65fe0-42e5-5bb2-8792-f06ce9a58d76");
  CHECK(cases[3].index == 14);
  CHECK(cases[4].index == -1);
  CHECK(cases[4].workload == nullptr);
  CHECK(cases[4].uuid.empty());
  CHECK(cases[4].shape == ProblemShape{1, 64, 196});
  CHECK(cases[4].tolerance.atol == 0.02);
  CHECK(cases[4].tolerance.rtol == 0.05);
  CHECK(cases[4].tolerance.required_match_ratio == 0.99);
  CHECK(cases[4].label() == "custom B=1 Lq=64 Lv=196");
  CHECK(cases[5].index == 0);
  CHECK(cases[5].label() == "#0 d48e8b5b");
}

TEST_CASE("the default custom tolerance is atol 0.01", "[suite][selection]") {
  const auto cases = select_cases(builtin_suite(), {"2x37x200"});
  REQUIRE(cases.size() == 1);
  CHECK(cases[0].tolerance.atol == 0.01);
  CHECK(cases[0].shape == ProblemShape{2, 37, 200});
}

TEST_CASE("bad indices list the valid range", "[suite][selection]") {
  require_usage_error([] { select_cases(builtin_suite(), {"16"}); }, {"16", "out of range", "0..15", "--shape"});
  require_usage_error([] { select_cases(builtin_suite(), {"99999"}); }, {"0..15"});
}

TEST_CASE("bad uuids and prefixes say what to give instead", "[suite][selection]") {
  require_usage_error([] { select_cases(builtin_suite(), {"d48e"}); }, {"'d48e'", "at least 8", "0..15"});
  require_usage_error([] { select_cases(builtin_suite(), {"-1"}); }, {"'-1'", "0..15"});
  require_usage_error([] { select_cases(builtin_suite(), {"ffffffff-0000"}); }, {"no workload", "ffffffff-0000"});
  require_usage_error([] { select_cases(builtin_suite(), {""}); }, {"empty case selector"});
}

TEST_CASE("an ambiguous prefix lists its matches; an all-digit prefix can be a uuid", "[suite][selection]") {
  Suite suite = builtin_suite();
  suite.workloads[4].uuid = "12345678-aaaa-0000-0000-000000000000";
  suite.workloads[9].uuid = "12345678-bbbb-0000-0000-000000000000";
  require_usage_error([&] { select_cases(suite, {"12345678"}); },
                      {"ambiguous", "#4 12345678-aaaa", "#9 12345678-bbbb"});
  const auto cases = select_cases(suite, {"12345678-b"});
  REQUIRE(cases.size() == 1);
  CHECK(cases[0].index == 9);
  suite.workloads[4].uuid = "87654321-aaaa-0000-0000-000000000000";
  const auto digits = select_cases(suite, {"87654321"});
  REQUIRE(digits.size() == 1);
  CHECK(digits[0].index == 4);
}

TEST_CASE("bad custom sizes are usage errors", "[suite][selection]") {
  require_usage_error([] { select_cases(builtin_suite(), {"1x64"}); }, {"'1x64'", "exactly BxLqxLv"});
  require_usage_error([] { select_cases(builtin_suite(), {"1x64x196x4"}); }, {"exactly BxLqxLv"});
  require_usage_error([] { select_cases(builtin_suite(), {"1xx196"}); }, {"'1xx196'", "three integers"});
  require_usage_error([] { select_cases(builtin_suite(), {"1x0x196"}); }, {"must be positive"});
  require_usage_error([] { select_cases(builtin_suite(), {"5000x64x196"}); }, {"batch_size = 5000 exceeds"});
  require_usage_error([] { select_cases(builtin_suite(), {"4096x131072x196"}); }, {"would hold"});
  require_usage_error([] { select_cases(builtin_suite(), {"1x64x196"}, -0.5); }, {"atol >= 0"});
}

TEST_CASE("the old comma spelling of a custom size is refused with both new spellings", "[suite][selection]") {
  // "2,373,588" once meant one custom size; now commas separate cases, so a selector never holds one.
  require_usage_error([] { select_cases(builtin_suite(), {"2,373,588"}); }, {"-c 0,15", "--shape 2x373x588"});
}

TEST_CASE("a custom size can never be taken for a uuid prefix", "[suite][selection]") {
  // 'x' is not a hexadecimal digit: "12345678x1x1" is a size even in a suite whose uuids are all digits.
  Suite suite = builtin_suite();
  suite.workloads[0].uuid = "12345678-0000-0000-0000-000000000000";
  const auto cases = select_cases(suite, {"12345678", "3x1x196"});
  REQUIRE(cases.size() == 2);
  CHECK(cases[0].index == 0);
  CHECK(cases[1].index == -1);
  CHECK(cases[1].shape == ProblemShape{3, 1, 196});
}

TEST_CASE("a case selected twice, however it is named, is a usage error naming both selectors", "[suite][selection]") {
  const Suite& suite = builtin_suite();
  require_usage_error([&] { select_cases(suite, {"0", "0"}); }, {"'0' and '0' both select #0 d48e8b5b"});
  require_usage_error([&] { select_cases(suite, {"3", "15", "d48e8b5b", "0"}); },
                      {"'d48e8b5b' and '0' both select #0"});
  require_usage_error([&] { select_cases(suite, {"2x373x588", "2x373x588"}); },
                      {"'2x373x588' and '2x373x588' both select custom B=2 Lq=373 Lv=588"});
  // A custom size equal to a suite case's shape is another case (its own tolerance, no workload file).
  CHECK(select_cases(suite, {"0", "2x256x392"}).size() == 2);
}
