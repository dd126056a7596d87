#pragma once
// --no-isolation: the solution runs in the judge's own process, its module loaded here. A trusted mode, for debugging
// one's own code (one process under a debugger): nothing stops solution code from reading or patching the judge's
// memory, so its results say isolation: false.
#include <memory>
#include <optional>

#include "harness/core/cuda_stream.hpp"
#include "harness/core/device_info.hpp"
#include "harness/judge/solution_host.hpp"
#include "harness/solution/solution_module.hpp"
#include "harness/timing/call_timer.hpp"

namespace vlb {

class LocalHost final : public SolutionHost {
 public:
  // `nvtx_ranges`: each call in an NVTX range named after its kind ("vlbench: timed call", ...).
  LocalHost(const DeviceInfo& device, CallTimer& timer, bool nvtx_ranges = false);
  bool isolated() const override { return false; }
  bool cupti_available() const override { return timer_.cupti_available(); }
  void share(const CallPlacements&, std::size_t) override {}
  HostLoad load(const CatalogEntry& entry, const ProblemShape& shape) override;
  HostCall call(std::uint64_t call, protocol::CallKind kind, const CallPlacements& placements, int placement,
                const std::function<void()>& on_done) override;
  std::vector<CallActivity> activities(const std::vector<std::uint64_t>& calls) override;
  void finish() override {}

 private:
  const DeviceInfo& device_;
  CallTimer& timer_;
  bool nvtx_ranges_;
  CudaStream stream_;
  ProblemShape shape_;
  std::shared_ptr<SolutionModule> module_;
  std::optional<SolutionPtr> solution_;
  std::vector<std::pair<std::uint64_t, int>> traced_;
};

}  // namespace vlb
