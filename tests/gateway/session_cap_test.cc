// session.max_per_client with the real binary: a client that never ends its
// sessions (as the MCP Inspector CLI does: initialize, one call, exit without
// DELETE) keeps at most the limit of live servers, not one per call until the
// idle timeout.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/gateway/harness.h"

namespace mcpgate::testing {
namespace {

using namespace std::chrono_literals;

std::string capConfig(int limit) {
  return "listen: 127.0.0.1:0\nservers:\n" + testServerYaml("test") +
         "session: {idle_timeout: 60s, grace: 2s, max_per_client: " + std::to_string(limit) + "}\n";
}

struct Started {
  std::string sid;
  std::set<pid_t> processes;  // host pids: sandbox supervisor, its init, the server
};

Started startSession(Gateway& gw) {
  const std::set<pid_t> before = descendants(gw.pid());
  Started started{gw.initialize("test"), {}};
  for (pid_t pid : descendants(gw.pid())) {
    if (!before.contains(pid)) started.processes.insert(pid);
  }
  return started;
}

// A session used in the last 5 s is in use: not closed to make room.
constexpr auto kIdleEnough = 5500ms;

TEST(SessionCap, AClientThatNeverEndsItsSessionsKeepsAtMostTheLimitOfServers) {
  Gateway gw(capConfig(3));
  std::vector<Started> calls;
  auto call = [&](int i) {
    Started s = startSession(gw);
    ASSERT_FALSE(s.processes.empty());
    EXPECT_EQ(text(gw.callTool("test", s.sid, "echo", {{"text", "call " + std::to_string(i)}})),
              "call " + std::to_string(i));
    calls.push_back(s);  // and never DELETEd
  };
  for (int i = 0; i < 3; ++i) call(i);
  std::this_thread::sleep_for(kIdleEnough);
  for (int i = 3; i < 6; ++i) call(i);
  // The three least recently used were closed to make room: servers reaped, 404 for their client.
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(waitUntil([&] { return !anyAlive(calls[i].processes); }, 10s))
        << "the server of call " << i << " still runs";
    auto late = gw.post("test", toolCall(50 + i, "echo", {{"text", "x"}}), calls[i].sid);
    EXPECT_EQ(late.status, 404) << late.body;
  }
  // The last three still serve.
  for (int i = 3; i < 6; ++i) {
    EXPECT_TRUE(anyAlive(calls[i].processes));
    EXPECT_EQ(text(gw.callTool("test", calls[i].sid, "echo", {{"text", "again"}}, 60 + i)),
              "again");
  }
  std::size_t made_room = 0;
  for (const json& entry : logEntries(gw.log(), "session closed to make room")) {
    EXPECT_EQ(entry["client"], "127.0.0.1");  // without auth, a client is its address
    ++made_room;
  }
  EXPECT_EQ(made_room, 3U);
}

// Agents sharing one client identity may run more sessions at once than the
// limit: a session in use (a request in flight, or used in the last seconds)
// is never closed to make room; the new one is admitted above the limit.
TEST(SessionCap, SessionsInUseAreNotClosedAndTheNewOneIsAdmitted) {
  Gateway gw(capConfig(1));
  Started busy = startSession(gw);
  StreamingRequest hanging(gw.port(), "POST", "/mcp/test",
                           {{"Content-Type", "application/json"},
                            {"Accept", "application/json"},
                            {"Mcp-Session-Id", busy.sid}},
                           toolCall(31, "hang").dump());
  ASSERT_TRUE(waitUntil([&] { return gw.log().find("recv tools/call") != std::string::npos; }, 5s));
  std::this_thread::sleep_for(kIdleEnough);
  Started recent = startSession(gw);  // busy has a request in flight
  EXPECT_EQ(text(gw.callTool("test", recent.sid, "echo", {{"text", "a"}})), "a");
  Started third = startSession(gw);  // recent was used just now
  EXPECT_EQ(text(gw.callTool("test", third.sid, "echo", {{"text", "b"}})), "b");
  EXPECT_EQ(text(gw.callTool("test", recent.sid, "echo", {{"text", "c"}}, 101)), "c");
  EXPECT_TRUE(anyAlive(busy.processes));
  EXPECT_TRUE(logEntries(gw.log(), "session closed to make room").empty()) << gw.log();
}

// The Inspector CLI (0.15) sends a URL that does not end in /mcp to /mcp: the aggregate endpoint.
TEST(SessionCap, AggregateSessionsMakeRoomToo) {
  Gateway gw(capConfig(2));
  std::vector<std::string> sids;
  for (int i = 0; i < 3; ++i) {
    if (i == 2) std::this_thread::sleep_for(kIdleEnough);
    sids.push_back(gw.initialize(""));
    EXPECT_EQ(text(gw.callTool("", sids.back(), "test__echo", {{"text", "agg"}})), "agg");
  }
  auto late = gw.post("", toolCall(9, "test__echo", {{"text", "x"}}), sids[0]);
  EXPECT_EQ(late.status, 404) << late.body;
  EXPECT_EQ(text(gw.callTool("", sids[1], "test__echo", {{"text", "still"}}, 10)), "still");
  EXPECT_EQ(text(gw.callTool("", sids[2], "test__echo", {{"text", "still"}}, 11)), "still");
  EXPECT_EQ(logEntries(gw.log(), "session closed to make room").size(), 1U) << gw.log();
}

TEST(SessionCap, ZeroTurnsTheLimitOff) {
  Gateway gw(capConfig(0));
  std::vector<Started> calls;
  for (int i = 0; i < 4; ++i) calls.push_back(startSession(gw));
  for (const Started& s : calls) {
    EXPECT_EQ(text(gw.callTool("test", s.sid, "echo", {{"text", "on"}})), "on");
  }
}

}  // namespace
}  // namespace mcpgate::testing
