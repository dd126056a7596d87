// compute_statistics against values computed by hand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "harness/timing/statistics.hpp"

TEST_CASE("statistics of an odd count, given unsorted", "[timing]") {
  const std::vector<double> samples = {5.0, 1.0, 4.0, 2.0, 3.0};
  const vlb::Statistics stats = vlb::compute_statistics(samples);
  CHECK(stats.count == 5);
  CHECK(stats.mean == Approx(3.0));
  CHECK(stats.median == Approx(3.0));
  CHECK(stats.min == 1.0);
  CHECK(stats.max == 5.0);
  CHECK(stats.stddev == Approx(std::sqrt(2.5)));  // sum of squares 10 over n-1 = 4
  CHECK(stats.p10 == Approx(1.4));                 // rank 0.4 between 1 and 2
  CHECK(stats.p90 == Approx(4.6));                 // rank 3.6 between 4 and 5
  CHECK(stats.relative_noise() == Approx(std::sqrt(2.5) / 3.0));
}

TEST_CASE("statistics of an even count interpolate the median", "[timing]") {
  const std::vector<double> samples = {0.4, 0.1, 0.3, 0.2};
  const vlb::Statistics stats = vlb::compute_statistics(samples);
  CHECK(stats.count == 4);
  CHECK(stats.mean == Approx(0.25));
  CHECK(stats.median == Approx(0.25));
  CHECK(stats.stddev == Approx(std::sqrt(0.05 / 3.0)));
  CHECK(stats.p10 == Approx(0.13));  // rank 0.3
  CHECK(stats.p90 == Approx(0.37));  // rank 2.7
}

TEST_CASE("statistics of one sample and of none", "[timing]") {
  const std::vector<double> one = {0.7};
  const vlb::Statistics single = vlb::compute_statistics(one);
  CHECK(single.count == 1);
  CHECK(single.median == 0.7);
  CHECK(single.p10 == 0.7);
  CHECK(single.p90 == 0.7);
  CHECK(single.stddev == 0.0);
  const vlb::Statistics empty = vlb::compute_statistics({});
  CHECK(empty.count == 0);
  CHECK(empty.mean == 0.0);
  CHECK(empty.relative_noise() == 0.0);
}

TEST_CASE("statistics of seeded random samples match a direct computation", "[timing]") {
  std::mt19937_64 generator(Catch::rngSeed() + 20261129);
  std::lognormal_distribution<double> latency(-1.0, 0.3);
  std::vector<double> samples(51);
  for (double& sample : samples) sample = latency(generator);
  const vlb::Statistics stats = vlb::compute_statistics(samples);
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  CHECK(stats.median == sorted[25]);
  CHECK(stats.p10 == Approx(sorted[5]));   // rank 5.0 exactly
  CHECK(stats.p90 == Approx(sorted[45]));  // rank 45.0 exactly
  CHECK(stats.min == sorted.front());
  CHECK(stats.max == sorted.back());
  CHECK(stats.min <= stats.p10);
  CHECK(stats.p10 <= stats.median);
  CHECK(stats.median <= stats.p90);
  CHECK(stats.p90 <= stats.max);
}
