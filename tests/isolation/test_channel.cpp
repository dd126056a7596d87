// The worker's channel: whole JSON messages with descriptors beside them, and what the receiving end refuses.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "harness/isolation/channel.hpp"

namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point soon() { return Clock::now() + std::chrono::seconds(5); }

}  // namespace

TEST_CASE("messages arrive whole, in order, with their descriptors", "[isolation][channel]") {
  auto [judge, worker] = vlb::Channel::create_pair();
  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  judge.send({{"type", "buffers"}, {"count", 1}}, std::vector<int>{pipe_fds[1]});
  judge.send({{"type", "call"}, {"call", 7}});
  auto first = worker.receive(soon());
  REQUIRE(first.has_value());
  CHECK(first->body["type"] == "buffers");
  REQUIRE(first->fds.size() == 1);
  // The descriptor is a working copy of the pipe's write end.
  REQUIRE(write(first->fds[0].get(), "x", 1) == 1);
  char byte = 0;
  REQUIRE(read(pipe_fds[0], &byte, 1) == 1);
  CHECK(byte == 'x');
  auto second = worker.receive(soon());
  REQUIRE(second.has_value());
  CHECK(second->body["call"] == 7);
  CHECK(second->fds.empty());
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

TEST_CASE("no message by the deadline is nullopt; a closed end is ChannelClosed", "[isolation][channel]") {
  auto [judge, worker] = vlb::Channel::create_pair();
  CHECK_FALSE(worker.readable());
  CHECK_FALSE(worker.receive(Clock::now() + std::chrono::milliseconds(20)).has_value());
  { vlb::Channel gone = std::move(judge); }
  CHECK(worker.readable());
  CHECK_THROWS_AS(worker.receive(soon()), vlb::ChannelClosed);
}

TEST_CASE("what is not JSON, too deep or too large is refused, never parsed into a crash", "[isolation][channel]") {
  auto [judge, worker] = vlb::Channel::create_pair();
  SECTION("not JSON") {
    REQUIRE(write(judge.fd(), "{not json", 9) == 9);
    CHECK_THROWS_WITH(worker.receive(soon()), Catch::Contains("not JSON"));
  }
  SECTION("nested far deeper than any message") {
    const std::string deep = std::string(5000, '[') + std::string(5000, ']');
    REQUIRE(send(judge.fd(), deep.data(), deep.size(), 0) == static_cast<ssize_t>(deep.size()));
    CHECK_THROWS_WITH(worker.receive(soon()), Catch::Contains("nested deeper"));
  }
  SECTION("larger than a message may be") {
    const std::string big = "\"" + std::string(vlb::kMaxChannelMessageBytes + 10, 'a') + "\"";
    CHECK_THROWS_AS(judge.send(nlohmann::json(std::string(vlb::kMaxChannelMessageBytes + 10, 'a'))), vlb::ChannelError);
    int size = static_cast<int>(big.size() + 4096);
    setsockopt(judge.fd(), SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
    if (send(judge.fd(), big.data(), big.size(), 0) == static_cast<ssize_t>(big.size())) {
      CHECK_THROWS_WITH(worker.receive(soon()), Catch::Contains("larger than"));
    }
  }
}
