#pragma once
// Helpers of the GPU reference tests: run the references on the device and bring their results back.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "harness/inputs/input_set.hpp"

namespace vlb::testing {

std::vector<__nv_bfloat16> download_bf16(const void* device, std::int64_t elements, cudaStream_t stream);
void upload_floats_as_bf16(const std::vector<float>& values, void* device, cudaStream_t stream);
std::vector<double> to_double(const std::vector<__nv_bfloat16>& values);
std::vector<double> to_double(const std::vector<float>& values);

// The GpuReference solution on `inputs`, its output poisoned first (so an unwritten element shows as NaN).
std::vector<__nv_bfloat16> run_gpu_reference(const DeviceInputs& inputs, cudaStream_t stream);

// exact_output_fp32_gpu on `inputs`, as doubles.
std::vector<double> run_exact_fp32_gpu(const DeviceInputs& inputs, cudaStream_t stream);

}  // namespace vlb::testing
