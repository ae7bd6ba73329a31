// The real mcpgate binary on port 0 in front of tests/servers/test_server.mjs.
// Each test asserts the HTTP status and the JSON-RPC error a client would see.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/gateway/harness.h"

namespace mcpgate::testing {
namespace {

using namespace std::chrono_literals;

std::string config(
    const std::string& extra = "", const std::string& server_extra = "",
    const std::string& session = "idle_timeout: 60s, grace: 2s, request_timeout: 30s",
    const std::string& listen = "127.0.0.1:0") {
  return "listen: " + listen + "\nservers:\n" + testServerYaml("test", server_extra) +
         "session: {" + session + "}\n" + extra;
}

struct Started {
  std::string sid;
  std::set<pid_t> processes;  // host pids: sandbox supervisor, its init, the server
};

// A new session and the processes started for it.
Started startSession(Gateway& gw) {
  const std::set<pid_t> before = descendants(gw.pid());
  Started started{gw.initialize("test"), {}};
  for (pid_t pid : descendants(gw.pid())) {
    if (!before.contains(pid)) started.processes.insert(pid);
  }
  return started;
}

TEST(Gateway, SessionCreateUseDelete) {
  Gateway gw(config());
  auto [sid, processes] = startSession(gw);
  EXPECT_EQ(sid.size(), 48u);
  EXPECT_EQ(sid.find_first_not_of("0123456789abcdef"), std::string::npos);

  json echo = gw.callTool("test", sid, "echo", {{"text", "héllo"}});
  EXPECT_EQ(text(echo), "héllo");
  ASSERT_FALSE(processes.empty());
  ASSERT_TRUE(anyAlive(processes));

  auto del = http(gw.port(), "DELETE", "/mcp/test", {{"Mcp-Session-Id", sid}});
  EXPECT_EQ(del.status, 200);
  EXPECT_TRUE(waitUntil([&] { return !anyAlive(processes); }, 5s)) << "server not reaped";

  auto after = gw.post("test", toolCall(1, "echo", {{"text", "x"}}), sid);
  EXPECT_EQ(after.status, 404);
  EXPECT_EQ(after.json_body()["error"]["data"]["reason"], "unknown_session");
}

TEST(Gateway, TwoSessionsHaveTwoServers) {
  Gateway gw(config());
  Started a = startSession(gw);
  Started b = startSession(gw);
  EXPECT_NE(a.sid, b.sid);
  EXPECT_FALSE(a.processes.empty());
  EXPECT_FALSE(b.processes.empty());
  for (pid_t pid : b.processes) EXPECT_FALSE(a.processes.contains(pid));
}

TEST(Gateway, UnknownAndMissingSession) {
  Gateway gw(config());
  auto missing = gw.post("test", toolCall(1, "echo", {{"text", "x"}}), "");
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(missing.json_body()["error"]["code"], -32600);
  EXPECT_EQ(missing.json_body()["error"]["data"]["reason"], "missing_session");

  auto unknown = gw.post("test", toolCall(1, "echo", {{"text", "x"}}), "deadbeef");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.json_body()["error"]["data"]["reason"], "unknown_session");

  auto get = http(gw.port(), "GET", "/mcp/test",
                  {{"Accept", "text/event-stream"}, {"Mcp-Session-Id", "deadbeef"}});
  EXPECT_EQ(get.status, 404);
  auto del = http(gw.port(), "DELETE", "/mcp/test", {});
  EXPECT_EQ(del.status, 400);
}

TEST(Gateway, UnknownServerPath) {
  Gateway gw(config());
  auto r = gw.post("nope", toolCall(1, "echo"), "");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.json_body()["error"]["data"]["reason"], "unknown_server");
}

TEST(Gateway, IdleSessionIsReaped) {
  Gateway gw(config("", "", "idle_timeout: 300ms, grace: 2s"));
  auto [sid, processes] = startSession(gw);
  EXPECT_TRUE(waitUntil([&] { return !anyAlive(processes); }, 5s)) << gw.log();
  EXPECT_NE(gw.log().find("idle"), std::string::npos);
  EXPECT_EQ(gw.post("test", toolCall(1, "echo", {{"text", "x"}}), sid).status, 404);
}

TEST(Gateway, ChildCrashMidCallFailsThePendingRequest) {
  Gateway gw(config());
  std::string sid = gw.initialize("test");
  auto r = gw.post("test", toolCall(7, "crash"), sid, "application/json");
  ASSERT_EQ(r.status, 200);
  json body = r.json_body();
  EXPECT_EQ(body["id"], 7);
  EXPECT_EQ(body["error"]["code"], -32000);
  EXPECT_EQ(body["error"]["message"],
            "MCP server 'test' exited unexpectedly (exited with status 3)");
  EXPECT_EQ(gw.post("test", toolCall(8, "echo", {{"text", "x"}}), sid).status, 404);
}

TEST(Gateway, CrashFailsEveryPendingRequestOfTheSession) {
  Gateway gw(config());
  std::string sid = gw.initialize("test");
  StreamingRequest hanging(gw.port(), "POST", "/mcp/test",
                           {{"Content-Type", "application/json"},
                            {"Accept", "application/json"},
                            {"Mcp-Session-Id", sid}},
                           toolCall(31, "hang").dump());
  ASSERT_TRUE(waitUntil([&] { return gw.log().find("recv tools/call") != std::string::npos; }, 5s));
  auto crashed = gw.post("test", toolCall(32, "crash"), sid, "application/json");
  EXPECT_EQ(crashed.json_body()["error"]["code"], -32000);
  auto hung = hanging.finish(5s);
  ASSERT_EQ(hung.status, 200);
  EXPECT_EQ(hung.json_body()["id"], 31);
  EXPECT_EQ(hung.json_body()["error"]["code"], -32000);
  EXPECT_EQ(hung.json_body()["error"]["message"],
            "MCP server 'test' exited unexpectedly (exited with status 3)");
}

std::size_t openFds(pid_t pid) {
  std::size_t n = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    (void)entry;
    ++n;
  }
  return n;
}

TEST(Gateway, NoFdOrProcessLeftAfterSessionsEnd) {
  Gateway gw(config("", "", "idle_timeout: 500ms, grace: 2s"));
  std::size_t baseline = openFds(gw.pid());
  for (int i = 0; i < 3; ++i) (void)gw.initialize("test");
  std::string crashed = gw.initialize("test");
  (void)gw.post("test", toolCall(1, "crash"), crashed, "application/json");
  std::string deleted = gw.initialize("test");
  const std::set<pid_t> children = descendants(gw.pid());
  EXPECT_GE(children.size(), 4U);
  EXPECT_EQ(http(gw.port(), "DELETE", "/mcp/test", {{"Mcp-Session-Id", deleted}}).status, 200);
  EXPECT_GT(openFds(gw.pid()), baseline);
  // Idle reaping ends the rest; then every pipe, pidfd and socket is closed.
  EXPECT_TRUE(waitUntil([&] { return openFds(gw.pid()) == baseline; }, 10s))
      << "fds: " << openFds(gw.pid()) << " baseline " << baseline;
  for (pid_t child : children) EXPECT_FALSE(processExists(child)) << child;
  EXPECT_TRUE(descendants(gw.pid()).empty());
}

TEST(Gateway, HangingChildTimesOutAndIsTold) {
  Gateway gw(config("", "", "request_timeout: 500ms"));
  std::string sid = gw.initialize("test");
  auto r = gw.post("test", toolCall(9, "hang"), sid, "application/json");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.json_body()["error"]["code"], -32001);
  EXPECT_EQ(r.json_body()["error"]["message"], "MCP server 'test' did not answer within 500ms");
  // The server hears that the request was given up.
  EXPECT_TRUE(waitUntil(
      [&] { return gw.log().find("recv notifications/cancelled") != std::string::npos; }, 3s));
  // The session still works.
  EXPECT_EQ(text(gw.callTool("test", sid, "echo", {{"text", "still here"}})), "still here");
}

TEST(Gateway, ServerIgnoringSigtermIsKilledAfterGrace) {
  Gateway gw(config("", "    env: {TEST_SERVER_IGNORE_SIGTERM: \"1\"}\n", "grace: 300ms"));
  auto [sid, processes] = startSession(gw);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(http(gw.port(), "DELETE", "/mcp/test", {{"Mcp-Session-Id", sid}}).status, 200);
  EXPECT_TRUE(waitUntil([&] { return !anyAlive(processes); }, 5s));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 250ms);  // it did wait for the grace
  EXPECT_NE(gw.log().find("ignored SIGTERM; killing it"), std::string::npos);
  EXPECT_NE(gw.log().find("killed by signal 9"), std::string::npos);
}

// The cgroups the sandbox supervisor of one of `processes` made: directories named
// mcpgate-<supervisor pid>-<server> anywhere under the cgroup mounts.
std::vector<std::string> sandboxCgroups(const std::set<pid_t>& processes) {
  std::vector<std::string> found;
  std::error_code ec;
  const auto options = std::filesystem::directory_options::skip_permission_denied;
  for (std::filesystem::recursive_directory_iterator it("/sys/fs/cgroup", options, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (it.depth() > 8 || !it->is_directory(ec)) {
      it.disable_recursion_pending();
      continue;
    }
    const std::string name = it->path().filename().string();
    for (pid_t pid : processes) {
      if (name.starts_with("mcpgate-" + std::to_string(pid) + "-")) found.push_back(it->path());
    }
  }
  return found;
}

TEST(Gateway, AServerKilledAtGraceLeavesNoCgroupOnceReaped) {
  Gateway gw(config("", "    env: {TEST_SERVER_IGNORE_SIGTERM: \"1\"}\n", "grace: 300ms"));
  auto [sid, processes] = startSession(gw);
  const std::vector<std::string> groups = sandboxCgroups(processes);
  if (groups.empty()) GTEST_SKIP() << "this host gives the sandbox no cgroup";
  EXPECT_EQ(http(gw.port(), "DELETE", "/mcp/test", {{"Mcp-Session-Id", sid}}).status, 200);
  // SIGKILLed at grace, the supervisor cannot remove its groups; the gateway that reaps it does,
  // before it says the server exited (not at some later sandbox start).
  ASSERT_TRUE(waitUntil([&] { return gw.log().find("killed by signal 9") != std::string::npos; },
                        10s));
  for (const std::string& group : groups) EXPECT_FALSE(std::filesystem::exists(group)) << group;
}

TEST(Gateway, AServerThatStopsReadingIsStoppedNotBufferedForever) {
  // 64 KiB bodies: the gateway holds at most 16 of them (1 MiB) for a server.
  Gateway gw(config("limits: {max_body_bytes: 64KiB}\n"));
  std::string sid = gw.initialize("test");
  EXPECT_EQ(text(gw.callTool("test", sid, "deaf", json::object())), "not listening any more");
  const json note = {{"jsonrpc", "2.0"},
                     {"method", "notifications/message"},
                     {"params", {{"data", std::string(60 * 1024, 'n')}}}};
  // Well past 1 MiB unless the gateway gives up on the server first.
  const auto gave_up = [&] {
    return gw.log().find("server stopped reading its input") != std::string::npos;
  };
  for (int i = 0; i < 64 && !gave_up(); ++i) (void)gw.post("test", note, sid);
  EXPECT_TRUE(waitUntil(gave_up, 5s)) << gw.log();
  // Then the session ends with its server.
  EXPECT_TRUE(waitUntil([&] { return gw.post("test", note, sid).status == 404; }, 5s));
}

TEST(Gateway, MessagesLargerThanThePipeArriveWhole) {
  // A pipe holds 64 KiB: the gateway writes what it takes at once and queues
  // the rest, and the server must still read each message as one whole line.
  Gateway gw(config());
  std::string sid = gw.initialize("test");
  for (const std::size_t size : {std::size_t{300} * 1024, std::size_t{100},
                                 std::size_t{200} * 1024 + 7}) {
    std::string big(size, 'a');
    for (std::size_t i = 0; i < size; i += 997) big[i] = static_cast<char>('b' + i % 20);
    EXPECT_EQ(text(gw.callTool("test", sid, "echo", {{"text", big}})), big) << size << " bytes";
  }
}

TEST(Gateway, OversizeBodyIs413) {
  Gateway gw(config("limits: {max_body_bytes: 1KiB}\n"));
  std::string sid = gw.initialize("test");
  auto r = gw.post("test", toolCall(1, "echo", {{"text", std::string(2000, 'a')}}), sid);
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(r.json_body()["error"]["message"], "request body exceeds the limit of 1024 bytes");
  EXPECT_EQ(r.json_body()["error"]["data"]["reason"], "max_body_bytes");
}

TEST(Gateway, MalformedJsonIs400ParseError) {
  Gateway gw(config());
  std::string sid = gw.initialize("test");
  auto r = http(gw.port(), "POST", "/mcp/test",
                {{"Content-Type", "application/json"},
                 {"Accept", "application/json"},
                 {"Mcp-Session-Id", sid}},
                R"({"jsonrpc":"2.0","id":1,"method":)");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.json_body()["error"]["code"], -32700);
  EXPECT_EQ(r.json_body()["id"], nullptr);

  auto not_rpc = gw.post("test", json{{"hello", "world"}}, sid);
  EXPECT_EQ(not_rpc.status, 400);
  EXPECT_EQ(not_rpc.json_body()["error"]["code"], -32600);
}

TEST(Gateway, DeepNestingIsRefused) {
  Gateway gw(config("limits: {max_json_depth: 16}\n"));
  std::string sid = gw.initialize("test");
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto r = http(gw.port(), "POST", "/mcp/test",
                {{"Content-Type", "application/json"},
                 {"Accept", "application/json"},
                 {"Mcp-Session-Id", sid}},
                R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":)" + deep + "}}");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.json_body()["error"]["message"], "message nests deeper than the limit of 16");
  EXPECT_EQ(text(gw.callTool("test", sid, "echo", {{"text", "ok"}})), "ok");  // still up
}

TEST(Gateway, OriginAllowlist) {
  Gateway gw(config());
  json init = {{"jsonrpc", "2.0"},
               {"id", 0},
               {"method", "initialize"},
               {"params",
                {{"protocolVersion", "2025-06-18"},
                 {"capabilities", json::object()},
                 {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}};
  auto evil = gw.post("test", init, "", "application/json", {{"Origin", "http://evil.example"}});
  EXPECT_EQ(evil.status, 403);
  EXPECT_EQ(evil.json_body()["error"]["data"]["reason"], "origin_not_allowed");
  auto local = gw.post("test", init, "", "application/json", {{"Origin", "http://localhost:5173"}});
  EXPECT_EQ(local.status, 200);
}

TEST(Gateway, ProtocolVersionHeaderChecked) {
  Gateway gw(config());
  std::string sid = gw.initialize("test");
  auto bad = gw.post("test", toolCall(1, "echo", {{"text", "x"}}), sid, "application/json",
                     {{"MCP-Protocol-Version", "1999-01-01"}});
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.json_body()["error"]["data"]["reason"], "protocol_version");
  // The 2026-07-28 revision's answer: -32022, what is supported, and the request's id.
  EXPECT_EQ(bad.json_body()["error"]["code"], -32022);
  EXPECT_EQ(bad.json_body()["error"]["data"]["requested"], "1999-01-01");
  EXPECT_EQ(bad.json_body()["id"], 1);
  auto good = gw.post("test", toolCall(2, "echo", {{"text", "x"}}), sid, "application/json",
                      {{"MCP-Protocol-Version", "2025-06-18"}});
  EXPECT_EQ(good.status, 200);
}

TEST(Gateway, AcceptAndContentTypeChecked) {
  Gateway gw(config());
  std::string sid = gw.initialize("test");
  auto r = gw.post("test", toolCall(1, "echo"), sid, "text/html");
  EXPECT_EQ(r.status, 406);
  auto ct = http(
      gw.port(), "POST", "/mcp/test",
      {{"Content-Type", "text/plain"}, {"Accept", "application/json"}, {"Mcp-Session-Id", sid}},
      toolCall(1, "echo").dump());
  EXPECT_EQ(ct.status, 415);
  auto put = http(gw.port(), "PUT", "/mcp/test", {{"Mcp-Session-Id", sid}});
  EXPECT_EQ(put.status, 405);
}

TEST(Gateway, ProgressStreamsAsSse) {
  Gateway gw(config());
  std::string sid = gw.initialize("test");
  json call = toolCall(5, "progress", {{"steps", 3}});
  call["params"]["_meta"] = {{"progressToken", "tok"}};
  auto r = gw.post("test", call, sid);
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "text/event-stream");
  auto events = r.events();
  ASSERT_EQ(events.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(events[i]["method"], "notifications/progress");
    EXPECT_EQ(events[i]["params"]["progress"], i + 1);
  }
  EXPECT_EQ(events[3]["id"], 5);
  EXPECT_EQ(text(events[3]), "done 3 steps");
}

TEST(Gateway, PlainCallAnswersAsJsonEvenWhenSseAccepted) {
  Gateway gw(config());
  std::string sid = gw.initialize("test");
  auto r = gw.post("test", toolCall(5, "echo", {{"text", "x"}}), sid);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_EQ(r.json_body()["id"], 5);
}

TEST(Gateway, ServerToClientSamplingRoundTrip) {
  Gateway gw(config());
  std::string sid = gw.initialize("test");
  StreamingRequest call(gw.port(), "POST", "/mcp/test",
                        {{"Content-Type", "application/json"},
                         {"Accept", "application/json, text/event-stream"},
                         {"Mcp-Session-Id", sid}},
                        toolCall(11, "sample").dump());
  ASSERT_TRUE(call.readUntil("sampling/createMessage", 5s)) << call.raw();
  auto pending = parseResponse(call.raw());
  json request = pending.events().at(0);
  ASSERT_EQ(request["method"], "sampling/createMessage");
  json answer = {{"jsonrpc", "2.0"},
                 {"id", request["id"]},
                 {"result",
                  {{"role", "assistant"},
                   {"model", "test-model"},
                   {"content", {{"type", "text"}, {"text", "sampled words"}}}}}};
  EXPECT_EQ(gw.post("test", answer, sid).status, 202);
  auto done = call.finish();
  auto events = done.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1]["id"], 11);
  EXPECT_EQ(text(events[1]), "sampled words");
}

TEST(Gateway, GetStreamCarriesServerMessagesOutsideRequests) {
  Gateway gw(config());
  std::string sid = gw.initialize("test");
  StreamingRequest stream(gw.port(), "GET", "/mcp/test",
                          {{"Accept", "text/event-stream"}, {"Mcp-Session-Id", sid}}, "");
  ASSERT_TRUE(stream.readUntil("text/event-stream", 5s)) << stream.raw();
  auto second = http(gw.port(), "GET", "/mcp/test",
                     {{"Accept", "text/event-stream"}, {"Mcp-Session-Id", sid}});
  EXPECT_EQ(second.status, 409);
  // A JSON-only request cannot carry the log notification: it goes to the GET stream.
  json result = gw.callTool("test", sid, "log", {{"text", "to the stream"}});
  EXPECT_EQ(result["id"], 100);
  ASSERT_TRUE(stream.readUntil("to the stream", 5s)) << stream.raw();
  EXPECT_NE(stream.raw().find("notifications/message"), std::string::npos);
}

TEST(Gateway, ClientCancellationReachesServerAndEndsTheWait) {
  Gateway gw(config());
  std::string sid = gw.initialize("test");
  StreamingRequest call(gw.port(), "POST", "/mcp/test",
                        {{"Content-Type", "application/json"},
                         {"Accept", "application/json"},
                         {"Mcp-Session-Id", sid}},
                        toolCall(21, "hang").dump());
  ASSERT_TRUE(waitUntil([&] { return gw.log().find("recv tools/call") != std::string::npos; }, 5s));
  json cancel = {{"jsonrpc", "2.0"},
                 {"method", "notifications/cancelled"},
                 {"params", {{"requestId", 21}, {"reason", "user pressed stop"}}}};
  EXPECT_EQ(gw.post("test", cancel, sid).status, 202);
  auto r = call.finish(5s);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.json_body()["error"]["code"], -32800);
  EXPECT_TRUE(waitUntil(
      [&] { return gw.log().find("recv notifications/cancelled") != std::string::npos; }, 3s));
}

TEST(Gateway, OverlongServerLineFailsCleanly) {
  Gateway gw(config("limits: {max_line_bytes: 4KiB}\n"));
  std::string sid = gw.initialize("test");
  auto r = gw.post("test", toolCall(3, "big", {{"bytes", 10000}}), sid, "application/json");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.json_body()["error"]["code"], -32000);
  EXPECT_NE(r.json_body()["error"]["message"].get<std::string>().find("max_line_bytes"),
            std::string::npos);
  // A new session is fine.
  std::string sid2 = gw.initialize("test");
  EXPECT_EQ(text(gw.callTool("test", sid2, "big", {{"bytes", 100}})), std::string(100, 'x'));
}

TEST(Gateway, OnlyDeclaredEnvironmentReachesServer) {
  Gateway gw(config("", "    env: {DECLARED: yes-it-is}\n"), {"GATEWAY_SECRET=do-not-leak"});
  std::string sid = gw.initialize("test");
  EXPECT_EQ(text(gw.callTool("test", sid, "env", {{"name", "DECLARED"}})), "yes-it-is");
  EXPECT_EQ(text(gw.callTool("test", sid, "env", {{"name", "GATEWAY_SECRET"}}, 2)), "<unset>");
}

TEST(Gateway, ServerStderrGoesToLogWithServerName) {
  Gateway gw(config());
  std::string sid = gw.initialize("test");
  (void)gw.callTool("test", sid, "stderr", {{"lines", 2}});
  EXPECT_TRUE(waitUntil(
      [&] {
        auto log = gw.log();
        return log.find("\"msg\":\"server stderr\"") != std::string::npos &&
               log.find("\"server\":\"test\"") != std::string::npos;
      },
      3s));
}

TEST(Gateway, BatchesOnlyFor20250326) {
  Gateway gw(config());
  std::string old_sid = gw.initialize("test", "2025-03-26");
  json batch =
      json::array({toolCall(1, "echo", {{"text", "a"}}), toolCall(2, "echo", {{"text", "b"}})});
  auto r = gw.post("test", batch, old_sid, "application/json");
  ASSERT_EQ(r.status, 200) << r.body;
  json body = r.json_body();
  ASSERT_TRUE(body.is_array());
  ASSERT_EQ(body.size(), 2u);
  std::set<std::string> texts = {text(body[0]), text(body[1])};
  EXPECT_EQ(texts, (std::set<std::string>{"a", "b"}));

  std::string new_sid = gw.initialize("test", "2025-06-18");
  auto refused = gw.post("test", batch, new_sid, "application/json");
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(refused.json_body()["error"]["data"]["reason"], "batch_not_allowed");
}

TEST(Gateway, SandboxRefusalReachesTheClientAndTheLog) {
  // A bind whose source vanished after the config was loaded: the sandbox
  // cannot be built as configured, so the server must not start at all.
  TempDir data;
  const std::string gone = data.path() + "/gone";
  std::filesystem::create_directory(gone);
  Gateway gw(config("sandbox:\n  binds: [{src: " + gone + ", dst: /data}]\n"));
  std::filesystem::remove(gone);
  json init = {{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"}, {"params", json::object()}};
  auto r = gw.post("test", init, "", "application/json");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json_body()["error"]["code"], -32000);
  EXPECT_EQ(r.json_body()["error"]["message"],
            "MCP server 'test' exited unexpectedly (its sandbox refused to start it; see the "
            "gateway log)");
  EXPECT_TRUE(waitUntil(
      [&] { return gw.log().find("sandbox refused to start the server") != std::string::npos; },
      5s))
      << gw.log();
  EXPECT_NE(gw.log().find(gone), std::string::npos) << gw.log();
  EXPECT_EQ(r.body.find(gone), std::string::npos) << "host paths stay in the log";
}

TEST(Gateway, EverySpawnLogsItsSandboxLayers) {
  Gateway gw(config());
  (void)gw.initialize("test");
  ASSERT_TRUE(
      waitUntil([&] { return gw.log().find("\"msg\":\"sandbox\"") != std::string::npos; }, 5s))
      << gw.log();
  json report;
  std::istringstream lines(gw.log());
  for (std::string line; std::getline(lines, line);) {
    auto entry = json::parse(line, nullptr, false);
    if (!entry.is_discarded() && entry.value("msg", "") == "sandbox") report = entry;
  }
  EXPECT_EQ(report["server"], "test");
  EXPECT_EQ(report["level"], "info");
  EXPECT_EQ(gw.log().find("cannot be enforced on this host"), std::string::npos) << gw.log();
  EXPECT_TRUE(report["degraded"].empty());
  for (const char* layer : {"user", "pid", "mount", "network", "seccomp", "capabilities"}) {
    EXPECT_NE(std::ranges::find(report["enforced"], layer), report["enforced"].end()) << layer;
  }
}

TEST(Gateway, TheServerRunsInItsSandbox) {
  Gateway gw(config());
  std::string sid = gw.initialize("test");
  // PID 1 of its own namespace is the sandbox init; the server is below it.
  EXPECT_LE(std::stoi(text(gw.callTool("test", sid, "pid", json::object()))), 3);
  // HOME is the sandbox's own tmpfs, not the gateway's.
  EXPECT_EQ(text(gw.callTool("test", sid, "env", {{"name", "HOME"}})), "/home/mcp");
  EXPECT_EQ(text(gw.callTool("test", sid, "env", {{"name", "TMPDIR"}})), "/tmp");
}

TEST(Gateway, ShutdownStopsEveryServer) {
  Gateway gw(config());
  (void)gw.initialize("test");
  (void)gw.initialize("test");
  const std::set<pid_t> processes = descendants(gw.pid());
  EXPECT_GE(processes.size(), 2U);
  auto status = gw.stop();
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0);
  EXPECT_FALSE(anyAlive(processes));
}

TEST(Gateway, RefusesNonLoopbackWithoutAuth) {
  TempDir dir;
  std::string cfg = dir.write("c.yaml", config("", "", "grace: 2s", "0.0.0.0:0"));
  auto run = runCommand(mcpgateBinary() + " serve -c " + cfg);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.output.find("refusing to listen on 0.0.0.0"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace mcpgate::testing

namespace mcpgate::testing {
namespace {

TEST(Gateway, NpxServerWithoutInstalledPackagesSaysToInstall) {
  TempDir cache;
  // No DLP: an empty cache_dir would compile every pack (over 40 s under ASan).
  Gateway gw("listen: 127.0.0.1:0\ncache_dir: " + cache.path() +
             "\nservers:\n  files:\n    command: npx\n    args: [-y, some-mcp-server]\n"
             "dlp: {enabled: false}\n");
  json init = {{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"}, {"params", json::object()}};
  auto r = gw.post("files", init, "");
  EXPECT_EQ(r.status, 502);
  EXPECT_EQ(r.json_body()["error"]["data"]["reason"], "spawn_failed");
  const std::string message = r.json_body()["error"]["message"];
  EXPECT_TRUE(message.starts_with(
      "cannot start MCP server 'files': its npm packages are not installed (the operator runs "
      "`mcpgate install -c "))
      << message;
  EXPECT_TRUE(message.ends_with(" files`)")) << message;
  // The operator heard it at startup already.
  EXPECT_NE(gw.log().find("\"msg\":\"server cannot start yet\""), std::string::npos) << gw.log();
}

TEST(Cli, ServeSaysAtStartupWhichSandboxLayersThisHostCannotEnforce) {
  // As nobody, this host cannot create the cgroups for the memory and pids
  // limits: the operator hears it at startup, not from the first client.
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to drop to nobody";
  if (runCommand("setpriv --reuid=65534 --regid=65534 --clear-groups test -x " + mcpgateBinary())
          .exit_code != 0) {
    GTEST_SKIP() << "nobody cannot execute " << mcpgateBinary();
  }
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const std::string cfg = dir.write("c.yaml", "listen: 127.0.0.1:0\ncache_dir: " + dir.path() +
                                                  "/cache\nservers:\n  t: {command: node}\n");
  ::chmod(cfg.c_str(), 0644);
  auto run = runCommand("HOME=" + dir.path() +
                        " timeout 3 setpriv --reuid=65534 --regid=65534 --clear-groups " +
                        mcpgateBinary() + " serve -c " + cfg);
  EXPECT_NE(run.output.find("\"msg\":\"sandbox layer cannot be enforced on this host: servers "
                            "with on_unavailable: fail that need it will be refused\""),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("\"layer\":\"cgroup-memory\""), std::string::npos) << run.output;
}

TEST(Cli, InstallExplainsWhatItCannotDo) {
  TempDir dir;
  const std::string plain = dir.write("plain.yaml", config());
  auto none = runCommand(mcpgateBinary() + " install -c " + plain);
  EXPECT_EQ(none.exit_code, 0) << none.output;
  EXPECT_NE(none.output.find("no npx servers in " + plain + ": nothing to install"),
            std::string::npos)
      << none.output;
  auto named = runCommand(mcpgateBinary() + " install -c " + plain + " test");
  EXPECT_EQ(named.exit_code, 2) << named.output;
  EXPECT_NE(named.output.find("nothing to install for 'test': its command is node"),
            std::string::npos)
      << named.output;
  auto unknown = runCommand(mcpgateBinary() + " install -c " + plain + " nope");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.output.find("no server 'nope' in " + plain), std::string::npos);
  auto missing = runCommand(mcpgateBinary() + " install");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("-c FILE is required"), std::string::npos) << missing.output;
}

TEST(Cli, ConfigCheckPrintsEffectiveConfigOrFileLineError) {
  TempDir dir;
  std::string good = dir.write("good.yaml", config());
  auto ok = runCommand(mcpgateBinary() + " config check " + good);
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("idle_timeout: 60s"), std::string::npos) << ok.output;
  EXPECT_NE(ok.output.find("max_body_bytes: 4MiB"), std::string::npos) << ok.output;

  std::string bad =
      dir.write("bad.yaml", "servers:\n  test:\n    command: node\nsession:\n  idle_timout: 5s\n");
  auto err = runCommand(mcpgateBinary() + " config check " + bad);
  EXPECT_EQ(err.exit_code, 1);
  EXPECT_NE(err.output.find(bad + ":5: unknown key 'idle_timout' in session"), std::string::npos)
      << err.output;

  // serve refuses the same file the same way, before listening.
  auto serve = runCommand(mcpgateBinary() + " serve -c " + bad);
  EXPECT_EQ(serve.exit_code, 1);
  EXPECT_NE(serve.output.find(bad + ":5:"), std::string::npos) << serve.output;
}

TEST(Cli, UnknownCommandAndVersion) {
  auto unknown = runCommand(mcpgateBinary() + " frobnicate");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.output.find("unknown command 'frobnicate'"), std::string::npos);
  EXPECT_NE(unknown.output.find("mcpgate serve"), std::string::npos);  // usage follows
  auto version = runCommand(mcpgateBinary() + " version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.output.rfind("mcpgate ", 0), 0u);
}

}  // namespace
}  // namespace mcpgate::testing
