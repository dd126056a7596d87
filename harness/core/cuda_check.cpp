#include "harness/core/cuda_check.hpp"

#include <string>

namespace vlb {

void throw_cuda_error(cudaError_t status, const char* expression, std::source_location where) {
  throw SystemError(std::string("CUDA error ") + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) +
                        ") in `" + expression + "` at " + describe_location(where),
                    where);
}

void throw_cublas_error(cublasStatus_t status, const char* expression, std::source_location where) {
  throw SystemError(std::string("cuBLAS error ") + cublasGetStatusName(status) + " (" +
                        cublasGetStatusString(status) + ") in `" + expression + "` at " + describe_location(where),
                    where);
}

}  // namespace vlb
