// The K RoPE section layout of core/problem.hpp against docs/operation.md step 3: t [0,42), h [42,84), w [84,128), pairs
// numbered section after section, every dimension and every pair in exactly one section.
#include <catch2/catch.hpp>

#include <array>

#include "harness/core/problem.hpp"

namespace vlb {
namespace {

using S = KRopeSections;

TEST_CASE("the K RoPE sections are t [0,42), h [42,84), w [84,128)", "[core][rope]") {
  constexpr std::array<int, 3> kStarts = {0, 42, 84};
  constexpr std::array<int, 3> kWidths = {42, 42, 44};
  REQUIRE(S::kCount == 3);
  for (int section = 0; section < S::kCount; ++section) {
    INFO("section " << section);
    CHECK(S::start(section) == kStarts[section]);
    CHECK(S::width(section) == kWidths[section]);
    CHECK(S::pairs(section) == kWidths[section] / 2);
    CHECK(S::first_pair(section) == kStarts[section] / 2);
  }
  static_assert(S::first_pair(1) == 21 && S::first_pair(2) == 42 && S::pairs(2) == 22);
}

TEST_CASE("every head dimension and every pair belongs to exactly the section that covers it", "[core][rope]") {
  std::array<int, ModelDims::kHeadDim> dims_seen{};
  std::array<int, ModelDims::kHeadDim / 2> pairs_seen{};
  for (int section = 0; section < S::kCount; ++section) {
    for (int dim = S::start(section); dim < S::start(section) + S::width(section); ++dim) {
      ++dims_seen[dim];
      CHECK(S::section_of_dim(dim) == section);
    }
    for (int pair = S::first_pair(section); pair < S::first_pair(section) + S::pairs(section); ++pair) {
      ++pairs_seen[pair];
      CHECK(S::section_of_pair(pair) == section);
    }
  }
  for (int count : dims_seen) CHECK(count == 1);
  for (int count : pairs_seen) CHECK(count == 1);
}

}  // namespace
}  // namespace vlb
