#include "harness/scaleout/device_list.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <numeric>

#include "harness/core/errors.hpp"

namespace vlb {

DeviceList parse_device_list(std::string_view text) {
  if (text == "all") return DeviceList{true, {}};
  DeviceList list;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view part = text.substr(start, comma == std::string_view::npos ? comma : comma - start);
    int ordinal = -1;
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), ordinal);
    if (part.empty() || error != std::errc() || end != part.data() + part.size() || ordinal < 0) {
      throw UsageError(fmt::format("--devices '{}': '{}' is not a GPU ordinal; write 'all' or ordinals such as 0,2,3",
                                   text, part));
    }
    if (std::find(list.ordinals.begin(), list.ordinals.end(), ordinal) != list.ordinals.end()) {
      throw UsageError(fmt::format("--devices '{}' names GPU {} twice: each GPU runs one worker", text, ordinal));
    }
    list.ordinals.push_back(ordinal);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return list;
}

std::vector<int> resolve_devices(const DeviceList& list, int available) {
  if (available == 0) {
    throw SystemError("no CUDA GPU found (cudaGetDeviceCount reports none, or no NVIDIA driver is loaded)");
  }
  if (list.all) {
    std::vector<int> every(available);
    std::iota(every.begin(), every.end(), 0);
    return every;
  }
  for (int ordinal : list.ordinals) {
    if (ordinal >= available) {
      throw UsageError(fmt::format("--devices {}: GPU {} does not exist: this machine has {} GPU(s), 0..{}",
                                   fmt::join(list.ordinals, ","), ordinal, available, available - 1));
    }
  }
  return list.ordinals;
}

}  // namespace vlb
