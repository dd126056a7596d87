#pragma once
// The few CUDA driver functions vlbench calls itself (virtual memory management, for buffers shared with a worker),
// found through the runtime (cudaGetDriverEntryPointByVersion), so that no vlbench binary links libcuda: one that
// does would not even start on a machine without a driver, where --list and --dry-run must still work.
#include <cuda.h>

#include <source_location>

namespace vlb {

struct DriverApi {
  CUresult (*mem_create)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*, unsigned long long);
  CUresult (*mem_release)(CUmemGenericAllocationHandle);
  CUresult (*mem_address_reserve)(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long);
  CUresult (*mem_address_free)(CUdeviceptr, size_t);
  CUresult (*mem_map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
  CUresult (*mem_unmap)(CUdeviceptr, size_t);
  CUresult (*mem_set_access)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t);
  CUresult (*mem_export)(void*, CUmemGenericAllocationHandle, CUmemAllocationHandleType, unsigned long long);
  CUresult (*mem_import)(CUmemGenericAllocationHandle*, void*, CUmemAllocationHandleType);
  CUresult (*mem_granularity)(size_t*, const CUmemAllocationProp*, CUmemAllocationGranularity_flags);
  CUresult (*device_attribute)(int*, CUdevice_attribute, CUdevice);
  CUresult (*error_string)(CUresult, const char**);
};

// Resolved once (the CUDA runtime must be initialised on some device first); SystemError when one is missing.
const DriverApi& driver_api();

// Throws SystemError "<what>: <driver's message> (CUresult N)" unless `result` is CUDA_SUCCESS.
void check_driver(CUresult result, const char* what, std::source_location where = std::source_location::current());

}  // namespace vlb
