#pragma once
// The messages between the judge and a worker (channel.hpp), one JSON object each with a "type", spelled once here
// for both sides (and for a worker in another language). The judge drives; the worker answers:
//   worker: hello                 (CUDA up, sandbox entered; what held)
//   judge:  buffers + fds  ->  worker: mapped        (the output placements first, the workspace later)
//   judge:  call (calibration) ... the go/done handshake (call_handshake.hpp) ...  worker: called
//   judge:  load           ->  worker: loaded        (the solution's module opened, the solution constructed)
//   judge:  call (round | warmup | timed) ... handshake ...  worker: called
//   judge:  spans          ->  worker: span per call, then spans_done (CUPTI records, read once after timing)
//   judge:  end            ->  the worker exits 0
// At any point the worker may instead send `fault` (it cannot go on) or `refused` (the sandbox stopped it) and exit.
// Everything the worker sends is a claim: the judge validates every field and decides nothing on it alone.
#include <fmt/format.h>

#include <cstdint>
#include <span>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "harness/core/json_fields.hpp"
#include "harness/core/problem.hpp"
#include "harness/report/results_schema.hpp"  // JsonFields<ProblemShape>

namespace vlb::protocol {

// Where a tensor lies for one call: a shared buffer (index in the order the buffers were sent) and an offset in it.
struct BufferRef {
  int buffer = -1;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
};

struct SharedBuffer {
  std::string name;  // "output", "q_proj_weight", ... (for messages)
  std::uint64_t mapped_bytes = 0;
};

struct BuffersMessage {  // judge -> worker, with one fd per buffer in the same order
  std::string type = "buffers";
  std::vector<SharedBuffer> buffers;
};

enum class CallKind { kCalibration, kRound, kWarmup, kTimed };

struct CallMessage {  // judge -> worker
  std::string type = "call";
  std::uint64_t call = 0;  // the handshake's number (from 1)
  CallKind kind = CallKind::kRound;
  std::vector<BufferRef> inputs;  // the eleven inputs, in the definition's order (empty for a calibration)
  BufferRef output;
  std::optional<BufferRef> workspace;
};

struct LoadMessage {  // judge -> worker
  std::string type = "load";
  std::string module;  // the solution module's path, or a Python package's folder
  std::string solution;
  ProblemShape shape;
  std::string entry_point;  // a Python package's "<file>.py::<function>"; empty for a module
  bool destination_passing_style = true;  // a Python package's: false when its entry point returns the output
  std::string extension;  // a C++ group package's built module (benchmark_kernel.so); empty otherwise
};

struct SpansRequest {  // judge -> worker
  std::string type = "spans";
  std::vector<std::uint64_t> calls;
};

struct EndMessage {
  std::string type = "end";
};

struct SandboxRecord {
  int landlock_abi = 0;
  bool seccomp = false;
  std::vector<std::string> enforced;
  std::vector<std::string> missing;
};

struct HelloMessage {  // worker -> judge
  std::string type = "hello";
  std::int64_t pid = 0;
  SandboxRecord sandbox;
  bool cupti_available = false;
  std::string cupti_unavailable_reason;
};

struct MappedMessage {
  std::string type = "mapped";
  int count = 0;
};

struct LoadedMessage {  // worker -> judge
  std::string type = "loaded";
  std::optional<std::string> unsupported_reason;  // set: the case is SKIPPED with it
  std::uint64_t workspace_bytes = 0;
};

struct CalledMessage {  // worker -> judge, after done
  std::string type = "called";
  std::uint64_t call = 0;
  double event_ms = 0;                  // CUDA events around the call, on the worker's stream
  std::uint64_t stop_observed_ns = 0;   // the CUPTI clock when the worker saw the stop event (0: no CUPTI)
  std::optional<std::string> failure;   // the solution threw, or a CUDA error came back from its call
};

// One kernel, memcpy or memset of a call: its name as an index into the span's names.
struct SpanRecord {
  int name = -1;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::vector<int> grid, block;  // x, y, z; empty for a memcpy or memset
};

// At most this many records per span message, and names cut to this length, so that a message stays well under
// kMaxChannelMessageBytes (a call with more records keeps its span, and is left out of the kernel breakdown).
inline constexpr std::size_t kMaxSpanRecords = 512;
inline constexpr std::size_t kMaxSpanNameChars = 1024;

struct SpanMessage {  // worker -> judge: the CUPTI record of one call
  std::string type = "span";
  std::uint64_t call = 0;
  std::uint64_t first_start_ns = 0;
  std::uint64_t last_end_ns = 0;
  int record_count = 0;
  std::vector<std::string> names;          // cut to kMaxSpanNameChars (span_name)
  std::vector<std::string> display_names;  // each name's short form, made from the whole name (timing/kernel_breakdown)
  std::string last_ending_name;
  std::vector<SpanRecord> records;
};

struct SpansDoneMessage {
  std::string type = "spans_done";
};

struct FaultMessage {  // worker -> judge: it cannot go on
  std::string type = "fault";
  std::string reason;
};

struct RefusedMessage {  // worker -> judge, from the sandbox's SIGSYS handler
  std::string type = "refused";
  std::string syscall;
};

std::string_view call_kind_name(CallKind kind);  // "calibration", "round", "warmup", "timed"
// A kernel's name as a span message carries it: cut to kMaxSpanNameChars, the cut marked with a hash of the whole.
std::string span_name(const std::string& name);

}  // namespace vlb::protocol

namespace vlb {

template <>
struct JsonCodec<protocol::CallKind> {
  static nlohmann::json write(protocol::CallKind kind) { return std::string(protocol::call_kind_name(kind)); }
  static void read(const JsonValue& node, protocol::CallKind& kind);
};

template <>
struct JsonFields<protocol::BufferRef> {
  using R = protocol::BufferRef;
  static constexpr auto list =
      std::tuple{json_field("buffer", &R::buffer), json_field("offset", &R::offset), json_field("bytes", &R::bytes)};
};
template <>
struct JsonFields<protocol::SharedBuffer> {
  using R = protocol::SharedBuffer;
  static constexpr auto list = std::tuple{json_field("name", &R::name), json_field("mapped_bytes", &R::mapped_bytes)};
};
template <>
struct JsonFields<protocol::BuffersMessage> {
  using R = protocol::BuffersMessage;
  static constexpr auto list = std::tuple{json_field("type", &R::type), json_field("buffers", &R::buffers)};
};
template <>
struct JsonFields<protocol::CallMessage> {
  using R = protocol::CallMessage;
  static constexpr auto list = std::tuple{json_field("type", &R::type),     json_field("call", &R::call),
                                          json_field("kind", &R::kind),     json_field("inputs", &R::inputs),
                                          json_field("output", &R::output), json_field("workspace", &R::workspace)};
};
template <>
struct JsonFields<protocol::LoadMessage> {
  using R = protocol::LoadMessage;
  static constexpr auto list = std::tuple{json_field("type", &R::type), json_field("module", &R::module),
                                          json_field("solution", &R::solution), json_field("shape", &R::shape),
                                          json_field("entry_point", &R::entry_point),
                                          json_field("destination_passing_style", &R::destination_passing_style),
                                          json_field("extension", &R::extension)};
};
template <>
struct JsonFields<protocol::SpansRequest> {
  using R = protocol::SpansRequest;
  static constexpr auto list = std::tuple{json_field("type", &R::type), json_field("calls", &R::calls)};
};
template <>
struct JsonFields<protocol::EndMessage> {
  static constexpr auto list = std::tuple{json_field("type", &protocol::EndMessage::type)};
};
template <>
struct JsonFields<protocol::SandboxRecord> {
  using R = protocol::SandboxRecord;
  static constexpr auto list = std::tuple{json_field("landlock_abi", &R::landlock_abi), json_field("seccomp", &R::seccomp),
                                          json_field("enforced", &R::enforced), json_field("missing", &R::missing)};
};
template <>
struct JsonFields<protocol::HelloMessage> {
  using R = protocol::HelloMessage;
  static constexpr auto list = std::tuple{json_field("type", &R::type), json_field("pid", &R::pid),
                                          json_field("sandbox", &R::sandbox),
                                          json_field("cupti_available", &R::cupti_available),
                                          json_field("cupti_unavailable_reason", &R::cupti_unavailable_reason)};
};
template <>
struct JsonFields<protocol::MappedMessage> {
  using R = protocol::MappedMessage;
  static constexpr auto list = std::tuple{json_field("type", &R::type), json_field("count", &R::count)};
};
template <>
struct JsonFields<protocol::LoadedMessage> {
  using R = protocol::LoadedMessage;
  static constexpr auto list = std::tuple{json_field("type", &R::type),
                                          json_field("unsupported_reason", &R::unsupported_reason),
                                          json_field("workspace_bytes", &R::workspace_bytes)};
};
template <>
struct JsonFields<protocol::CalledMessage> {
  using R = protocol::CalledMessage;
  static constexpr auto list = std::tuple{json_field("type", &R::type), json_field("call", &R::call),
                                          json_field("event_ms", &R::event_ms),
                                          json_field("stop_observed_ns", &R::stop_observed_ns),
                                          json_field("failure", &R::failure)};
};
template <>
struct JsonFields<protocol::SpanRecord> {
  using R = protocol::SpanRecord;
  static constexpr auto list = std::tuple{json_field("name", &R::name), json_field("start_ns", &R::start_ns),
                                          json_field("end_ns", &R::end_ns), json_field("grid", &R::grid),
                                          json_field("block", &R::block)};
};
template <>
struct JsonFields<protocol::SpanMessage> {
  using R = protocol::SpanMessage;
  static constexpr auto list = std::tuple{json_field("type", &R::type), json_field("call", &R::call),
                                          json_field("first_start_ns", &R::first_start_ns),
                                          json_field("last_end_ns", &R::last_end_ns),
                                          json_field("record_count", &R::record_count), json_field("names", &R::names),
                                          json_field("display_names", &R::display_names),
                                          json_field("last_ending_name", &R::last_ending_name),
                                          json_field("records", &R::records)};
};
template <>
struct JsonFields<protocol::SpansDoneMessage> {
  static constexpr auto list = std::tuple{json_field("type", &protocol::SpansDoneMessage::type)};
};
template <>
struct JsonFields<protocol::FaultMessage> {
  using R = protocol::FaultMessage;
  static constexpr auto list = std::tuple{json_field("type", &R::type), json_field("reason", &R::reason)};
};
template <>
struct JsonFields<protocol::RefusedMessage> {
  using R = protocol::RefusedMessage;
  static constexpr auto list = std::tuple{json_field("type", &R::type), json_field("syscall", &R::syscall)};
};

}  // namespace vlb

#include "harness/isolation/channel.hpp"

namespace vlb::protocol {

// The "type" of a message, "" when it has none.
std::string message_type(const JsonDocument& body);

// `body` as a Message, whose type must match: ChannelError naming the field otherwise ("from" names the sender).
template <class Message>
Message read_message(const JsonDocument& body, const std::string& from) {
  try {
    Message message = read_json<Message>(JsonValue(body, from + "'s message"));
    if (message.type != Message{}.type) {
      throw ChannelError(fmt::format("{} sent a '{}' message where '{}' was due", from, message.type, Message{}.type));
    }
    return message;
  } catch (const InputError& error) {
    throw ChannelError(error.message());
  }
}

template <class Message>
void send_message(Channel& channel, const Message& message, std::span<const int> fds = {}) {
  channel.send(write_json(message), fds);
}

}  // namespace vlb::protocol
