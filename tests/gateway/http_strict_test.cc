// The HTTP edge read strictly (issue 19, item 9), against the real gateway:
// media types parsed rather than searched, Transfer-Encoding and folded
// headers refused, the Host header checked, /metrics scoped to the client.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "tests/gateway/harness.h"
#include "tests/gateway/jwt_util.h"

namespace mcpgate::testing {
namespace {

using namespace std::chrono_literals;

std::string plainConfig() {
  return "listen: 127.0.0.1:0\nservers:\n" + testServerYaml("test") +
         "session: {idle_timeout: 60s, grace: 2s, request_timeout: 30s}\n";
}

// Raw bytes to the gateway on a fresh connection, and the whole answer
// (the gateway closes after a refusal, or after `Connection: close`).
std::string rawExchange(int port, const std::string& bytes) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return {};
  }
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  (void)!::write(fd, bytes.data(), bytes.size());
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

const std::string kInitialize = initializeRequest().dump();

TEST(HttpStrict, ContentTypeIsAMediaTypeNotASubstring) {
  Gateway gw(plainConfig());
  auto r = http(gw.port(), "POST", "/mcp/test",
                {{"Content-Type", "text/plain; x=application/json"},
                 {"Accept", "application/json, text/event-stream"}},
                kInitialize);
  EXPECT_EQ(r.status, 415) << r.body;
  r = http(gw.port(), "POST", "/mcp/test",
           {{"Content-Type", "application/jsonp"}, {"Accept", "application/json"}}, kInitialize);
  EXPECT_EQ(r.status, 415) << r.body;
  // Parameters and case are fine.
  r = http(gw.port(), "POST", "/mcp/test",
           {{"Content-Type", "Application/JSON; charset=utf-8"}, {"Accept", "application/json"}},
           kInitialize);
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST(HttpStrict, AcceptIsReadAsMediaRanges) {
  Gateway gw(plainConfig());
  auto r =
      http(gw.port(), "POST", "/mcp/test",
           {{"Content-Type", "application/json"}, {"Accept", "text/plain; x=application/json"}},
           kInitialize);
  EXPECT_EQ(r.status, 406) << r.body;
  r = http(gw.port(), "POST", "/mcp/test",
           {{"Content-Type", "application/json"}, {"Accept", "application/json;q=0"}}, kInitialize);
  EXPECT_EQ(r.status, 406) << r.body;
  r = http(gw.port(), "GET", "/mcp/test",
           {{"Accept", "text/plain; x=text/event-stream"}, {"Mcp-Session-Id", "x"}});
  EXPECT_EQ(r.status, 406) << r.body;
  r = http(gw.port(), "POST", "/mcp/test",
           {{"Content-Type", "application/json"}, {"Accept", "*/*"}}, kInitialize);
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type"), "application/json");
}

TEST(HttpStrict, TransferEncodingOtherThanChunkedIsRefused) {
  Gateway gw(plainConfig());
  const std::string head =
      "POST /mcp/test HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Accept: application/json\r\n";
  for (const std::string te : {"gzip", "chunked, gzip", "identity"}) {
    const std::string answer = rawExchange(gw.port(), std::string(head)
                                                          .append("Transfer-Encoding: ")
                                                          .append(te)
                                                          .append("\r\n\r\n")
                                                          .append(kInitialize));
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 400")) << te << ": " << answer.substr(0, 300);
    EXPECT_NE(answer.find("Transfer-Encoding"), std::string::npos) << answer.substr(0, 500);
  }
  // Two Transfer-Encoding lines.
  std::string answer = rawExchange(gw.port(), head +
                                                  "Transfer-Encoding: gzip\r\nTransfer-Encoding: "
                                                  "chunked\r\n\r\n0\r\n\r\n");
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 400")) << answer.substr(0, 300);
  // A final chunked alone is fine.
  char size[16];
  std::snprintf(size, sizeof size, "%zx", kInitialize.size());
  answer = rawExchange(gw.port(), head + "Connection: close\r\nTransfer-Encoding: chunked\r\n\r\n" +
                                      size + "\r\n" + kInitialize + "\r\n0\r\n\r\n");
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 200")) << answer.substr(0, 300);
}

TEST(HttpStrict, FoldedHeadersAreRefused) {
  Gateway gw(plainConfig());
  const std::string answer =
      rawExchange(gw.port(),
                  "POST /mcp/test HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  "Accept: application/json,\r\n text/event-stream\r\nContent-Length: " +
                      std::to_string(kInitialize.size()) + "\r\n\r\n" + kInitialize);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 400")) << answer.substr(0, 300);
  EXPECT_NE(answer.find("folded"), std::string::npos) << answer.substr(0, 500);
}

TEST(HttpStrict, WithoutAuthOnlyLoopbackHostNamesAreAnswered) {
  Gateway gw(plainConfig());
  auto r = http(gw.port(), "GET", "/metrics", {{"Host", "rebind.attacker.test:8080"}});
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(r.json_body()["error"]["data"]["reason"], "host_not_allowed");
  EXPECT_EQ(r.body.find("mcpgate_"), std::string::npos);
  r = http(gw.port(), "POST", "/mcp/test",
           {{"Host", "rebind.attacker.test"},
            {"Content-Type", "application/json"},
            {"Accept", "application/json"}},
           kInitialize);
  EXPECT_EQ(r.status, 403) << r.body;
  // Health checks answer whatever the name; loopback names are fine.
  EXPECT_EQ(http(gw.port(), "GET", "/healthz", {{"Host", "rebind.attacker.test"}}).status, 200);
  for (const std::string host : {"localhost:1234", "127.0.0.1", "[::1]:80", "LOCALHOST"}) {
    EXPECT_EQ(http(gw.port(), "GET", "/metrics", {{"Host", host}}).status, 200) << host;
  }
}

TEST(HttpStrict, AllowedHostsNameTheHostsAnswered) {
  Gateway gw(plainConfig() + "allowed_hosts: [mcp.internal.test]\n");
  EXPECT_EQ(http(gw.port(), "GET", "/metrics", {{"Host", "mcp.internal.test:443"}}).status, 200);
  EXPECT_EQ(http(gw.port(), "GET", "/metrics", {{"Host", "localhost"}}).status, 403);
  EXPECT_EQ(http(gw.port(), "GET", "/metrics", {{"Host", "a@mcp.internal.test"}}).status, 403);
}

TEST(HttpStrict, MetricsShowAClientOnlyItsOwnServers) {
  const std::string alice = "alice-token-0123456789abcdef0123456789";
  const std::string bob = "bob-token-0123456789abcdef0123456789ab";
  Gateway gw("listen: 127.0.0.1:0\nservers:\n" + testServerYaml("test") +
             testServerYaml("secretproject") + "auth:\n  tokens:\n    - {client: alice, sha256: " +
             sha256Hex(alice) + "}\n    - {client: bob, sha256: " + sha256Hex(bob) +
             "}\n  clients:\n    alice: {servers: [test, secretproject]}\n"
             "    bob: {servers: [test]}\n");
  // Traffic to both servers, so both have series.
  for (const std::string server : {"test", "secretproject"}) {
    auto r = http(gw.port(), "POST", "/mcp/" + server,
                  {{"Authorization", "Bearer " + alice},
                   {"Content-Type", "application/json"},
                   {"Accept", "application/json"}},
                  kInitialize);
    ASSERT_EQ(r.status, 200) << r.body;
  }
  auto as_alice = http(gw.port(), "GET", "/metrics", {{"Authorization", "Bearer " + alice}});
  ASSERT_EQ(as_alice.status, 200);
  EXPECT_NE(as_alice.body.find("server=\"secretproject\""), std::string::npos);
  auto as_bob = http(gw.port(), "GET", "/metrics", {{"Authorization", "Bearer " + bob}});
  ASSERT_EQ(as_bob.status, 200);
  EXPECT_EQ(as_bob.body.find("secretproject"), std::string::npos) << as_bob.body;
  EXPECT_NE(as_bob.body.find("server=\"test\""), std::string::npos);
}

}  // namespace
}  // namespace mcpgate::testing
