#include "harness/core/cublas_handle.hpp"

#include "harness/core/cuda_check.hpp"

namespace vlb {

CublasHandle::CublasHandle() { VLB_CUBLAS_CHECK(cublasCreate(&handle_)); }

CublasHandle::~CublasHandle() {
  if (handle_ != nullptr) (void)cublasDestroy(handle_);
}

void CublasHandle::bind(cudaStream_t stream, void* workspace) const {
  VLB_CUBLAS_CHECK(cublasSetStream(handle_, stream));
  VLB_CUBLAS_CHECK(cublasSetWorkspace(handle_, workspace, kCublasWorkspaceBytes));
}

}  // namespace vlb
