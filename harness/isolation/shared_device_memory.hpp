#pragma once
// Device memory the judge owns and hands to a worker: one allocation of CUDA's virtual memory management, exportable
// as a POSIX file descriptor (passed over the worker's channel). Each process maps it into an address reservation of
// its own that is one allocation granule larger on each side, left unmapped, so that an access past either end of the
// buffer faults instead of landing in another buffer; guard zones (check/guard_zones.hpp) catch small overruns inside
// the mapped granules. The judge keeps the physical memory alive: a worker that dies leaves it readable.
#include <cuda.h>

#include <cstddef>

#include "harness/isolation/unique_fd.hpp"

namespace vlb {

// The allocation granule of `device` for exportable memory (2 MiB on Hopper).
std::size_t shared_memory_granularity(int device);
// Whether `device` can export memory as file descriptors (CUDA IPC through the virtual memory API).
bool shared_memory_supported(int device);

class SharedDeviceMemory {
 public:
  // The judge's side: `bytes` rounded up to the granularity, mapped here.
  SharedDeviceMemory(std::size_t bytes, int device);
  // The worker's side: the allocation behind `exported` (mapped_bytes() of the judge's), mapped here.
  static SharedDeviceMemory import(UniqueFd exported, std::size_t mapped_bytes, int device);
  ~SharedDeviceMemory();
  SharedDeviceMemory(SharedDeviceMemory&& other) noexcept;
  SharedDeviceMemory& operator=(SharedDeviceMemory&& other) noexcept;
  SharedDeviceMemory(const SharedDeviceMemory&) = delete;
  SharedDeviceMemory& operator=(const SharedDeviceMemory&) = delete;

  void* data() const { return reinterpret_cast<void*>(mapped_); }
  std::size_t mapped_bytes() const { return mapped_bytes_; }
  // A new descriptor for the worker (the caller closes it once sent).
  UniqueFd export_fd() const;

 private:
  SharedDeviceMemory() = default;
  void map(int device);
  void release() noexcept;

  CUmemGenericAllocationHandle handle_ = 0;
  CUdeviceptr reserved_ = 0;
  std::size_t reserved_bytes_ = 0;
  CUdeviceptr mapped_ = 0;
  std::size_t mapped_bytes_ = 0;
};

}  // namespace vlb
