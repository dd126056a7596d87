// The reservoir behind the sampled timed calls: the first items fill it, and afterwards every item offered has the
// same chance to end up in it, whatever the number of items (the adaptive stop decides that only as it goes).
#include <catch2/catch.hpp>

#include <vector>

#include "harness/judge/timed_output_sample.hpp"

namespace {
// Which of `items` offers end in a reservoir of `capacity` slots.
std::vector<int> final_sample(int capacity, int items, std::uint64_t seed) {
  vlb::Reservoir reservoir(capacity, seed);
  std::vector<int> slots(static_cast<std::size_t>(capacity), -1);
  for (int item = 0; item < items; ++item) {
    if (const auto slot = reservoir.offer()) slots[*slot] = item;
  }
  return slots;
}
}  // namespace

TEST_CASE("a reservoir keeps the first items until it is full", "[runner][sample]") {
  vlb::Reservoir reservoir(3, 7);
  CHECK(reservoir.offer() == 0);
  CHECK(reservoir.offer() == 1);
  CHECK(reservoir.offer() == 2);
  CHECK(final_sample(3, 2, 7) == std::vector<int>{0, 1, -1});
  CHECK_THROWS_AS(vlb::Reservoir(0, 1), std::invalid_argument);
}

TEST_CASE("every offered item is sampled with probability capacity / items", "[runner][sample]") {
  constexpr int kCapacity = 3, kItems = 50, kTrials = 20000;
  std::vector<int> chosen(kItems, 0);
  for (int trial = 0; trial < kTrials; ++trial) {
    const std::vector<int> sample = final_sample(kCapacity, kItems, 1000 + static_cast<std::uint64_t>(trial));
    for (int item : sample) {
      REQUIRE(item >= 0);
      ++chosen[item];
    }
    CHECK((sample[0] != sample[1] && sample[1] != sample[2] && sample[0] != sample[2]));
  }
  // Expected 1200 per item; binomial sd about 34: six sd either way.
  const double expected = static_cast<double>(kTrials) * kCapacity / kItems;
  for (int item = 0; item < kItems; ++item) {
    INFO("item " << item);
    CHECK(chosen[item] == Approx(expected).margin(6 * 34));
  }
}
