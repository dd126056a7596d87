#pragma once
// Checked CUDA and cuBLAS calls: a failure becomes a SystemError naming the call, the error and the place.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <source_location>
#include <string>

#include "harness/core/errors.hpp"

namespace vlb {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* expression,
                                   std::source_location where = std::source_location::current());
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* expression,
                                     std::source_location where = std::source_location::current());

}  // namespace vlb

#define VLB_CUDA_CHECK(expression)                                  \
  do {                                                              \
    const cudaError_t vlb_status_ = (expression);                   \
    if (vlb_status_ != cudaSuccess) {                               \
      ::vlb::throw_cuda_error(vlb_status_, #expression);            \
    }                                                               \
  } while (false)

#define VLB_CUBLAS_CHECK(expression)                                \
  do {                                                              \
    const cublasStatus_t vlb_status_ = (expression);                \
    if (vlb_status_ != CUBLAS_STATUS_SUCCESS) {                     \
      ::vlb::throw_cublas_error(vlb_status_, #expression);          \
    }                                                               \
  } while (false)

// After a <<<...>>> launch: catches bad launch configurations at once (not asynchronous faults).
#define VLB_CHECK_LAUNCH() VLB_CUDA_CHECK(cudaGetLastError())
