#pragma once
// The timing pieces put together as the judge puts them (judge/case_session.cpp), around test kernels in this
// process: an untimed preparation, the L2 flush, the call timed by CallTimer, the stop rule, the clock probes, the
// CUPTI spans and their audit. What the judge adds around them (inputs, checks, its own clock) is tested in
// tests/judge and tests/robustness.
#include <cuda_runtime.h>

#include <functional>

#include "harness/core/device_info.hpp"
#include "harness/timing/measurement.hpp"

namespace vlb::testing {

using TestCall = std::function<void(cudaStream_t stream, int iteration)>;

// Warm-up calls, then timed calls until the settings' stop rule says enough. `prepare` (if any) runs before the L2
// flush of each call. Throws UsageError for bad settings, SystemError when the CUPTI timer is asked for and CUPTI
// cannot trace.
TimingResult time_calls_here(const TestCall& call, const TestCall& prepare, const TimingSettings& settings,
                             const DeviceInfo& device, cudaStream_t stream);

}  // namespace vlb::testing
