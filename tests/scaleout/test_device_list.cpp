// --devices: which GPUs, checked before any GPU work and against what the host has.
#include <catch2/catch.hpp>

#include "harness/core/errors.hpp"
#include "harness/scaleout/device_list.hpp"

TEST_CASE("--devices takes 'all' or distinct ordinals", "[runner][devices]") {
  CHECK(vlb::parse_device_list("all") == vlb::DeviceList{true, {}});
  CHECK(vlb::parse_device_list("0") == vlb::DeviceList{false, {0}});
  CHECK(vlb::parse_device_list("2,0,7") == vlb::DeviceList{false, {2, 0, 7}});
  for (const char* bad : {"", "x", "-1", "0,", ",1", "0,,1", "1.5", "0 1", "ALL", "0,all"}) {
    INFO(bad);
    CHECK_THROWS_AS(vlb::parse_device_list(bad), vlb::UsageError);
  }
  CHECK_THROWS_WITH(vlb::parse_device_list("1,3,1"), Catch::Contains("names GPU 1 twice"));
  CHECK_THROWS_WITH(vlb::parse_device_list("0,x"), Catch::Contains("'x' is not a GPU ordinal"));
}

TEST_CASE("--devices resolves against the GPUs the host has", "[runner][devices]") {
  CHECK(vlb::resolve_devices({true, {}}, 4) == std::vector<int>{0, 1, 2, 3});
  CHECK(vlb::resolve_devices({true, {}}, 1) == std::vector<int>{0});
  CHECK(vlb::resolve_devices({false, {3, 1}}, 4) == std::vector<int>{3, 1});
  CHECK_THROWS_AS(vlb::resolve_devices({false, {0, 2}}, 2), vlb::UsageError);
  CHECK_THROWS_WITH(vlb::resolve_devices({false, {0, 2}}, 2),
                    Catch::Contains("GPU 2 does not exist") && Catch::Contains("2 GPU(s), 0..1"));
  // No GPU at all is the system's failure (exit 3), whatever was asked.
  CHECK_THROWS_AS(vlb::resolve_devices({true, {}}, 0), vlb::SystemError);
  CHECK_THROWS_AS(vlb::resolve_devices({false, {0}}, 0), vlb::SystemError);
  CHECK_THROWS_WITH(vlb::resolve_devices({false, {0}}, 0), Catch::Contains("no CUDA GPU found"));
}
