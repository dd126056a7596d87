#include "harness/solution/registry.hpp"
#include "reference/gpu_reference.hpp"

VLBENCH_REGISTER_SOLUTION(vlb::reference::GpuReference);
