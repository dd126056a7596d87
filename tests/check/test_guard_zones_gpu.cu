// Guard zones catch and count writes just outside a buffer, on either side, per buffer; an untouched zone is clean;
// the scrambled workspace depends on the key only; many fingerprints in one pass equal one at a time.
#include <catch2/catch.hpp>

#include <vector>

#include "harness/check/guard_zones.hpp"
#include "harness/check/guards.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/core/device_buffer.hpp"
#include "support/gpu_test.hpp"

namespace {

// A buffer of `bytes` with room for its zones; `data` is where the guarded bytes start.
struct Guarded {
  explicit Guarded(std::size_t bytes) : allocation(bytes + 2 * vlb::kGuardZoneBytes), bytes(bytes) {}
  std::byte* data() const { return allocation.as<std::byte>() + vlb::kGuardZoneBytes; }
  vlb::DeviceBuffer allocation;
  std::size_t bytes;
};

std::vector<unsigned char> download(const void* device, std::size_t bytes) {
  std::vector<unsigned char> host(bytes);
  VLB_CUDA_CHECK(cudaMemcpy(host.data(), device, bytes, cudaMemcpyDeviceToHost));
  return host;
}

}  // namespace

TEST_CASE("guard zones count the bytes written before and after each buffer", "[check][guards][gpu]") {
  vlb::testing::TestStream stream;
  const Guarded output(4096 * 2 * 7), workspace(1000);  // a workspace of odd size: its end zone is unaligned
  const std::vector<vlb::GuardedBuffer> buffers = {{"output", output.data(), output.bytes},
                                                   {"workspace", workspace.data(), workspace.bytes}};
  const std::uint64_t key = 0x1234;
  vlb::arm_guard_zones(buffers, key, stream.get());
  // Writing inside the buffers, up to their last byte, is no damage.
  VLB_CUDA_CHECK(cudaMemsetAsync(output.data(), 0x11, output.bytes, stream.get()));
  VLB_CUDA_CHECK(cudaMemsetAsync(workspace.data(), 0x22, workspace.bytes, stream.get()));
  CHECK(vlb::inspect_guard_zones(buffers, key, stream.get()).empty());
  // Another key: every zone reads as damaged (the pattern depends on the key).
  const auto wrong_key = vlb::inspect_guard_zones(buffers, key + 1, stream.get());
  REQUIRE(wrong_key.size() == 2);
  CHECK(wrong_key[0].bytes_before > vlb::kGuardZoneBytes / 2);

  // 300 bytes after the output and 64 bytes before the workspace, with values the pattern may hold by chance.
  VLB_CUDA_CHECK(cudaMemsetAsync(output.data() + output.bytes, 0x5A, 300, stream.get()));
  VLB_CUDA_CHECK(cudaMemsetAsync(workspace.data() - 64, 0xA5, 64, stream.get()));
  const auto damage = vlb::inspect_guard_zones(buffers, key, stream.get());
  REQUIRE(damage.size() == 2);
  CHECK(damage[0].name == "output");
  CHECK(damage[0].bytes_before == 0);
  CHECK(damage[0].bytes_after > 280);
  CHECK(damage[0].bytes_after <= 300);
  CHECK(damage[1].name == "workspace");
  CHECK(damage[1].bytes_before > 55);
  CHECK(damage[1].bytes_before <= 64);
  CHECK(damage[1].bytes_after == 0);

  // Re-arming repairs the zones.
  vlb::arm_guard_zones(buffers, key + 2, stream.get());
  CHECK(vlb::inspect_guard_zones(buffers, key + 2, stream.get()).empty());
}

TEST_CASE("a scrambled buffer holds the key's bytes, another key's differ", "[check][guards][gpu]") {
  vlb::testing::TestStream stream;
  const std::size_t bytes = (std::size_t{1} << 20) + 5;
  vlb::DeviceBuffer buffer(bytes);
  VLB_CUDA_CHECK(cudaMemsetAsync(buffer.data(), 0, bytes, stream.get()));  // on the non-blocking stream: ordered
  vlb::scramble_bytes(buffer.data(), bytes, 77, stream.get());
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  const auto first = download(buffer.data(), bytes);
  vlb::scramble_bytes(buffer.data(), bytes, 77, stream.get());
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  CHECK(download(buffer.data(), bytes) == first);
  vlb::scramble_bytes(buffer.data(), bytes, 78, stream.get());
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  const auto second = download(buffer.data(), bytes);
  std::size_t same = 0, zero = 0;
  for (std::size_t i = 0; i < bytes; ++i) {
    same += first[i] == second[i];
    zero += first[i] == 0;
  }
  // Random bytes: about 1/256 of them agree by chance, and about 1/256 are zero (the tail included).
  CHECK(same < bytes / 128);
  CHECK(zero < bytes / 128);
}

TEST_CASE("fingerprints of many ranges in one pass equal one range at a time", "[check][guards][gpu]") {
  vlb::testing::TestStream stream;
  vlb::DeviceBuffer buffer(3 << 20);
  vlb::scramble_bytes(buffer.data(), buffer.bytes(), 5, stream.get());
  const auto* base = buffer.as<unsigned char>();
  const std::vector<const void*> data = {base, base + 3, base + (1 << 20), base + 17};
  const std::vector<std::size_t> bytes = {1 << 20, (1 << 20) - 3, 2 << 20, 0};
  std::vector<std::uint64_t> together(data.size());
  vlb::fingerprint_ranges(data, bytes, together, stream.get());
  for (std::size_t i = 0; i < data.size(); ++i) {
    INFO("range " << i);
    CHECK(together[i] == vlb::fingerprint_bytes(data[i], bytes[i], stream.get()));
  }
  CHECK(together[0] != together[1]);
}
