#include "harness/worker/worker_session.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "harness/core/cuda_check.hpp"
#include "harness/core/cuda_stream.hpp"
#include "harness/core/errors.hpp"
#include "harness/inputs/input_set.hpp"
#include "harness/isolation/sandbox.hpp"
#include "harness/timing/kernel_breakdown.hpp"
#include "harness/worker/calibration_call.hpp"
#include "harness/worker/solution_call.hpp"

namespace vlb {
namespace {

constexpr const char* kJudge = "the judge";

protocol::SandboxRecord sandbox_record(const SandboxReport& report) {
  return {report.landlock_abi, report.seccomp, report.enforced, report.missing};
}

protocol::SpanMessage span_message(std::uint64_t call, const CallActivity& activity, ShortKernelNames& short_names) {
  protocol::SpanMessage span;
  span.call = call;
  span.first_start_ns = activity.first_start_ns;
  span.last_end_ns = activity.last_end_ns;
  span.record_count = activity.record_count;
  for (const std::string& name : activity.names) {
    span.names.push_back(protocol::span_name(name));
    span.display_names.push_back(short_names.of(name));
  }
  span.last_ending_name = protocol::span_name(activity.last_ending_name);
  if (activity.records.size() > protocol::kMaxSpanRecords) return span;
  for (const ActivityRecord& record : activity.records) {
    const auto found = std::find(span.names.begin(), span.names.end(), protocol::span_name(record.name));
    protocol::SpanRecord sent{static_cast<int>(found - span.names.begin()), record.start_ns, record.end_ns, {}, {}};
    if (record.grid[0] > 0) {
      sent.grid.assign(record.grid.begin(), record.grid.end());
      sent.block.assign(record.block.begin(), record.block.end());
    }
    span.records.push_back(std::move(sent));
  }
  return span;
}

}  // namespace

WorkerSession::WorkerSession(Channel& channel, CallHandshake& handshake, const DeviceInfo& device, cudaStream_t stream,
                             CallTimer& timer, SolutionOpener opener)
    : channel_(channel), handshake_(handshake), device_(device), stream_(stream), timer_(timer),
      opener_(std::move(opener)) {}

void WorkerSession::serve() {
  for (;;) {
    ChannelMessage message = channel_.receive();
    const std::string type = protocol::message_type(message.body);
    if (type == "buffers") {
      map_buffers(message);
    } else if (type == "load") {
      load(protocol::read_message<protocol::LoadMessage>(message.body, kJudge));
    } else if (type == "call") {
      run_call(protocol::read_message<protocol::CallMessage>(message.body, kJudge));
    } else if (type == "spans") {
      send_spans(protocol::read_message<protocol::SpansRequest>(message.body, kJudge));
    } else if (type == "end") {
      return;
    } else {
      throw ChannelError(fmt::format("the judge sent a message of unknown type '{}'", type));
    }
  }
}

void WorkerSession::map_buffers(const ChannelMessage& message) {
  const auto request = protocol::read_message<protocol::BuffersMessage>(message.body, kJudge);
  if (request.buffers.size() != message.fds.size()) {
    throw ChannelError(fmt::format("{} buffers came with {} descriptors", request.buffers.size(), message.fds.size()));
  }
  for (std::size_t i = 0; i < request.buffers.size(); ++i) {
    UniqueFd fd(const_cast<UniqueFd&>(message.fds[i]).release());
    buffers_.push_back(SharedDeviceMemory::import(std::move(fd), request.buffers[i].mapped_bytes, device_.ordinal));
  }
  protocol::send_message(channel_, protocol::MappedMessage{.count = static_cast<int>(buffers_.size())});
}

void WorkerSession::load(const protocol::LoadMessage& load) {
  opened_.emplace(opener_(load, stream_));
  shape_ = load.shape;
  Solution& solution = *opened_->solution;
  protocol::LoadedMessage loaded;
  loaded.unsupported_reason = guard_solution_call(
      "unsupported_reason", [&] { return solution.unsupported_reason(device_, shape_); });
  if (!loaded.unsupported_reason) {
    loaded.workspace_bytes = guard_solution_call("workspace_bytes", [&] { return solution.workspace_bytes(shape_); });
  }
  protocol::send_message(channel_, loaded);
}

void* WorkerSession::resolve(const protocol::BufferRef& ref) const {
  if (ref.buffer < 0 || static_cast<std::size_t>(ref.buffer) >= buffers_.size()) {
    throw ChannelError(fmt::format("a call names buffer {} of {}", ref.buffer, buffers_.size()));
  }
  const SharedDeviceMemory& buffer = buffers_[static_cast<std::size_t>(ref.buffer)];
  if (ref.offset > buffer.mapped_bytes() || ref.bytes > buffer.mapped_bytes() - ref.offset) {
    throw ChannelError(fmt::format("a call's range {}+{} lies outside buffer {}", ref.offset, ref.bytes, ref.buffer));
  }
  return static_cast<std::byte*>(buffer.data()) + ref.offset;
}

FusionArgs WorkerSession::call_arguments(const protocol::CallMessage& call) const {
  if (call.inputs.size() != static_cast<std::size_t>(kNumInputs)) {
    throw ChannelError(fmt::format("a call with {} inputs, {} expected", call.inputs.size(), kNumInputs));
  }
  std::array<const void*, kNumInputs> inputs{};
  for (int i = 0; i < kNumInputs; ++i) inputs[i] = resolve(call.inputs[static_cast<std::size_t>(i)]);
  void* workspace = call.workspace ? resolve(*call.workspace) : nullptr;
  return make_fusion_args(shape_, make_fusion_inputs(shape_, inputs), static_cast<bf16*>(resolve(call.output)),
                          workspace, call.workspace ? call.workspace->bytes : 0, stream_);
}

void WorkerSession::run_call(const protocol::CallMessage& call) {
  const bool calibration = call.kind == protocol::CallKind::kCalibration;
  if (!calibration && !opened_) throw ChannelError("a call before the solution was loaded");
  const FusionArgs args = calibration ? FusionArgs{} : call_arguments(call);
  const bool trace = calibration || call.kind == protocol::CallKind::kTimed;
  std::optional<std::string> preparation_failure;
  if (!calibration && opened_->prepare_call) {
    try {
      guard_solution_call("call preparation", [&] { opened_->prepare_call(args); });
    } catch (const SolutionFault& fault) {
      preparation_failure = fault.what();
    }
  }

  handshake_.mark_ready(call.call);
  const auto keep_waiting = [&] { return !channel_.readable(); };  // a message now: the judge gave up on the call
  if (handshake_.wait_go(call.call, keep_waiting) != WaitOutcome::kSeen) {
    throw ChannelError(fmt::format("the judge never gave the go for call {}", call.call));
  }
  protocol::CalledMessage called;
  called.call = call.call;
  try {
    const CallTiming timing = timer_.time(stream_, trace, [&] {
      if (calibration) {
        launch_calibration_call(stream_);
      } else if (preparation_failure) {
        throw SolutionFault(*preparation_failure);
      } else {
        guard_solution_call("run", [&] { opened_->solution->run(args); });
      }
    });
    called.event_ms = timing.event_ms;
    called.stop_observed_ns = timing.stop_observed_ns;
    if (timing.activity_index >= 0) traced_.emplace_back(call.call, timing.activity_index);
  } catch (const SolutionFault& fault) {
    called.failure = fault.what();
  } catch (const Error& error) {
    called.failure = fmt::format("CUDA error during the solution's call: {}", error.message());
  }
  handshake_.mark_done(call.call);
  protocol::send_message(channel_, called);
}

void WorkerSession::send_spans(const protocol::SpansRequest& request) {
  std::vector<int> indices;
  std::vector<std::uint64_t> calls;
  for (const std::uint64_t call : request.calls) {
    for (const auto& [traced_call, index] : traced_) {
      if (traced_call != call) continue;
      indices.push_back(index);
      calls.push_back(call);
    }
  }
  const std::vector<CallActivity> activities = timer_.activities(indices);
  for (std::size_t i = 0; i < activities.size(); ++i) {
    const CallActivity& activity = activities[i];
    protocol::send_message(channel_, span_message(calls[i], activity, short_names_));
  }
  protocol::send_message(channel_, protocol::SpansDoneMessage{});
}

OpenedSolution open_module_solution(const protocol::LoadMessage& load, cudaStream_t) {
  std::shared_ptr<SolutionModule> module = SolutionModule::open(load.module);
  try {
    return {module, module->create(load.solution), {}};
  } catch (const Error& error) {
    throw SolutionFault(error.message());
  }
}

int serve_judge(int channel_fd, int handshake_fd, const WorkerFolders& folders, int device,
                const SolutionOpener& opener) {
  const std::filesystem::path& scratch = folders.scratch;
  Channel channel{UniqueFd(channel_fd)};
  try {
    CallHandshake handshake = CallHandshake::attach(UniqueFd(handshake_fd));
    VLB_CUDA_CHECK(cudaSetDevice(device));
    VLB_CUDA_CHECK(cudaFree(nullptr));  // the context, before the sandbox closes the device files' doors
    const DeviceInfo info = query_device(device);
    const CudaStream stream;
    CallTimer timer;
    // Where libraries put their temporary files and caches (a JIT's, a compiler's): the one folder it may write.
    setenv("TMPDIR", scratch.c_str(), 1);
    setenv("CUDA_CACHE_PATH", (scratch / "cuda-cache").c_str(), 1);
    const SandboxReport sandbox = enter_sandbox({scratch, folders.shared_cache, channel.fd()});
    protocol::HelloMessage hello;
    hello.pid = getpid();
    hello.sandbox = sandbox_record(sandbox);
    hello.cupti_available = timer.cupti_available();
    hello.cupti_unavailable_reason = timer.cupti_unavailable_reason();
    protocol::send_message(channel, hello);
    WorkerSession(channel, handshake, info, stream.get(), timer, opener).serve();
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "vlbench-worker: %s\n", error.what());
    try {
      protocol::send_message(channel, protocol::FaultMessage{.reason = error.what()});
    } catch (...) {
      // The judge is gone: nobody to tell.
    }
    return 1;
  }
}

}  // namespace vlb
