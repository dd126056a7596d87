#include "harness/isolation/driver_api.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "harness/core/errors.hpp"

namespace vlb {
namespace {

template <class Function>
void resolve(Function& function, const char* symbol) {
  void* pointer = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t status = cudaGetDriverEntryPointByVersion(symbol, &pointer, 12000, cudaEnableDefault, &found);
  if (status != cudaSuccess || found != cudaDriverEntryPointSuccess || pointer == nullptr) {
    throw SystemError(fmt::format("the CUDA driver has no {} ({}): vlbench needs a driver for CUDA 12 or newer",
                                  symbol, cudaGetErrorString(status)));
  }
  function = reinterpret_cast<Function>(pointer);
}

DriverApi load_driver_api() {
  DriverApi api{};
  resolve(api.mem_create, "cuMemCreate");
  resolve(api.mem_release, "cuMemRelease");
  resolve(api.mem_address_reserve, "cuMemAddressReserve");
  resolve(api.mem_address_free, "cuMemAddressFree");
  resolve(api.mem_map, "cuMemMap");
  resolve(api.mem_unmap, "cuMemUnmap");
  resolve(api.mem_set_access, "cuMemSetAccess");
  resolve(api.mem_export, "cuMemExportToShareableHandle");
  resolve(api.mem_import, "cuMemImportFromShareableHandle");
  resolve(api.mem_granularity, "cuMemGetAllocationGranularity");
  resolve(api.device_attribute, "cuDeviceGetAttribute");
  resolve(api.error_string, "cuGetErrorString");
  return api;
}

}  // namespace

const DriverApi& driver_api() {
  static const DriverApi api = load_driver_api();
  return api;
}

void check_driver(CUresult result, const char* what, std::source_location where) {
  if (result == CUDA_SUCCESS) return;
  const char* text = nullptr;
  if (driver_api().error_string(result, &text) != CUDA_SUCCESS || text == nullptr) text = "unknown error";
  throw SystemError(fmt::format("{}: {} (CUresult {})", what, text, static_cast<int>(result)), where);
}

}  // namespace vlb
