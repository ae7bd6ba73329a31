// Hostile and broken peers against the real gateway (issue 19): what the gateway
// cannot scan it blocks, one message cannot flood the log, a server that floods
// a client that does not read cannot grow the gateway without bound, a server
// that closes its stdout is noticed at once.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/gateway/harness.h"

namespace mcpgate::testing {
namespace {

using namespace std::chrono_literals;

// Standard base64 of `bytes`.
std::string base64(const std::string& bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                       (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  return out;  // the test feeds multiples of 3
}

// MCPGATE_HOSTILE_SCALE multiplies the sizes of the floods (the `hostile` CTest label runs 5x).
int scale() {
  const char* env = std::getenv("MCPGATE_HOSTILE_SCALE");
  const int value = env != nullptr ? std::atoi(env) : 1;
  return value > 0 ? value : 1;
}

class Hardening : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(::chmod(dir_.path().c_str(), 0777), 0); }
  [[nodiscard]] std::string config(const std::string& rest) const {
    return recordingGatewayYaml(dir_.path()) + rest;
  }
  [[nodiscard]] std::string received() const { return readFile(dir_.path() + "/received.jsonl"); }
  TempDir dir_;
};

// An attachment of about 120 KB of base64: decoded, more than the 64 KiB the config allows.
std::string bigAttachment() {
  std::string plain;
  while (plain.size() < 90'000) plain += "quarterly figures, nothing secret here. ";
  plain.resize(90'000);
  return base64(plain);
}

TEST_F(Hardening, WhatDlpCannotDecodeWithinItsLimitIsBlockedNamingTheLimit) {
  Gateway gw(config("dlp: {max_decoded_bytes: 64KiB}\n"));
  const std::string sid = gw.initialize("test");
  const std::string attachment = bigAttachment();
  auto r = gw.post("test", toolCall(5, "echo", {{"text", attachment}}), sid, "application/json");
  ASSERT_EQ(r.status, 200) << r.body.substr(0, 500);
  const json body = r.json_body();
  EXPECT_EQ(body["error"]["code"], -32003) << body.dump().substr(0, 500);
  EXPECT_EQ(body["error"]["data"]["reason"], "dlp_unscanned");
  const std::string message = body["error"]["message"];
  EXPECT_NE(message.find("could not be fully scanned"), std::string::npos) << message;
  EXPECT_NE(message.find("max_decoded_bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("65536"), std::string::npos) << message;
  // It never reached the server; the session still works.
  EXPECT_EQ(text(gw.callTool("test", sid, "echo", {{"text", "small"}})), "small");
  EXPECT_EQ(received().find(attachment.substr(0, 64)), std::string::npos);
}

TEST_F(Hardening, AnOperatorMayLetUnscannedRequestsPassWithAWarning) {
  Gateway gw(config("dlp: {max_decoded_bytes: 64KiB, unscanned_action: {request: warn}}\n"));
  const std::string sid = gw.initialize("test");
  const std::string attachment = bigAttachment();
  const json answer = gw.callTool("test", sid, "echo", {{"text", attachment}});
  // The request reached the server; the echo coming back is still blocked
  // (responses keep the closed default): the action is per direction.
  EXPECT_NE(received().find(attachment.substr(0, 64)), std::string::npos);
  EXPECT_EQ(answer["error"]["data"]["reason"], "dlp_unscanned") << answer.dump().substr(0, 500);
  EXPECT_EQ(answer["error"]["data"]["direction"], "response");
  const auto warned = logEntries(
      gw.log(), "DLP could not scan all of a message; passed as dlp.unscanned_action says");
  ASSERT_EQ(warned.size(), 1u) << gw.log().substr(0, 3000);
  EXPECT_EQ(warned[0]["action"], "warn");
}

TEST_F(Hardening, UnscannedActionIsCheckedAtLoad) {
  const std::string file =
      dir_.write("gw.yaml", config("dlp:\n  unscanned_action: {request: pass}\n"));
  auto run = runCommand(mcpgateBinary() + " config check " + file);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.output.find("dlp.unscanned_action.request 'pass' must be one of log, warn, "
                            "redact, block"),
            std::string::npos)
      << run.output;
}

// 3.9 MB of e-mail addresses in one request: one finding each, but a bounded
// number of log lines, one summary line with the count, and every finding in /metrics.
TEST_F(Hardening, AMessageFullOfFindingsWritesABoundedNumberOfLogLines) {
  Gateway gw(config(""));
  const std::string sid = gw.initialize("test");
  std::string text_arg;
  std::size_t addresses = 0;
  while (text_arg.size() < 3'900'000) {
    text_arg += "mail jane.doe" + std::to_string(addresses++) + "@acme-corp.de now\n";
  }
  auto r = gw.post("test", toolCall(9, "echo", {{"text", text_arg}}), sid, "application/json");
  ASSERT_EQ(r.status, 200) << r.body.substr(0, 300);
  const std::string log = gw.log();
  const auto lines = logEntries(log, "dlp finding");
  EXPECT_LE(lines.size(), 40u);  // 20 for the request, 20 for the echoed answer
  EXPECT_GE(lines.size(), 1u);
  // The request and the echoed answer each hold every address.
  const auto summaries =
      logEntries(log, "dlp findings over the per-message cap; the rest only counted");
  ASSERT_GE(summaries.size(), 1u);
  EXPECT_EQ(summaries[0]["findings"].get<std::size_t>(), addresses);
  EXPECT_EQ(summaries[0]["not_logged"].get<std::size_t>(), addresses - 20);
  std::size_t log_lines = 0;
  for (char c : log) log_lines += c == '\n';
  EXPECT_LT(log_lines, 200u);
  auto metrics = http(gw.port(), "GET", "/metrics");
  const std::string series = "mcpgate_dlp_findings_total{rule=\"email-address\",action=\"log\"} ";
  const auto at = metrics.body.find(series);
  ASSERT_NE(at, std::string::npos) << metrics.body.substr(0, 2000);
  EXPECT_GE(std::stoull(metrics.body.substr(at + series.size())), addresses);
}

// Item 1: 200,000 notifications of 1 KB (200 MB) to a client that reads the
// first event and then nothing. The gateway stops reading the server while its
// budget is full, ends the stream after the stall timeout with an error naming
// the limit, and its RSS stays within the budget plus a margin.
TEST_F(Hardening, AServerFloodingAClientThatDoesNotReadCannotGrowTheGateway) {
  // MCPGATE_TEST_NO_BUDGET=1 lifts the budgets: shows what the test catches.
  Gateway gw(config(std::getenv("MCPGATE_TEST_NO_BUDGET") != nullptr
                        ? "limits: {max_stream_queue_bytes: 4GiB, max_session_queue_bytes: 4GiB, "
                          "max_queued_bytes: 4GiB, stream_stall_timeout: 600s}\n"
                        : "limits: {max_stream_queue_bytes: 4MiB, max_session_queue_bytes: 8MiB, "
                          "stream_stall_timeout: 2s}\n"));
  const std::string sid = gw.initialize("test");
  const long before = rssKiB(gw.pid());
  ASSERT_GT(before, 0);
  StreamingRequest stalled(
      gw.port(), "POST", "/mcp/test",
      {{"Content-Type", "application/json"},
       {"Accept", "application/json, text/event-stream"},
       {"Mcp-Session-Id", sid}},
      toolCall(9, "flood", {{"count", 200'000 * scale()}, {"bytes", 1000}}).dump());
  ASSERT_TRUE(stalled.readUntil("event: message", 20s)) << stalled.raw().substr(0, 500);
  // From here on the client reads nothing.
  long peak = before;
  bool ended = false;
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < 40s) {
    peak = std::max(peak, rssKiB(gw.pid()));
    if (gw.log().find("client stream ended: the client does not read it") != std::string::npos) {
      ended = true;
      // Keep watching a little: the server goes on flooding into the backlog.
      if (std::chrono::steady_clock::now() - start > 10s) break;
    }
    std::this_thread::sleep_for(100ms);
  }
  std::printf("gateway RSS %ld KiB before the flood, peak %ld KiB\n", before, peak);
  EXPECT_TRUE(ended) << gw.log().substr(0, 3000);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // Under ASan, RSS holds the sanitizer's quarantine of freed memory (256 MiB by default), and
  // under TSan its shadow and allocator caches, not what the gateway keeps: the bound is
  // asserted in the release build; here the stream must still end with stream_overflow (below).
  (void)peak;
#else
  EXPECT_LT(peak - before, 100 * 1024)
      << "RSS grew from " << before << " KiB to " << peak << " KiB";
#endif
  // What the client gets when it reads again: the error that ended the stream.
  ASSERT_TRUE(stalled.readUntil("stream_overflow", 60s));
  ASSERT_TRUE(stalled.readUntil("0\r\n\r\n", 30s));
  const auto events = parseResponse(stalled.raw()).events();
  ASSERT_FALSE(events.empty());
  const json& last = events.back();
  EXPECT_EQ(last["id"], 9);
  EXPECT_EQ(last["error"]["data"]["reason"], "stream_overflow");
  EXPECT_NE(last["error"]["message"].get<std::string>().find("limits.max_stream_queue_bytes"),
            std::string::npos);
  // The session goes on.
  EXPECT_EQ(text(gw.callTool("test", sid, "echo", {{"text", "still here"}})), "still here");
}

// Item 1 on /mcp: the aggregate relays a server's flood from its inner
// session into the client's stream. While that stream holds more than a
// stream's budget the aggregate stops relaying (the inner session then stops
// reading the server); a client that takes nothing for the stall timeout gets
// stream_overflow, and the gateway's RSS stays bounded.
TEST_F(Hardening, TheAggregateEndsAStreamItsClientDoesNotRead) {
  Gateway gw(config("limits: {max_stream_queue_bytes: 4MiB, max_session_queue_bytes: 8MiB, "
                    "stream_stall_timeout: 3s}\n"));
  const std::string sid = gw.initialize("");
  const long before = rssKiB(gw.pid());
  ASSERT_GT(before, 0);
  StreamingRequest stalled(
      gw.port(), "POST", "/mcp",
      {{"Content-Type", "application/json"},
       {"Accept", "application/json, text/event-stream"},
       {"Mcp-Session-Id", sid}},
      toolCall(9, "test__flood", {{"count", 200'000 * scale()}, {"bytes", 1000}}).dump());
  ASSERT_TRUE(stalled.readUntil("event: message", 20s)) << stalled.raw().substr(0, 500);
  // Until the stream is ended (on a loaded machine the server may take a while to fill the
  // socket buffers and the budget), and 2 s more: what the server sends meanwhile is dropped.
  const auto [peak, ended] =
      watchRssUntilLogged(gw, before, "client stream ended: the client does not read it", 120s);
  ASSERT_TRUE(ended) << gw.log().substr(0, 3000);
  std::printf("gateway RSS %ld KiB before the flood, peak %ld KiB\n", before, peak);
// ASan's quarantine, and TSan's shadow and allocator caches, hold memory in RSS.
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  EXPECT_LT(peak - before, 64 * 1024) << "RSS grew from " << before << " KiB to " << peak << " KiB";
#endif
  ASSERT_TRUE(stalled.readUntil("stream_overflow", 30s)) << gw.log().substr(0, 3000);
  ASSERT_TRUE(stalled.readUntil("0\r\n\r\n", 30s));
  const auto events = parseResponse(stalled.raw()).events();
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back()["id"], 9);
  EXPECT_EQ(events.back()["error"]["data"]["reason"], "stream_overflow") << events.back().dump();
  EXPECT_NE(events.back()["error"]["message"].get<std::string>().find(
                "limits.max_stream_queue_bytes"),
            std::string::npos);
  // The session goes on.
  const json again = gw.callTool("", sid, "test__echo", {{"text", "still here"}});
  EXPECT_EQ(again["result"]["content"][0]["text"], "still here") << again.dump();
}

// Item 6: a server that closes its stdout and stays alive. Its waiting request
// is answered with an error long before the request timeout.
TEST_F(Hardening, AServerThatClosesItsStdoutIsNoticedAtOnce) {
  Gateway gw("listen: 127.0.0.1:0\nservers:\n" + testServerYaml() +
             "session: {idle_timeout: 300s, grace: 2s, request_timeout: 120s}\n");
  const std::string sid = gw.initialize("test");
  const auto start = std::chrono::steady_clock::now();
  auto r = gw.post("test", toolCall(4, "close-stdout"), sid, "application/json");
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(r.status, 200) << r.body;
  const json body = r.json_body();
  EXPECT_EQ(body["id"], 4);
  EXPECT_EQ(body["error"]["code"], -32000) << body.dump();
  EXPECT_NE(body["error"]["message"].get<std::string>().find("closed its stdout"),
            std::string::npos)
      << body.dump();
  // Not the 120 s request timeout: the close is seen, then the grace period.
  EXPECT_LT(took, 30s);
}

}  // namespace
}  // namespace mcpgate::testing
