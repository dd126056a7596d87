#pragma once
// A minimal parallel loop for the CPU references: [0, count) cut into one contiguous range per hardware thread.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace vlb::reference {

template <class RangeFunction>  // void(std::int64_t begin, std::int64_t end)
void parallel_for(std::int64_t count, RangeFunction&& function) {
  const std::int64_t threads =
      std::clamp<std::int64_t>(static_cast<std::int64_t>(std::thread::hardware_concurrency()), 1, 64);
  const std::int64_t workers = std::min(threads, std::max<std::int64_t>(count, 1));
  if (workers <= 1) {
    function(std::int64_t{0}, count);
    return;
  }
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(workers));
  const std::int64_t step = (count + workers - 1) / workers;
  for (std::int64_t w = 0; w < workers; ++w) {
    const std::int64_t begin = std::min(count, w * step);
    const std::int64_t end = std::min(count, begin + step);
    pool.emplace_back([&, w, begin, end] {
      try {
        function(begin, end);
      } catch (...) {
        errors[static_cast<std::size_t>(w)] = std::current_exception();
      }
    });
  }
  for (auto& thread : pool) thread.join();
  for (auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace vlb::reference
