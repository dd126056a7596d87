#include "harness/isolation/shared_device_memory.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <utility>

#include "harness/core/errors.hpp"
#include "harness/isolation/driver_api.hpp"

namespace vlb {
namespace {

CUmemAllocationProp allocation_properties(int device) {
  CUmemAllocationProp properties{};
  properties.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  properties.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  properties.location.id = device;
  properties.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return properties;
}

std::size_t round_up(std::size_t bytes, std::size_t granule) { return (bytes + granule - 1) / granule * granule; }

}  // namespace

std::size_t shared_memory_granularity(int device) {
  const CUmemAllocationProp properties = allocation_properties(device);
  std::size_t granule = 0;
  check_driver(driver_api().mem_granularity(&granule, &properties, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
               "cuMemGetAllocationGranularity");
  return granule;
}

bool shared_memory_supported(int device) {
  int supported = 0;
  if (driver_api().device_attribute(&supported, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
                                    device) != CUDA_SUCCESS) {
    return false;
  }
  int vmm = 0;
  if (driver_api().device_attribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, device) !=
      CUDA_SUCCESS) {
    return false;
  }
  return supported != 0 && vmm != 0;
}

SharedDeviceMemory::SharedDeviceMemory(std::size_t bytes, int device) {
  mapped_bytes_ = round_up(bytes == 0 ? 1 : bytes, shared_memory_granularity(device));
  const CUmemAllocationProp properties = allocation_properties(device);
  check_driver(driver_api().mem_create(&handle_, mapped_bytes_, &properties, 0),
               fmt::format("cuMemCreate of {} bytes", mapped_bytes_).c_str());
  try {
    map(device);
  } catch (...) {
    release();
    throw;
  }
}

SharedDeviceMemory SharedDeviceMemory::import(UniqueFd exported, std::size_t mapped_bytes, int device) {
  SharedDeviceMemory memory;
  memory.mapped_bytes_ = mapped_bytes;
  check_driver(driver_api().mem_import(&memory.handle_,
                                       reinterpret_cast<void*>(static_cast<std::uintptr_t>(exported.get())),
                                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
               "cuMemImportFromShareableHandle");
  memory.map(device);  // on failure the destructor releases what was taken
  return memory;
}

void SharedDeviceMemory::map(int device) {
  const std::size_t granule = shared_memory_granularity(device);
  reserved_bytes_ = mapped_bytes_ + 2 * granule;
  check_driver(driver_api().mem_address_reserve(&reserved_, reserved_bytes_, granule, 0, 0), "cuMemAddressReserve");
  mapped_ = reserved_ + granule;
  check_driver(driver_api().mem_map(mapped_, mapped_bytes_, 0, handle_, 0), "cuMemMap");
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = device;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  check_driver(driver_api().mem_set_access(mapped_, mapped_bytes_, &access, 1), "cuMemSetAccess");
}

UniqueFd SharedDeviceMemory::export_fd() const {
  int fd = -1;
  check_driver(driver_api().mem_export(&fd, handle_, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
               "cuMemExportToShareableHandle");
  return UniqueFd(fd);
}

void SharedDeviceMemory::release() noexcept {
  if (mapped_ == 0 && reserved_ == 0 && handle_ == 0) return;
  const DriverApi& api = driver_api();
  if (mapped_ != 0) (void)api.mem_unmap(mapped_, mapped_bytes_);
  if (reserved_ != 0) (void)api.mem_address_free(reserved_, reserved_bytes_);
  if (handle_ != 0) (void)api.mem_release(handle_);
  mapped_ = reserved_ = 0;
  handle_ = 0;
}

SharedDeviceMemory::~SharedDeviceMemory() { release(); }

SharedDeviceMemory::SharedDeviceMemory(SharedDeviceMemory&& other) noexcept
    : handle_(std::exchange(other.handle_, 0)),
      reserved_(std::exchange(other.reserved_, 0)),
      reserved_bytes_(std::exchange(other.reserved_bytes_, 0)),
      mapped_(std::exchange(other.mapped_, 0)),
      mapped_bytes_(std::exchange(other.mapped_bytes_, 0)) {}

SharedDeviceMemory& SharedDeviceMemory::operator=(SharedDeviceMemory&& other) noexcept {
  if (this != &other) {
    release();
    handle_ = std::exchange(other.handle_, 0);
    reserved_ = std::exchange(other.reserved_, 0);
    reserved_bytes_ = std::exchange(other.reserved_bytes_, 0);
    mapped_ = std::exchange(other.mapped_, 0);
    mapped_bytes_ = std::exchange(other.mapped_bytes_, 0);
  }
  return *this;
}

}  // namespace vlb
