#pragma once
// An owning cuBLAS handle (created once, outside any timed call), and the workspace cuBLAS gets from ours.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace vlb {

// cuBLAS's recommended workspace on Hopper and Blackwell; given explicitly so that cuBLAS never allocates in run().
inline constexpr std::size_t kCublasWorkspaceBytes = std::size_t{32} << 20;

class CublasHandle {
 public:
  CublasHandle();
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

  // Points the handle at `stream` and at `workspace` (kCublasWorkspaceBytes bytes). The order matters:
  // cublasSetStream resets the workspace to cuBLAS's own pool.
  void bind(cudaStream_t stream, void* workspace) const;

 private:
  cublasHandle_t handle_ = nullptr;
};

// Rounds `bytes` up to the 256-byte alignment every workspace slice keeps.
constexpr std::size_t align_256(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

}  // namespace vlb
