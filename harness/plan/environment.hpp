#pragma once
// The environment recorded in every result file: host, GPU, driver and library versions.
#include "harness/core/device_info.hpp"
#include "harness/report/results.hpp"

namespace vlb {

EnvironmentRecord collect_environment(const DeviceInfo& device, const std::string& gpu_spec_key);
std::string utc_timestamp();  // ISO 8601, e.g. 2026-11-29T15:04:05Z

}  // namespace vlb
