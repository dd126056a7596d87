// The per-kernel breakdown from recorded CUPTI-like records: medians, shares of the span, the gaps between kernels
// (adding up to the span with the kernels), calls of another kernel sequence left out; kernel names shortened.
#include <catch2/catch.hpp>

#include <random>

#include "harness/timing/kernel_breakdown.hpp"

namespace {

vlb::ActivityRecord record(const std::string& name, std::uint64_t start_us, std::uint64_t end_us) {
  return {name, "", start_us * 1000, end_us * 1000, {132, 1, 1}, {384, 1, 1}};
}

// A call of kernels A, B, C with `jitter` us added to each duration, starting at `t0` us; records out of order.
vlb::CallActivity call(std::uint64_t t0, std::uint64_t jitter) {
  vlb::CallActivity activity;
  activity.records = {record("C", t0 + 40 + 2 * jitter, t0 + 100 + 3 * jitter), record("A", t0, t0 + 10 + jitter),
                      record("B", t0 + 12 + jitter, t0 + 37 + 2 * jitter)};
  activity.first_start_ns = t0 * 1000;
  activity.last_end_ns = (t0 + 100 + 3 * jitter) * 1000;
  activity.record_count = 3;
  return activity;
}

}  // namespace

TEST_CASE("the breakdown's kernels, gaps and span add up, from the median call", "[timing][breakdown]") {
  std::vector<vlb::CallActivity> calls;
  std::mt19937 generator(Catch::rngSeed() + 5);
  std::vector<std::uint64_t> jitters = {0, 1, 2, 3, 4};  // the median call has jitter 2
  std::shuffle(jitters.begin(), jitters.end(), generator);
  for (std::size_t i = 0; i < jitters.size(); ++i) calls.push_back(call(1000 * (i + 1), jitters[i]));
  // A call of another sequence (a kernel more) is left out.
  vlb::CallActivity other = call(9000, 0);
  other.records.push_back(record("D", 9101, 9102));
  calls.push_back(other);

  const auto breakdown = vlb::kernel_breakdown(calls);
  REQUIRE(breakdown.has_value());
  CHECK(breakdown->calls == 5);
  REQUIRE(breakdown->kernels.size() == 3);
  CHECK(breakdown->kernels[0].name == "A");
  CHECK(breakdown->kernels[1].name == "B");
  CHECK(breakdown->kernels[2].name == "C");
  CHECK(breakdown->kernels[0].median_ms == Approx(0.012));  // 10 + jitter 2
  CHECK(breakdown->kernels[1].median_ms == Approx(0.027));  // 25 + jitter 2
  CHECK(breakdown->kernels[2].median_ms == Approx(0.062));  // 60 + jitter 2
  CHECK(breakdown->kernels[0].grid == std::vector<int>{132, 1, 1});
  CHECK(breakdown->kernels[0].block == std::vector<int>{384, 1, 1});
  REQUIRE(breakdown->gaps_ms.size() == 2);
  CHECK(breakdown->gaps_ms[0] == Approx(0.002));
  CHECK(breakdown->gaps_ms[1] == Approx(0.003));
  CHECK(breakdown->span_ms == Approx(0.106));
  double kernels_ms = 0;
  for (const auto& kernel : breakdown->kernels) kernels_ms += kernel.median_ms;
  CHECK(kernels_ms + breakdown->gaps_total_ms == Approx(breakdown->span_ms));
  CHECK(breakdown->kernels[2].share == Approx(0.062 / 0.106));
}

TEST_CASE("overlapping kernels give negative gaps; no records give no breakdown", "[timing][breakdown]") {
  vlb::CallActivity overlapping;
  overlapping.records = {record("first", 0, 50), record("second", 30, 80)};
  const auto breakdown = vlb::kernel_breakdown({overlapping});
  REQUIRE(breakdown.has_value());
  REQUIRE(breakdown->gaps_ms.size() == 1);
  CHECK(breakdown->gaps_ms[0] == Approx(-0.020));
  CHECK(breakdown->span_ms == Approx(0.080));
  CHECK_FALSE(vlb::kernel_breakdown({}).has_value());
  CHECK_FALSE(vlb::kernel_breakdown({vlb::CallActivity{}}).has_value());
}

TEST_CASE("kernel names are demangled and shortened", "[timing][breakdown]") {
  // void vlb::fused_b200::sm90::attention_kernel<vlb::fused_b200::Config<128, 128> >(vlb::fused_b200::Params)
  CHECK(vlb::short_kernel_name("_ZN3vlb10fused_b2004sm9016attention_kernelINS0_6ConfigILi128ELi128EEEEEvNS0_6ParamsE") ==
        "attention_kernel<Config<128, 128> >");
  CHECK(vlb::short_kernel_name("nvjet_sm90_tst_128x64_64x8_1x2_h_bz_TNT") == "nvjet_sm90_tst_128x64_64x8_1x2_h_bz_TNT");
  CHECK(vlb::short_kernel_name("[memcpy]") == "[memcpy]");
  // As Nsight Compute reports it: demangled already.
  CHECK(vlb::short_kernel_name("void vlb::fused_b200::sm90::attention_kernel<vlb::fused_b200::Config<128, 128>>"
                               "(vlb::fused_b200::Params)") == "attention_kernel<Config<128, 128>>");
  CHECK(vlb::short_kernel_name("_ZN3vlb12_GLOBAL__N_16kernelEv") == "kernel");  // vlb::(anonymous namespace)::kernel()
  // Three levels of templates and more: the deep ones elided; never longer than the limit.
  const std::string deep = vlb::short_kernel_name(
      "_ZN7cutlass13device_kernelINS_4gemm6kernel13GemmUniversalIN4cute5tupleIJiiiiEEEiEEEEvNT_6ParamsE");
  CHECK(deep == "device_kernel<GemmUniversal<tuple<…>, int> >");
  CHECK(vlb::short_kernel_name(std::string(300, 'x')).size() <= vlb::kMaxShortNameChars + 2);
}

TEST_CASE("a name the demangler refuses keeps its function's own name, made once per name", "[timing][breakdown]") {
  // As nvcc mangles some of fused_b200's CUTLASS kernels: libstdc++'s demangler rejects the template arguments.
  const std::string refused = "_ZN7cutlass13device_kernelINS_4gemm6kernel13GemmUniversalIN4cute5tupleIJiiiiEEES1Z_S21_"
                              "EEEvNT_6ParamsE";
  CHECK(vlb::short_kernel_name(refused) == "device_kernel<…>");
  CHECK(vlb::short_kernel_name("_Z6kernelv") == "kernel");
  CHECK(vlb::short_kernel_name("_Z6kern") == "_Z6kern");            // a cut name: kept as it is
  CHECK(vlb::short_kernel_name("_ZN99999999999x") == "_ZN99999999999x");
  // A long name costs time in proportion to its length (a 100,000-character identifier: well under a second).
  const std::string long_name = "_ZN3vlb" + std::to_string(100000) + std::string(100000, 'k') + "6kernelEv";
  CHECK(vlb::short_kernel_name(long_name) == "kernel");
  vlb::ShortKernelNames names;
  const std::string& first = names.of(refused);
  CHECK(first == "device_kernel<…>");
  CHECK(&names.of(refused) == &first);  // the second time from the cache
  CHECK(names.of("_Z6kernelv") == "kernel");
}
