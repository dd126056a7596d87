#include "harness/judge/worker_host.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "harness/isolation/sandbox.hpp"
#include "harness/plan/extension_build.hpp"

namespace vlb {
namespace {

constexpr const char* kWorker = "the worker";

double elapsed_ms(SteadyClock::time_point from, SteadyClock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

// What a span message claims, as a call's activity; ChannelError when its records do not fit it.
CallActivity activity_of(const protocol::SpanMessage& span) {
  CallActivity activity;
  activity.first_start_ns = span.first_start_ns;
  activity.last_end_ns = span.last_end_ns;
  activity.record_count = span.record_count;
  activity.names.insert(span.names.begin(), span.names.end());
  activity.last_ending_name = span.last_ending_name;
  for (const protocol::SpanRecord& record : span.records) {
    const bool known_name = record.name >= 0 && static_cast<std::size_t>(record.name) < span.names.size();
    const bool inside = record.start_ns <= record.end_ns && record.start_ns >= span.first_start_ns &&
                        record.end_ns <= span.last_end_ns;
    const bool dims = (record.grid.empty() && record.block.empty()) || (record.grid.size() == 3 && record.block.size() == 3);
    if (!known_name || !inside || !dims) {
      throw ChannelError(fmt::format("call {}'s span holds a record outside it or of no name", span.call));
    }
    ActivityRecord kept;
    kept.name = span.names[static_cast<std::size_t>(record.name)];
    if (span.display_names.size() == span.names.size()) {
      kept.display_name = span.display_names[static_cast<std::size_t>(record.name)];
    }
    kept.start_ns = record.start_ns;
    kept.end_ns = record.end_ns;
    if (!record.grid.empty()) {
      std::copy(record.grid.begin(), record.grid.end(), kept.grid.begin());
      std::copy(record.block.begin(), record.block.end(), kept.block.begin());
    }
    activity.records.push_back(std::move(kept));
  }
  return activity;
}

// One folder per Python package for the life of this vlbench, where its workers' frameworks keep their compile
// caches (Triton's, Inductor's): a case's worker finds what the package's earlier cases compiled, as a framework's
// cache would in one process. It is removed when vlbench exits.
std::filesystem::path framework_cache_for(const CatalogEntry& entry) {
  static std::mutex lock;
  static std::map<std::string, std::unique_ptr<ScratchDir>> folders;
  const std::lock_guard<std::mutex> held(lock);
  std::unique_ptr<ScratchDir>& folder = folders[entry.source_file];
  if (!folder) folder = std::make_unique<ScratchDir>("framework-cache");
  return folder->path();
}

// A C++ group package's module, built once per vlbench (the cache spares later runs the build); its failure too, which
// every case of the package then reports.
std::filesystem::path extension_for(const CatalogEntry& entry, int compute_capability) {
  struct Outcome {
    std::filesystem::path module;
    std::optional<BuildFailure> failure;
  };
  static std::mutex lock;
  static std::map<std::string, Outcome> outcomes;
  const std::lock_guard<std::mutex> held(lock);
  const std::string key = fmt::format("{}@{}", entry.source_file, compute_capability);
  auto found = outcomes.find(key);
  if (found == outcomes.end()) {
    Outcome outcome;
    try {
      fmt::print(stderr, "vlbench: building {} as a torch extension (cached in {}) ...\n", entry.info.name,
                 extension_cache_root().string());
      const auto started = SteadyClock::now();
      const BuiltExtension built = build_extension(*entry.package, compute_capability);
      const double seconds = elapsed_ms(started, SteadyClock::now()) / 1000;
      fmt::print(stderr, "vlbench: {} {}: {}\n", entry.info.name,
                 built.cached ? "was built before" : fmt::format("built in {:.1f} s", seconds), built.module.string());
      outcome.module = built.module;
    } catch (const BuildFailure& failure) {
      outcome.failure = failure;
    }
    found = outcomes.emplace(key, std::move(outcome)).first;
  }
  if (found->second.failure) throw *found->second.failure;
  return found->second.module;
}

}  // namespace

WorkerCommand worker_command_for(const CatalogEntry& entry, int compute_capability) {
  if (!entry.is_python_package()) return {worker_executable(), {"vlbench-worker"}, {}, {}};
  // -B: no bytecode written beside the package's sources (the sandbox would refuse it anyway).
  WorkerCommand command{python_interpreter(), {"python3", "-B", python_worker_program().string()},
                        framework_cache_for(entry), {}};
  if (entry.builds_extension()) command.extension = extension_for(entry, compute_capability);
  return command;
}

WorkerHost::WorkerHost(int device, double case_timeout_s) : WorkerHost(worker_executable(), device, case_timeout_s) {}

WorkerHost::WorkerHost(const std::filesystem::path& executable, int device, double case_timeout_s)
    : WorkerHost(WorkerCommand{executable, {"vlbench-worker"}, {}, {}}, device, case_timeout_s) {}

WorkerHost::WorkerHost(const WorkerCommand& command, int device, double case_timeout_s)
    : scratch_("worker"),
      log_(scratch_.path() / "worker.log"),
      deadline_(SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(
                                         std::chrono::duration<double>(case_timeout_s))),
      case_timeout_s_(case_timeout_s),
      extension_(command.extension),
      handshake_(CallHandshake::create()) {
  auto [judge_end, worker_end] = Channel::create_pair();
  channel_.emplace(std::move(judge_end));
  const std::filesystem::path sandbox_scratch = scratch_.path() / "scratch";
  std::filesystem::create_directory(sandbox_scratch);
  std::vector<std::string> arguments = command.arguments;
  arguments.insert(arguments.end(), {"--serve", sandbox_scratch.string(), std::to_string(device)});
  if (!command.shared_cache.empty()) arguments.push_back(command.shared_cache.string());
  worker_ = std::make_unique<ChildProcess>(command.executable, arguments,
                                           ChildOptions{log_, std::nullopt, {worker_end.fd(), handshake_.fd()}});
  hello_ = expect<protocol::HelloMessage>();
}

WorkerHost::~WorkerHost() = default;  // the ChildProcess kills a worker still running

bool WorkerHost::keep_waiting() { return !worker_->poll().has_value() && !channel_->readable(); }

JsonDocument WorkerHost::next_message() {
  try {
    std::optional<ChannelMessage> message = channel_->receive(deadline_);
    if (!message) timed_out();
    return std::move(message->body);
  } catch (const ChannelClosed&) {
    worker_gone();
  } catch (const ChannelError& error) {
    broke_protocol(error.message());
  }
}

template <class Message>
Message WorkerHost::expect() {
  const JsonDocument body = next_message();
  if (protocol::message_type(body) != Message{}.type) fail_on(body);
  try {
    return protocol::read_message<Message>(body, kWorker);
  } catch (const ChannelError& error) {
    broke_protocol(error.message());
  }
}

void WorkerHost::fail_on(const JsonDocument& body) {
  const std::string type = protocol::message_type(body);
  try {
    if (type == "fault") throw HostFailure(CaseStatus::kRuntimeError, protocol::read_message<protocol::FaultMessage>(body, kWorker).reason);
    if (type == "refused") {
      const auto refused = protocol::read_message<protocol::RefusedMessage>(body, kWorker);
      throw HostFailure(CaseStatus::kRuntimeError,
                        fmt::format("the sandbox refused the solution's {} system call, and the worker was stopped "
                                    "(a solution may not trace, read or signal other processes, open sockets or "
                                    "mount: docs/threat-model.md)", refused.syscall));
    }
  } catch (const ChannelError& error) {
    broke_protocol(error.message());
  }
  broke_protocol(fmt::format("a '{}' message out of turn", type.empty() ? "typeless" : type));
}

void WorkerHost::worker_gone() {
  std::optional<int> status = worker_->wait_for(5.0);
  const std::string exit = status ? describe_exit(*status) : "stopped answering";
  const std::string tail = last_lines(log_, 3);
  throw HostFailure(CaseStatus::kRuntimeError, tail.empty() ? fmt::format("the worker {} without a result", exit)
                                                            : fmt::format("the worker {} without a result: {}", exit, tail));
}

void WorkerHost::timed_out() {
  worker_->kill();
  throw HostFailure(CaseStatus::kTimeout,
                    fmt::format("the case ran past its {:.0f} s limit and its worker was killed", case_timeout_s_));
}

void WorkerHost::broke_protocol(const std::string& what) {
  worker_->kill();
  throw HostFailure(CaseStatus::kRewardHack,
                    fmt::format("the worker broke the judge's protocol ({}): vlbench's own worker never does, so solution "
                                "code interfered with it", what));
}

void WorkerHost::share(const CallPlacements& placements, std::size_t first) {
  const auto& allocations = placements.allocations();
  protocol::BuffersMessage message;
  std::vector<UniqueFd> exported;
  std::vector<int> fds;
  for (std::size_t i = first; i < allocations.size(); ++i) {
    message.buffers.push_back({CallPlacements::allocation_name(static_cast<int>(i)), allocations[i].mapped_bytes()});
    exported.push_back(allocations[i].export_fd());
    fds.push_back(exported.back().get());
  }
  if (fds.empty()) return;
  share_buffers(message, fds);
}

void WorkerHost::share_buffers(const protocol::BuffersMessage& message, const std::vector<int>& fds) {
  protocol::send_message(*channel_, message, fds);
  shared_ += message.buffers.size();
  const auto mapped = expect<protocol::MappedMessage>();
  if (mapped.count != static_cast<int>(shared_)) {
    broke_protocol(fmt::format("it reports {} buffers mapped, {} were shared", mapped.count, shared_));
  }
}

HostLoad WorkerHost::load(const CatalogEntry& entry, const ProblemShape& shape) {
  const protocol::LoadMessage message{.module = entry.module.string(),
                                      .solution = entry.info.name,
                                      .shape = shape,
                                      .entry_point = entry.entry_point,
                                      .destination_passing_style = entry.destination_passing_style,
                                      .extension = extension_.string()};
  protocol::send_message(*channel_, message);
  const auto loaded = expect<protocol::LoadedMessage>();
  return {loaded.unsupported_reason, static_cast<std::size_t>(loaded.workspace_bytes)};
}

HostCall WorkerHost::call(std::uint64_t call, protocol::CallKind kind, const CallPlacements& placements, int placement,
                          const std::function<void()>& on_done) {
  protocol::CallMessage message;
  message.call = call;
  message.kind = kind;
  if (kind == protocol::CallKind::kCalibration) {
    message.output = placements.output_ref(placement);
  } else {
    placements.describe_call(placement, message);
  }
  return run_call(message, on_done);
}

HostCall WorkerHost::run_call(const protocol::CallMessage& message, const std::function<void()>& on_done) {
  const std::uint64_t call = message.call;
  if (channel_->readable()) fail_on(next_message());  // a message nobody asked for
  protocol::send_message(*channel_, message);

  const auto waiting = [&] { return keep_waiting(); };
  const WaitOutcome ready = handshake_.wait_ready(call, deadline_, waiting);
  if (ready == WaitOutcome::kTimedOut) timed_out();
  if (ready == WaitOutcome::kGiveUp) fail_on(next_message());
  if (handshake_.done_slot() >= call) broke_protocol(fmt::format("it reported call {} done before its go", call));

  HostCall result;
  const SteadyClock::time_point go = handshake_.go(call);
  const WaitOutcome done = handshake_.wait_done(call, deadline_, waiting);
  if (done == WaitOutcome::kTimedOut) timed_out();
  if (done == WaitOutcome::kGiveUp) fail_on(next_message());
  if (on_done) on_done();  // the judge's own read of the output: an early done leaves poisoned elements there
  result.outside_ms = elapsed_ms(go, SteadyClock::now());

  const auto called = expect<protocol::CalledMessage>();
  if (called.call != call) broke_protocol(fmt::format("it answered call {} for call {}", called.call, call));
  if (!called.failure && !(std::isfinite(called.event_ms) && called.event_ms >= 0)) {
    broke_protocol(fmt::format("call {} took {} ms by its events", call, called.event_ms));
  }
  result.event_ms = called.event_ms;
  result.stop_observed_ns = called.stop_observed_ns;
  result.failure = called.failure;
  return result;
}

std::vector<CallActivity> WorkerHost::activities(const std::vector<std::uint64_t>& calls) {
  if (!hello_.cupti_available || calls.empty()) return {};
  protocol::send_message(*channel_, protocol::SpansRequest{.calls = calls});
  std::vector<CallActivity> found;
  for (;;) {
    const JsonDocument body = next_message();
    if (protocol::message_type(body) == "spans_done") break;
    if (protocol::message_type(body) != "span") fail_on(body);
    protocol::SpanMessage span;
    try {
      span = protocol::read_message<protocol::SpanMessage>(body, kWorker);
    } catch (const ChannelError& error) {
      broke_protocol(error.message());
    }
    if (found.size() >= calls.size() || span.call != calls[found.size()]) {
      broke_protocol(fmt::format("a span for call {} out of order", span.call));
    }
    if (span.record_count > 0 && span.last_end_ns < span.first_start_ns) {
      broke_protocol(fmt::format("call {}'s span ends before it starts", span.call));
    }
    try {
      found.push_back(activity_of(span));
    } catch (const ChannelError& error) {
      broke_protocol(error.message());
    }
  }
  if (found.size() != calls.size()) {
    broke_protocol(fmt::format("{} spans came back for {} traced calls", found.size(), calls.size()));
  }
  return found;
}

void WorkerHost::finish() {
  if (worker_->poll()) return;
  try {
    if (channel_->readable()) fail_on(next_message());
    protocol::send_message(*channel_, protocol::EndMessage{});
  } catch (const ChannelClosed&) {
    worker_gone();
  }
  const std::optional<int> status = worker_->wait_for(10.0);
  if (!status) {
    worker_->kill();
    return;
  }
  if (!exited_normally(*status, 0)) worker_gone();
}

}  // namespace vlb
