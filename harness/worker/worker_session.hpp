#pragma once
// The worker's side of one (solution, case), in the sandboxed worker process (vlbench-worker --serve): it maps the
// buffers the judge shares, loads the solution's module when told, and runs each call the judge prepares between its
// go and done (call_handshake.hpp), timed with events and CUPTI. It decides nothing: every claim it sends back is the
// judge's to check. Nothing here includes the reference or ever holds a reference output.
#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <vector>

#include "harness/core/device_info.hpp"
#include "harness/isolation/call_handshake.hpp"
#include "harness/isolation/channel.hpp"
#include "harness/isolation/shared_device_memory.hpp"
#include "harness/isolation/worker_protocol.hpp"
#include "harness/solution/solution_module.hpp"
#include "harness/worker/solution_opener.hpp"
#include "harness/timing/call_timer.hpp"
#include "harness/timing/kernel_breakdown.hpp"

namespace vlb {

class WorkerSession {
 public:
  WorkerSession(Channel& channel, CallHandshake& handshake, const DeviceInfo& device, cudaStream_t stream,
                CallTimer& timer, SolutionOpener opener);
  // Answers the judge's messages until `end`. Throws Error when the worker cannot go on (the caller reports a fault).
  void serve();

 private:
  void map_buffers(const ChannelMessage& message);
  void load(const protocol::LoadMessage& load);
  void run_call(const protocol::CallMessage& call);
  void send_spans(const protocol::SpansRequest& request);
  void* resolve(const protocol::BufferRef& ref) const;
  FusionArgs call_arguments(const protocol::CallMessage& call) const;

  Channel& channel_;
  CallHandshake& handshake_;
  const DeviceInfo& device_;
  cudaStream_t stream_;
  CallTimer& timer_;
  std::vector<SharedDeviceMemory> buffers_;
  SolutionOpener opener_;
  std::optional<OpenedSolution> opened_;
  ProblemShape shape_;
  std::vector<std::pair<std::uint64_t, int>> traced_;  // (call, CUPTI index) of the traced calls
  ShortKernelNames short_names_;
};

// The folders a worker may write in: its own scratch, and (Python packages) the folder where the frameworks of one
// package's workers keep their compile caches across that package's cases.
struct WorkerFolders {
  std::filesystem::path scratch;
  std::filesystem::path shared_cache;  // empty: none
};

// The whole worker process: CUDA up on `device`, CUPTI started, the sandbox entered, then serve() with `opener`.
// Returns the process's exit code; whatever stops it is reported to the judge as a fault first.
int serve_judge(int channel_fd, int handshake_fd, const WorkerFolders& folders, int device,
                const SolutionOpener& opener);

// The describer (vlbench-worker --describe): sandboxed, it loads each module and prints the modules' descriptions as
// JSON on stdout (plan/solution_catalog.hpp reads them).
int describe_modules(const std::filesystem::path& scratch, const std::vector<std::filesystem::path>& modules);

}  // namespace vlb
