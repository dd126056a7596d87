// A stand-in for vlbench-worker (no GPU, no solution): it speaks the judge's protocol over descriptors 3 (channel)
// and 4 (handshake page) as the real worker does, and misbehaves as $FAKE_WORKER_BEHAVIOUR says, so that the judge's
// side of the protocol is tested on a machine without a GPU (test_worker_protocol.cpp).
//   honest           every call takes $FAKE_WORKER_CALL_MS and is reported as such
//   forges           every call takes $FAKE_WORKER_CALL_MS and is reported as taking a tenth of it
//   done_before_go   marks a call done before the judge's go
//   extra_message    sends a second report of every call
//   wrong_call       reports another call than the one it ran
//   malformed        answers a call with text that is not JSON
//   refused          answers a call as the sandbox's SIGSYS handler does, and exits 97
//   dies             exits with code 3 in the middle of a call
//   silent           never says hello
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "harness/isolation/call_handshake.hpp"
#include "harness/isolation/channel.hpp"
#include "harness/isolation/sandbox.hpp"
#include "harness/isolation/worker_protocol.hpp"

namespace {

using namespace vlb;

std::string behaviour() {
  const char* chosen = std::getenv("FAKE_WORKER_BEHAVIOUR");
  return chosen != nullptr ? chosen : "honest";
}

double call_ms() {
  const char* chosen = std::getenv("FAKE_WORKER_CALL_MS");
  return chosen != nullptr ? std::atof(chosen) : 5.0;
}

void answer_call(Channel& channel, CallHandshake& handshake, const protocol::CallMessage& call, const std::string& how) {
  if (how == "done_before_go") handshake.mark_done(call.call);
  handshake.mark_ready(call.call);
  if (handshake.wait_go(call.call, [&] { return !channel.readable(); }) != WaitOutcome::kSeen) std::exit(4);
  if (how == "dies") std::exit(3);
  if (how == "refused") {
    const std::string message = refusal_message("ptrace");
    channel.send(nlohmann::json::parse(message));
    std::exit(kSandboxRefusalExitCode);
  }
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(call_ms()));
  handshake.mark_done(call.call);
  if (how == "malformed") {
    const char garbage[] = "{not json";
    (void)!write(channel.fd(), garbage, sizeof(garbage) - 1);
    return;
  }
  protocol::CalledMessage called;
  called.call = how == "wrong_call" ? call.call + 1 : call.call;
  called.event_ms = how == "forges" ? call_ms() / 10 : call_ms();
  protocol::send_message(channel, called);
  if (how == "extra_message") protocol::send_message(channel, called);
}

}  // namespace

int main() {
  Channel channel{UniqueFd(3)};
  CallHandshake handshake = CallHandshake::attach(UniqueFd(4));
  const std::string how = behaviour();
  if (how == "silent") {
    std::this_thread::sleep_for(std::chrono::seconds(60));
    return 0;
  }
  protocol::HelloMessage hello;
  hello.pid = getpid();
  protocol::send_message(channel, hello);
  for (;;) {
    ChannelMessage message = channel.receive();
    const std::string type = protocol::message_type(message.body);
    if (type == "end") return 0;
    if (type == "buffers") {
      const auto buffers = protocol::read_message<protocol::BuffersMessage>(message.body, "the judge");
      protocol::send_message(channel, protocol::MappedMessage{.count = static_cast<int>(buffers.buffers.size())});
    } else if (type == "call") {
      answer_call(channel, handshake, protocol::read_message<protocol::CallMessage>(message.body, "the judge"), how);
    } else {
      return 5;
    }
  }
}
