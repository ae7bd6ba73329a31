// Who gets in, with the real mcpgate binary on port 0: the auth matrix (no
// token, wrong token, expired JWT, a server the client may not use, another
// client's session), the protected-resource metadata, per-client limits, the
// loopback rule and the TLS listener.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <thread>

#include "tests/gateway/harness.h"
#include "tests/gateway/jwt_util.h"

namespace mcpgate::testing {
namespace {

using namespace std::chrono_literals;

const std::string kAliceToken = "mcpg_alice-test-token-0123456789";
const std::string kBobToken = "mcpg_bob-test-token-0123456789";
constexpr const char* kIssuer = "https://idp.test";

json echoCall(int id, const std::string& text) {
  return {{"jsonrpc", "2.0"},
          {"id", id},
          {"method", "tools/call"},
          {"params", {{"name", "echo"}, {"arguments", {{"text", text}}}}}};
}

Headers bearer(const std::string& token) { return {{"Authorization", "Bearer " + token}}; }

// The keys an identity provider would sign with, and the gateway's JWKS file.
struct Idp {
  TempDir dir;
  TestKey rsa = generateRsaKey();
  TestKey ec = generateP256Key();
  std::string jwks_file;
  Idp() {
    json jwks = {{"keys", {publicJwk(rsa.get(), "rsa-1"), publicJwk(ec.get(), "ec-1")}}};
    jwks_file = dir.write("jwks.json", jwks.dump());
  }
  [[nodiscard]] std::string token(const std::string& sub, long long exp_in_seconds,
                                  const std::string& alg = "RS256") const {
    json claims = {{"iss", kIssuer},
                   {"aud", "mcpgate"},
                   {"sub", sub},
                   {"iat", nowSeconds()},
                   {"exp", nowSeconds() + exp_in_seconds}};
    return alg == "RS256" ? signJwt(rsa.get(), alg, claims, "rsa-1")
                          : signJwt(ec.get(), alg, claims, "ec-1");
  }
};

std::string authConfig(const Idp& idp, const std::string& alice_extra = "",
                       const std::string& top_extra = "") {
  return "listen: 127.0.0.1:0\nservers:\n" + testServerYaml("test") + testServerYaml("other") +
         "session: {idle_timeout: 60s, grace: 2s, request_timeout: 30s}\n"
         "auth:\n"
         "  tokens:\n"
         "    - {client: alice, sha256: " +
         sha256Hex(kAliceToken) +
         "}\n"
         "    - {client: bob, sha256: " +
         sha256Hex(kBobToken) +
         "}\n"
         "  jwt: {jwks_file: " +
         idp.jwks_file + ", issuer: \"" + kIssuer +
         "\", audience: mcpgate}\n"
         "  authorization_servers: [\"" +
         kIssuer +
         "\"]\n"
         "  clients:\n"
         "    alice: {servers: [test, other]" +
         alice_extra +
         "}\n"
         "    bob: {servers: [test]}\n"
         "    jwt-user: {servers: [test]}\n" +
         top_extra;
}

// initialize + notifications/initialized as `token`; the session id.
std::string initializeAs(Gateway& gw, const std::string& server, const std::string& token) {
  auto r = gw.post(server, initializeRequest(), "", "application/json, text/event-stream",
                   bearer(token));
  if (r.status != 200) throw std::runtime_error("initialize: " + std::to_string(r.status) + r.body);
  std::string sid = r.header("mcp-session-id");
  auto note = gw.post(server, {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, sid,
                      "application/json, text/event-stream", bearer(token));
  if (note.status != 202) throw std::runtime_error("initialized: " + note.body);
  return sid;
}

class AuthGateway : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    idp_ = new Idp();
    gw_ = new Gateway(authConfig(*idp_, ", max_sessions: 3"));
  }
  static void TearDownTestSuite() {
    delete gw_;
    delete idp_;
  }
  static Idp* idp_;
  static Gateway* gw_;
};
Idp* AuthGateway::idp_ = nullptr;
Gateway* AuthGateway::gw_ = nullptr;

TEST_F(AuthGateway, NoTokenGets401WithTheMetadataChallenge) {
  auto r = gw_->post("test", initializeRequest(), "");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.json_body()["error"]["data"]["reason"], "unauthorized");
  // The URL is built from the Host header; the harness sends "Host: 127.0.0.1".
  const std::string base = "http://127.0.0.1";
  EXPECT_EQ(r.header("www-authenticate"), "Bearer resource_metadata=\"" + base +
                                              "/.well-known/oauth-protected-resource/mcp/test\"");
  // Not even whether a server exists is told without a token.
  auto unknown = gw_->post("nope", initializeRequest(), "");
  EXPECT_EQ(unknown.status, 401);
  EXPECT_EQ(unknown.header("www-authenticate"),
            "Bearer resource_metadata=\"" + base + "/.well-known/oauth-protected-resource\"");
}

TEST_F(AuthGateway, WrongTokenGets401InvalidToken) {
  for (const std::string& header :
       {std::string("Bearer mcpg_not-a-real-token"), std::string("Basic YWxpY2U6cHc="),
        "Bearer " + kAliceToken + "x"}) {
    auto r = gw_->post("test", initializeRequest(), "", "application/json, text/event-stream",
                       {{"Authorization", header}});
    EXPECT_EQ(r.status, 401) << header;
    EXPECT_EQ(r.json_body()["error"]["data"]["reason"], "invalid_token");
    EXPECT_NE(r.header("www-authenticate").find("error=\"invalid_token\""), std::string::npos);
  }
  EXPECT_EQ(gw_->log().find(kAliceToken), std::string::npos) << "a token reached the log";
}

TEST_F(AuthGateway, TokenTextCannotAddResponseHeaders) {
  // {"alg":"x\r\nX-Injected: yes"} as a JWT header.
  const std::string header = "eyJhbGciOiJ4XHJcblgtSW5qZWN0ZWQ6IHllcyJ9";
  auto r =
      gw_->post("test", initializeRequest(), "", "application/json", bearer(header + ".e30.c2ln"));
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.header("x-injected"), "");
  EXPECT_EQ(r.header("www-authenticate").find('\r'), std::string::npos);
  EXPECT_NE(r.header("www-authenticate").find("JWT algorithm (unprintable) is not accepted"),
            std::string::npos)
      << r.header("www-authenticate");
}

TEST_F(AuthGateway, MetadataAndHealthNeedNoToken) {
  auto health = http(gw_->port(), "GET", "/healthz");
  EXPECT_EQ(health.status, 200);
  auto doc = http(gw_->port(), "GET", "/.well-known/oauth-protected-resource/mcp/test");
  ASSERT_EQ(doc.status, 200) << doc.body;
  EXPECT_EQ(doc.header("content-type"), "application/json");
  json body = doc.json_body();
  EXPECT_EQ(body["resource"], "http://127.0.0.1/mcp/test");  // from the Host header
  EXPECT_EQ(body["authorization_servers"], json::array({kIssuer}));
  EXPECT_EQ(body["bearer_methods_supported"], json::array({"header"}));
  auto root = http(gw_->port(), "GET", "/.well-known/oauth-protected-resource");
  EXPECT_EQ(root.status, 200);
  // A server that does not exist gets a document too: no token, no list of servers.
  auto nope = http(gw_->port(), "GET", "/.well-known/oauth-protected-resource/mcp/nope");
  EXPECT_EQ(nope.status, 200);
  EXPECT_EQ(nope.json_body()["resource"], "http://127.0.0.1/mcp/nope");
  EXPECT_EQ(http(gw_->port(), "GET", "/.well-known/oauth-protected-resource/elsewhere").status,
            404);
}

TEST_F(AuthGateway, MetricsNeedAToken) {
  auto anonymous = http(gw_->port(), "GET", "/metrics");
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_EQ(anonymous.body.find("mcpgate_"), std::string::npos);
  auto scrape = http(gw_->port(), "GET", "/metrics", bearer(kBobToken));
  EXPECT_EQ(scrape.status, 200);
  EXPECT_NE(scrape.body.find("mcpgate_sessions"), std::string::npos);
}

TEST(AuthAggregate, OffersOnlyTheClientsServersAndCountsAsOneSession) {
  Idp idp;
  Gateway gw(authConfig(idp, ", max_sessions: 1"));
  // alice may hold one session: the aggregate one, over both her servers.
  const std::string alice = initializeAs(gw, "", kAliceToken);
  auto listed = gw.post("", {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}}, alice,
                        "application/json", bearer(kAliceToken));
  ASSERT_EQ(listed.status, 200) << listed.body;
  const json body = listed.json_body();  // not in the range-for: it would dangle
  std::set<std::string> names;
  for (const json& tool : body["result"]["tools"]) names.insert(tool["name"].get<std::string>());
  EXPECT_TRUE(names.contains("test__echo") && names.contains("other__echo")) << listed.body;

  // bob may use test only: other is neither listed nor callable for him.
  const std::string bob = initializeAs(gw, "", kBobToken);
  auto his = gw.post("", {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}}, bob,
                     "application/json", bearer(kBobToken));
  EXPECT_NE(his.body.find("test__echo"), std::string::npos) << his.body;
  EXPECT_EQ(his.body.find("other__"), std::string::npos) << his.body;
  auto call = gw.post("", toolCall(2, "other__echo", {{"text", "x"}}), bob, "application/json",
                      bearer(kBobToken));
  EXPECT_TRUE(call.json_body().contains("error")) << call.body;
  // And his aggregate session is his alone.
  EXPECT_EQ(gw.post("", {{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/list"}}, bob,
                    "application/json", bearer(kAliceToken))
                .status,
            404);
}

TEST_F(AuthGateway, TokenClientUsesItsServers) {
  std::string sid = initializeAs(*gw_, "test", kAliceToken);
  auto r = gw_->post("test", echoCall(1, "hi"), sid, "application/json", bearer(kAliceToken));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json_body()["result"]["content"][0]["text"], "hi");
  EXPECT_NE(gw_->log().find("\"client\":\"alice\""), std::string::npos);
  EXPECT_EQ(http(gw_->port(), "DELETE", "/mcp/test",
                 {{"Mcp-Session-Id", sid}, {"Authorization", "Bearer " + kAliceToken}})
                .status,
            200);
}

TEST_F(AuthGateway, ServerTheClientMayNotUseGets403) {
  auto r = gw_->post("other", initializeRequest(), "", "application/json, text/event-stream",
                     bearer(kBobToken));
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.json_body()["error"]["data"]["reason"], "server_not_allowed");
  EXPECT_EQ(r.json_body()["error"]["message"], "client 'bob' may not use server 'other'");
}

TEST_F(AuthGateway, AnotherClientsSessionIsUnknown) {
  std::string sid = initializeAs(*gw_, "test", kAliceToken);
  auto post = gw_->post("test", echoCall(2, "x"), sid, "application/json", bearer(kBobToken));
  EXPECT_EQ(post.status, 404);
  EXPECT_EQ(post.json_body()["error"]["data"]["reason"], "unknown_session");
  auto get = http(gw_->port(), "GET", "/mcp/test",
                  {{"Accept", "text/event-stream"},
                   {"Mcp-Session-Id", sid},
                   {"Authorization", "Bearer " + kBobToken}});
  EXPECT_EQ(get.status, 404);
  auto del = http(gw_->port(), "DELETE", "/mcp/test",
                  {{"Mcp-Session-Id", sid}, {"Authorization", "Bearer " + kBobToken}});
  EXPECT_EQ(del.status, 404);
  // Bob's attempts left the session to its owner.
  auto mine =
      gw_->post("test", echoCall(3, "still mine"), sid, "application/json", bearer(kAliceToken));
  ASSERT_EQ(mine.status, 200);
  EXPECT_EQ(mine.json_body()["result"]["content"][0]["text"], "still mine");
  (void)http(gw_->port(), "DELETE", "/mcp/test",
             {{"Mcp-Session-Id", sid}, {"Authorization", "Bearer " + kAliceToken}});
}

TEST_F(AuthGateway, JwtRs256AndEs256) {
  for (const std::string alg : {"RS256", "ES256"}) {
    std::string token = idp_->token("jwt-user", 300, alg);
    std::string sid = initializeAs(*gw_, "test", token);
    auto r = gw_->post("test", echoCall(4, alg), sid, "application/json", bearer(token));
    ASSERT_EQ(r.status, 200) << alg << " " << r.body;
    EXPECT_EQ(r.json_body()["result"]["content"][0]["text"], alg);
    (void)http(gw_->port(), "DELETE", "/mcp/test",
               {{"Mcp-Session-Id", sid}, {"Authorization", "Bearer " + token}});
  }
  EXPECT_NE(gw_->log().find("\"client\":\"jwt-user\""), std::string::npos);
}

TEST_F(AuthGateway, ExpiredJwtGets401) {
  // Expired ten minutes ago: beyond the default leeway of 60 s.
  std::string token = idp_->token("jwt-user", -600);
  auto r = gw_->post("test", initializeRequest(), "", "application/json, text/event-stream",
                     bearer(token));
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.json_body()["error"]["data"]["reason"], "token_expired");
  EXPECT_NE(r.header("www-authenticate")
                .find("error=\"invalid_token\", error_description=\"token expired\""),
            std::string::npos)
      << r.header("www-authenticate");
}

TEST_F(AuthGateway, JwtClientNotListedMayUseNothing) {
  std::string token = idp_->token("stranger", 300);
  auto r = gw_->post("test", initializeRequest(), "", "application/json, text/event-stream",
                     bearer(token));
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.json_body()["error"]["data"]["reason"], "server_not_allowed");
}

TEST_F(AuthGateway, PerClientSessionLimitIs429) {
  std::vector<std::string> sids;
  for (int i = 0; i < 3; ++i) sids.push_back(initializeAs(*gw_, "test", kAliceToken));
  auto r = gw_->post("test", initializeRequest(), "", "application/json, text/event-stream",
                     bearer(kAliceToken));
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.json_body()["error"]["data"]["reason"], "client_max_sessions");
  // Another client is not held back by alice's limit.
  std::string bob = initializeAs(*gw_, "test", kBobToken);
  for (const std::string& sid : sids) {
    (void)http(gw_->port(), "DELETE", "/mcp/test",
               {{"Mcp-Session-Id", sid}, {"Authorization", "Bearer " + kAliceToken}});
  }
  (void)http(gw_->port(), "DELETE", "/mcp/test",
             {{"Mcp-Session-Id", bob}, {"Authorization", "Bearer " + kBobToken}});
  // Ending one frees a place.
  std::string again = initializeAs(*gw_, "test", kAliceToken);
  EXPECT_FALSE(again.empty());
  (void)http(gw_->port(), "DELETE", "/mcp/test",
             {{"Mcp-Session-Id", again}, {"Authorization", "Bearer " + kAliceToken}});
}

TEST_F(AuthGateway, ConcurrentInitializesDoNotPassTheClientLimit) {
  std::vector<std::thread> threads;
  std::vector<HttpResponse> responses(8);
  for (std::size_t i = 0; i < responses.size(); ++i) {
    threads.emplace_back([&, i] {
      responses[i] =
          gw_->post("test", initializeRequest(), "", "application/json", bearer(kAliceToken));
    });
  }
  for (auto& t : threads) t.join();
  int created = 0;
  for (const HttpResponse& r : responses) {
    if (r.status == 200) {
      ++created;
      (void)http(gw_->port(), "DELETE", "/mcp/test",
                 {{"Mcp-Session-Id", r.header("mcp-session-id")},
                  {"Authorization", "Bearer " + kAliceToken}});
    } else {
      EXPECT_EQ(r.status, 429) << r.body;
    }
  }
  EXPECT_EQ(created, 3);
}

TEST(AuthLimits, RateLimitIs429WithRetryAfter) {
  Idp idp;
  Gateway gw(authConfig(idp, ", rate: {per_second: 0.5, burst: 3}"));
  int ok = 0;
  HttpResponse limited;
  for (int i = 0; i < 6 && limited.status == 0; ++i) {
    auto r = http(gw.port(), "GET", "/mcp/test",
                  {{"Accept", "text/event-stream"},
                   {"Mcp-Session-Id", "deadbeef"},
                   {"Authorization", "Bearer " + kAliceToken}});
    if (r.status == 429) {
      limited = r;
    } else {
      EXPECT_EQ(r.status, 404);
      ++ok;
    }
  }
  EXPECT_EQ(ok, 3);
  ASSERT_EQ(limited.status, 429);
  EXPECT_EQ(limited.json_body()["error"]["data"]["reason"], "rate_limited");
  EXPECT_EQ(limited.header("retry-after"), "2");
  // Bob has his own bucket (and no rate at all).
  auto bob = http(gw.port(), "GET", "/mcp/test",
                  {{"Accept", "text/event-stream"},
                   {"Mcp-Session-Id", "deadbeef"},
                   {"Authorization", "Bearer " + kBobToken}});
  EXPECT_EQ(bob.status, 404);
}

std::string plainConfig(const std::string& extra = "") {
  return "listen: 127.0.0.1:0\nservers:\n" + testServerYaml("test") + extra;
}

TEST(AuthListen, NonLoopbackWithoutAuthIsRefused) {
  TempDir dir;
  std::string file = dir.write("gw.yaml", plainConfig());
  auto r = runCommand(mcpgateBinary() + " serve -c " + file + " --listen 0.0.0.0:0");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("refusing to listen on 0.0.0.0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("insecure_no_auth: true"), std::string::npos) << r.output;
}

TEST(AuthListen, NonLoopbackWithInsecureNoAuthOrWithAuthStarts) {
  Idp idp;
  TempDir dir;
  std::string insecure = dir.write("insecure.yaml", plainConfig("insecure_no_auth: true\n"));
  auto r = runCommand("timeout -s TERM 3 " + mcpgateBinary() + " serve -c " + insecure +
                      " --listen 0.0.0.0:0");
  EXPECT_NE(r.output.find("\"msg\":\"listening\""), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("without authentication (insecure_no_auth: true)"), std::string::npos);
  std::string authed = dir.write("auth.yaml", authConfig(idp));
  r = runCommand("timeout -s TERM 3 " + mcpgateBinary() + " serve -c " + authed +
                 " --listen 0.0.0.0:0");
  EXPECT_NE(r.output.find("\"msg\":\"listening\""), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("insecure_no_auth"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bearer tokens travel in clear text beyond loopback"), std::string::npos)
      << r.output;
}

// A certificate for 127.0.0.1 made for this test, and curl verifying it.
struct TlsFiles {
  TempDir dir;
  std::string cert = dir.path() + "/cert.pem";
  std::string key = dir.path() + "/key.pem";
  TlsFiles() {
    auto r = runCommand(
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
        "-days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 "
        "-keyout " +
        key + " -out " + cert + " 2>&1");
    if (r.exit_code != 0) throw std::runtime_error("openssl req: " + r.output);
  }
};

std::string curl(const std::string& args) {
  return runCommand("curl -sS --max-time 10 " + args + " 2>&1").output;
}

TEST(AuthTls, ServesHttpsTls12AndUpAndSurvivesBadHandshakes) {
  TlsFiles tls;
  Gateway gw(plainConfig("tls: {cert_file: " + tls.cert + ", key_file: " + tls.key + "}\n"));
  EXPECT_NE(gw.log().find("\"url\":\"https://127.0.0.1:"), std::string::npos);
  const std::string url = "https://127.0.0.1:" + std::to_string(gw.port());
  EXPECT_EQ(curl("--cacert " + tls.cert + " " + url + "/healthz"), R"({"status":"ok"})");
  // A client that verifies does not accept it without the CA.
  EXPECT_NE(curl(url + "/healthz").find("curl: (60)"), std::string::npos);
  // TLS 1.1 and below are refused.
  auto old = runCommand("curl -sS --max-time 10 --cacert " + tls.cert +
                        " --tlsv1.0 --tls-max 1.1 " + url + "/healthz 2>&1");
  EXPECT_NE(old.exit_code, 0) << old.output;
  // Plain HTTP and garbage on the TLS port end that connection only.
  EXPECT_EQ(http(gw.port(), "GET", "/healthz").status, 0);
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(gw.port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  const auto open_fds = [&] {
    return std::distance(
        std::filesystem::directory_iterator("/proc/" + std::to_string(gw.pid()) + "/fd"),
        std::filesystem::directory_iterator());
  };
  const auto before = open_fds();
  const char garbage[] = "\x16\x03\x01\x00\x05garbage-not-a-client-hello";
  (void)::write(fd, garbage, sizeof garbage);
  ::close(fd);
  for (int i = 0; i < 50; ++i) {
    int again = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_EQ(::connect(again, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    (void)::write(again, garbage, sizeof garbage);
    ::close(again);
  }
  // Every failed handshake's socket is closed again.
  EXPECT_TRUE(waitUntil([&] { return open_fds() <= before; }, 5s)) << open_fds() << " > " << before;
  // And an MCP session over TLS works.
  std::string init = curl("-i --cacert " + tls.cert +
                          " -H 'Content-Type: application/json' -H 'Accept: application/json' "
                          "-d '" +
                          initializeRequest().dump() + "' " + url + "/mcp/test");
  EXPECT_NE(init.find("\"protocolVersion\":\"2025-06-18\""), std::string::npos) << init;
  // SSE events over TLS: progress first, then the answer.
  const std::string headers = init.substr(0, init.find("\r\n\r\n"));
  const auto at = headers.find("Mcp-Session-Id: ");
  ASSERT_NE(at, std::string::npos) << init;
  const std::string sid = headers.substr(at + 16, 48);
  json call = {{"jsonrpc", "2.0"},
               {"id", 5},
               {"method", "tools/call"},
               {"params",
                {{"name", "progress"},
                 {"arguments", {{"steps", 2}}},
                 {"_meta", {{"progressToken", "p1"}}}}}};
  std::string events = curl("--cacert " + tls.cert +
                            " -H 'Content-Type: application/json' -H 'Accept: application/json, "
                            "text/event-stream' -H 'Mcp-Session-Id: " +
                            sid + "' -d '" + call.dump() + "' " + url + "/mcp/test");
  EXPECT_NE(events.find(
                "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\""),
            std::string::npos)
      << events;
  EXPECT_NE(events.find("\"id\":5,\"result\""), std::string::npos) << events;
  EXPECT_EQ(curl("--cacert " + tls.cert + " " + url + "/healthz"), R"({"status":"ok"})");
}

TEST(AuthTls, UnreadableOrMismatchedKeyStopsTheStart) {
  TlsFiles tls;
  TlsFiles other;
  TempDir dir;
  std::string file = dir.write(
      "gw.yaml", plainConfig("tls: {cert_file: " + tls.cert + ", key_file: " + other.key + "}\n"));
  auto r = runCommand(mcpgateBinary() + " serve -c " + file);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("tls.key_file " + other.key), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("mismatch"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mcpgate::testing

namespace mcpgate::testing {
namespace {

TEST(AuthCommands, TokenNewPrintsATokenThatGetsIn) {
  auto made = runCommand(mcpgateBinary() + " token new --client ci-bot");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  const std::string token = made.output.substr(0, made.output.find('\n'));
  ASSERT_TRUE(token.starts_with("mcpg_")) << made.output;
  const std::string line = "- {client: ci-bot, sha256: " + sha256Hex(token) + "}";
  ASSERT_NE(made.output.find(line), std::string::npos) << made.output;
  Gateway gw("listen: 127.0.0.1:0\nservers:\n" + testServerYaml("test") + "auth:\n  tokens:\n    " +
             line + "\n  clients: {ci-bot: {servers: [test]}}\n");
  auto r = gw.post("test", initializeRequest(), "", "application/json", bearer(token));
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_NE(runCommand(mcpgateBinary() + " token new").output, made.output) << "not random";
}

TEST(AuthCommands, ConfigCheckBuildsTheJwksKeys) {
  TempDir dir;
  // The shape is right (32-byte x and y) but the point is not on P-256.
  dir.write(
      "jwks.json",
      R"({"keys":[{"kty":"EC","crv":"P-256","kid":"bad",)"
      R"("x":"AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","y":"AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}]})");
  std::string file = dir.write(
      "gw.yaml", plainConfig("auth:\n  jwt: {jwks_file: jwks.json, issuer: i, audience: a}\n"
                             "  clients: {x: {servers: [test]}}\n"));
  auto r = runCommand(mcpgateBinary() + " config check " + file);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("key 'bad' is not a valid public key"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mcpgate::testing
