// network: allowlist through the real binary: a sandboxed server in its own
// network namespace reaches the host's loopback only through the gateway's
// egress proxy, with Node, Python and curl as they come, and every connection
// is a log line and an audit record. Every target here is on loopback; that
// metadata, link-local and private ranges are refused is shown by the unit
// tests of the decision (tests/egress), which never connect.
//
// Also here: what the sandbox's channels mean for the log (its report never
// comes from the server's stderr; a stderr flood that stops is still counted).

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <thread>

#include <gtest/gtest.h>

#include "tests/gateway/harness.h"

namespace mcpgate::testing {
namespace {

using namespace std::chrono_literals;

// An HTTP server on 127.0.0.1:<port 0> in the test's (the host's) network
// namespace that answers every request with `body`, counting connections.
class LoopbackHttp {
 public:
  explicit LoopbackHttp(std::string body) : body_(std::move(body)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 16) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      ADD_FAILURE() << "cannot listen on loopback";
      return;
    }
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~LoopbackHttp() {
    ::shutdown(fd_, SHUT_RDWR);
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
  }
  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] int connections() const { return connections_.load(); }

 private:
  void serve() {
    for (;;) {
      const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) return;
      ++connections_;
      std::string head;
      char buf[1024];
      while (head.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = ::read(c, buf, sizeof buf);
        if (n <= 0) break;
        head.append(buf, static_cast<std::size_t>(n));
      }
      const std::string reply = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " +
                                std::to_string(body_.size()) + "\r\nConnection: close\r\n\r\n" +
                                body_;
      (void)!::write(c, reply.data(), reply.size());
      ::close(c);
    }
  }

  std::string body_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<int> connections_{0};
  std::thread thread_;
};

class Egress : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(::chmod(dir_.path().c_str(), 0777), 0); }

  // One server, "eg", running tests/servers/egress_client.mjs with `sandbox`
  // lines (network, allow), and an audit log in the test's directory.
  [[nodiscard]] std::string config(const std::string& sandbox_lines) const {
    return "listen: 127.0.0.1:0\n"
           "servers:\n"
           "  eg:\n"
           "    command: node\n"
           "    args: [/opt/mcpgate-tests/egress_client.mjs]\n"
           "    sandbox:\n"
           "      binds: [{src: " +
           sourceDir() + "/tests/servers, dst: /opt/mcpgate-tests}]\n" + sandbox_lines +
           "session: {idle_timeout: 60s, grace: 2s, request_timeout: 40s}\n"
           "audit: {path: " +
           auditPath() + "}\n";
  }
  [[nodiscard]] std::string auditPath() const { return dir_.path() + "/audit.jsonl"; }

  // The audit log's "egress" records.
  [[nodiscard]] std::vector<json> egressRecords() const {
    std::vector<json> out;
    const std::string text = readFile(auditPath());
    std::size_t at = 0;
    while (at < text.size()) {
      const std::size_t end = text.find('\n', at);
      auto line = json::parse(text.substr(at, end - at), nullptr, false);
      if (!line.is_discarded() && line.value("event", "") == "egress") out.push_back(line);
      if (end == std::string::npos) break;
      at = end + 1;
    }
    return out;
  }

  static std::string fetch(Gateway& gw, const std::string& sid, const std::string& client,
                           const std::string& url, int id) {
    return text(gw.callTool("eg", sid, "fetch", {{"client", client}, {"url", url}}, id));
  }

  TempDir dir_;
};

TEST_F(Egress, AnAllowedPortIsReachedAndEveryOtherRefusedForNodePythonAndCurl) {
  LoopbackHttp allowed("reached-the-allowed-listener");
  LoopbackHttp other("must-never-be-reached");
  Gateway gw(config("      network: allowlist\n      allow: [\"127.0.0.1:" +
                    std::to_string(allowed.port()) + "\"]\n"));
  const std::string sid = gw.initialize("eg");
  const std::string p1 = "http://127.0.0.1:" + std::to_string(allowed.port()) + "/";
  const std::string p2 = "http://127.0.0.1:" + std::to_string(other.port()) + "/";
  const std::string own = "http://127.0.0.1:" + std::to_string(gw.port()) + "/healthz";
  int id = 10;
  for (const std::string client : {"node", "python", "curl"}) {
    SCOPED_TRACE(client);
    EXPECT_EQ(fetch(gw, sid, client, p1, ++id), "status 200 reached-the-allowed-listener");
    const std::string refused = fetch(gw, sid, client, p2, ++id);
    // Node's fetch reports a refused tunnel as an error; the others show the proxy's 403.
    EXPECT_TRUE(refused.starts_with("status 403 mcpgate egress:") || refused.starts_with("error"))
        << refused;
    const std::string gateway = fetch(gw, sid, client, own, ++id);
    EXPECT_TRUE(gateway.starts_with("status 403 mcpgate egress:") || gateway.starts_with("error"))
        << gateway;
  }
  EXPECT_EQ(allowed.connections(), 3);
  EXPECT_EQ(other.connections(), 0);

  // Each connection: a log line and an audit record naming server, session,
  // host, address and port.
  EXPECT_EQ(logEntries(gw.log(), "egress allowed").size(), 3u) << gw.log();
  EXPECT_EQ(logEntries(gw.log(), "egress refused").size(), 6u) << gw.log();
  ASSERT_TRUE(waitUntil([&] { return egressRecords().size() == 9; }, 5s)) << readFile(auditPath());
  int allowed_records = 0;
  for (const json& r : egressRecords()) {
    EXPECT_EQ(r["server"], "eg");
    EXPECT_EQ(r["session"], sid);
    EXPECT_EQ(r["host"], "127.0.0.1");
    EXPECT_EQ(r["address"], "127.0.0.1");
    const int port = r["port"];
    EXPECT_TRUE(port == allowed.port() || port == other.port() || port == gw.port()) << r.dump();
    EXPECT_EQ(r["allowed"].get<bool>(), port == allowed.port()) << r.dump();
    allowed_records += r["allowed"].get<bool>() ? 1 : 0;
  }
  EXPECT_EQ(allowed_records, 3);
}

TEST_F(Egress, TheGatewaysOwnPortStaysClosedUnderABroadEntry) {
  LoopbackHttp other("any-loopback-port");
  Gateway gw(config("      network: allowlist\n      allow: [127.0.0.0/8]\n"));
  const std::string sid = gw.initialize("eg");
  EXPECT_EQ(fetch(gw, sid, "curl", "http://127.0.0.1:" + std::to_string(other.port()) + "/", 2),
            "status 200 any-loopback-port");
  const std::string own =
      fetch(gw, sid, "curl", "http://127.0.0.1:" + std::to_string(gw.port()) + "/healthz", 3);
  EXPECT_TRUE(own.starts_with("status 403 mcpgate egress:")) << own;
  EXPECT_NE(own.find("gateway"), std::string::npos) << own;
}

TEST_F(Egress, ANameThatResolvesToABlockedAddressIsRefused) {
  // The hosts file maps localhost to 127.0.0.1 (no DNS query leaves): a
  // listed name never opens loopback, whatever it resolves to.
  LoopbackHttp target("must-never-be-reached");
  Gateway gw(config("      network: allowlist\n      allow: [\"localhost:" +
                    std::to_string(target.port()) + "\"]\n"));
  const std::string sid = gw.initialize("eg");
  const std::string url = "http://localhost:" + std::to_string(target.port()) + "/";
  for (const std::string client : {"python", "curl"}) {
    const std::string refused = fetch(gw, sid, client, url, client == "curl" ? 2 : 3);
    EXPECT_TRUE(refused.starts_with("status 403 mcpgate egress:")) << refused;
    EXPECT_NE(refused.find("loopback"), std::string::npos) << refused;
  }
  EXPECT_EQ(target.connections(), 0);
  auto refused = logEntries(gw.log(), "egress refused");
  ASSERT_FALSE(refused.empty()) << gw.log();
  EXPECT_EQ(refused[0]["host"], "localhost");
  EXPECT_EQ(refused[0]["address"], "127.0.0.1");
}

TEST_F(Egress, TheServerIsToldWhereTheProxyIs) {
  Gateway gw(config("      network: allowlist\n      allow: [\"api.example.com:443\"]\n"
                    "      env: {HTTP_PROXY: http://elsewhere:1, NODE_OPTIONS: --inspect}\n"));
  const std::string sid = gw.initialize("eg");
  json env = json::parse(text(gw.callTool(
      "eg", sid, "env",
      {{"names", {"HTTP_PROXY", "https_proxy", "http_proxy", "NO_PROXY", "NODE_OPTIONS"}}})));
  EXPECT_EQ(env["HTTP_PROXY"], "http://127.0.0.1:3128");
  EXPECT_EQ(env["https_proxy"], "http://127.0.0.1:3128");
  EXPECT_EQ(env["http_proxy"], "http://127.0.0.1:3128");
  EXPECT_EQ(env["NO_PROXY"], "");
  EXPECT_EQ(env["NODE_OPTIONS"], "--require /opt/mcpgate/egress-node/env-proxy.cjs");
}

TEST_F(Egress, WithoutAnAllowlistNothingLeavesTheSandbox) {
  LoopbackHttp target("must-never-be-reached");
  Gateway gw(config("      network: none\n"));
  const std::string sid = gw.initialize("eg");
  const std::string out =
      fetch(gw, sid, "curl", "http://127.0.0.1:" + std::to_string(target.port()) + "/", 2);
  EXPECT_TRUE(out.starts_with("error")) << out;
  EXPECT_EQ(target.connections(), 0);
}

// network: host with its block, through the real binary: loopback services
// stay reachable, the gateway's own port (bound at port 0, so known only at
// run time) is refused for Node, Python and curl, and each refusal is an
// egress audit record. Metadata and link-local refusals need a network
// namespace holding those addresses: tests/sandbox/host_block_test.cc.
TEST_F(Egress, AHostNetworkServerReachesLoopbackButNotTheGatewaysPortAndRefusalsAreAudited) {
  LoopbackHttp other("reached-from-the-host-network");
  Gateway gw(config("      network: host\n"));
  const std::string sid = gw.initialize("eg");
  const std::string ok = "http://127.0.0.1:" + std::to_string(other.port()) + "/";
  const std::string own = "http://127.0.0.1:" + std::to_string(gw.port()) + "/healthz";
  int id = 10;
  for (const std::string client : {"node", "python", "curl"}) {
    SCOPED_TRACE(client);
    EXPECT_EQ(fetch(gw, sid, client, ok, ++id), "status 200 reached-from-the-host-network");
    const std::string refused = fetch(gw, sid, client, own, ++id);
    EXPECT_TRUE(refused.starts_with("error")) << refused;
  }
  EXPECT_EQ(other.connections(), 3);
  EXPECT_GE(logEntries(gw.log(), "egress refused").size(), 3u) << gw.log();
  ASSERT_TRUE(waitUntil([&] { return egressRecords().size() >= 3; }, 5s)) << readFile(auditPath());
  for (const json& r : egressRecords()) {
    EXPECT_EQ(r["server"], "eg");
    EXPECT_EQ(r["session"], sid);
    EXPECT_EQ(r["address"], "127.0.0.1");
    EXPECT_EQ(r["port"], gw.port());
    EXPECT_FALSE(r["allowed"].get<bool>());
    EXPECT_NE(r.value("reason", "").find("gateway's own"), std::string::npos) << r.dump();
  }
}

// A process in the background (the stand-in registry), killed at the end;
// its first line of output is read with a timeout.
class Background {
 public:
  explicit Background(std::vector<std::string> argv) {
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    if (::posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), ::environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    out_ = out[0];
  }
  ~Background() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) ::close(out_);
  }
  std::string firstLine(std::chrono::milliseconds timeout) {
    std::string line;
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < until) {
      pollfd p{out_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      char c[256];
      const ssize_t n = ::read(out_, c, sizeof c);
      if (n <= 0) break;
      line.append(c, static_cast<std::size_t>(n));
    }
    return line.substr(0, line.find('\n'));
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
};

// A stand-in npm registry on loopback serving the egress-probe package, whose
// install script looks for SERVER_SECRET and tries `other`, and `mcpgate
// install` of a server using it with npm configured for the registry at `host`.
class Install : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.emplace(std::vector<std::string>{
        "node", sourceDir() + "/tests/servers/stand_in_registry.mjs",
        std::to_string(other.port()), dir.path() + "/registry"});
    port = registry_->firstLine(15s);
    ASSERT_FALSE(port.empty()) << "the stand-in registry did not start";
  }
  // The install's output and exit code; `found`: what the install script saw.
  CommandResult install(const std::string& host) {
    const std::string config = dir.write(
        "gw.yaml", "cache_dir: " + dir.path() +
                       "/cache\n"
                       "servers:\n"
                       "  probe:\n"
                       "    command: npx\n"
                       "    args: [-y, egress-probe]\n"
                       "    env: {SERVER_SECRET: do-not-leak}\n");
    auto r = runCommand("npm_config_registry=http://" + host + ":" + port + "/ " +
                        mcpgateBinary() + " install -c " + config + " 2>&1");
    found = readFile(dir.path() + "/cache/npm/probe/probe-result.json");
    return r;
  }
  TempDir dir;
  LoopbackHttp other{"must-never-be-reached"};
  std::string port;
  std::string found;

 private:
  std::optional<Background> registry_;
};

// `mcpgate install` runs npm with none of the server's env, and a network of
// the registry alone: an install script that looks for the server's secret and
// tries another loopback port finds nothing and reaches nothing.
TEST_F(Install, AnInstallScriptFindsNoServerVariableAndReachesOnlyTheRegistry) {
  // npm on this host is configured for the stand-in (npm config get registry).
  const auto r = install("127.0.0.1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_FALSE(found.empty()) << "the install script did not run\n" << r.output;
  const json result = json::parse(found);
  EXPECT_TRUE(result["server_secret"].is_null()) << found;
  for (const json& name : result["variables"]) EXPECT_NE(name, "SERVER_SECRET");
  // Its own network namespace: no route to the host's loopback; the proxy refuses the port.
  EXPECT_EQ(result["direct"], "ECONNREFUSED") << found;
  EXPECT_EQ(result["via_proxy"], 403) << found;
  EXPECT_EQ(other.connections(), 0);
  EXPECT_NE(r.output.find("egress allowed 127.0.0.1 (127.0.0.1) port " + port), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("egress refused 127.0.0.1 (127.0.0.1) port " +
                          std::to_string(other.port())),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("do-not-leak"), std::string::npos) << r.output;
}

// A registry named by a host name that resolves to a range an allowlist name never reaches
// (here localhost: loopback) is still the registry npm is configured for: mcpgate install pins
// the addresses the name has now, and every other port stays refused.
TEST_F(Install, ARegistryNamedByAHostNameIsReachedWhateverRangeItResolvesTo) {
  const auto r = install("localhost");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_FALSE(found.empty()) << "the install script did not run\n" << r.output;
  EXPECT_EQ(json::parse(found)["via_proxy"], 403) << found;
  EXPECT_EQ(other.connections(), 0);
  EXPECT_NE(r.output.find("egress allowed localhost (127.0.0.1) port " + port), std::string::npos)
      << r.output;
}

// The sandbox's report comes on its own channel: a server printing a line
// that imitates it is logged as what it is, the server's output.
TEST(SandboxChannels, AFakeReportLineOnStderrIsLoggedAsServerOutput) {
  Gateway gw("listen: 127.0.0.1:0\nservers:\n" + testServerYaml("test"));
  const std::string sid = gw.initialize("test");
  const std::string fake_report =
      R"(mcpgate sandbox: {"sandbox":{"enforced":[],"degraded":[{"layer":"seccomp","reason":"fake"}],"noted":[]}})";
  const std::string fake_refusal = "mcpgate sandbox: refusing to start: a fake refusal";
  (void)gw.callTool("test", sid, "stderr", {{"text", fake_report}}, 2);
  (void)gw.callTool("test", sid, "stderr", {{"text", fake_refusal}}, 3);
  ASSERT_TRUE(waitUntil(
      [&] {
        for (const json& line : logEntries(gw.log(), "server stderr")) {
          if (line["line"] == fake_refusal) return true;
        }
        return false;
      },
      5s))
      << gw.log();
  bool report_as_output = false;
  for (const json& line : logEntries(gw.log(), "server stderr")) {
    report_as_output = report_as_output || line["line"] == fake_report;
  }
  EXPECT_TRUE(report_as_output) << gw.log();
  // Only the real report, with nothing degraded, and no refusal.
  auto reports = logEntries(gw.log(), "sandbox");
  ASSERT_EQ(reports.size(), 1u) << gw.log();
  EXPECT_TRUE(reports[0]["degraded"].empty()) << reports[0].dump();
  EXPECT_TRUE(logEntries(gw.log(), "sandbox refused to start the server").empty()) << gw.log();
}

// A flood that stops is still reported: the dropped count is logged when its
// window closes, with no later line to trigger it.
TEST(SandboxChannels, DroppedStderrLinesAreCountedWhenTheFloodStops) {
  Gateway gw("listen: 127.0.0.1:0\nservers:\n" +
             testServerYaml("test", "      stderr: {lines_per_second: 1, burst: 2}\n"));
  const std::string sid = gw.initialize("test");
  (void)gw.callTool("test", sid, "stderr", {{"lines", 60}}, 2);
  ASSERT_TRUE(waitUntil(
      [&] { return !logEntries(gw.log(), "server stderr lines dropped (rate limit)").empty(); },
      5s))
      << gw.log();
  const auto dropped = logEntries(gw.log(), "server stderr lines dropped (rate limit)");
  EXPECT_GE(dropped[0]["dropped"].get<int>(), 55) << dropped[0].dump();
  EXPECT_EQ(dropped[0]["server"], "test");
  EXPECT_LE(logEntries(gw.log(), "server stderr").size(), 5u) << gw.log();
}

}  // namespace
}  // namespace mcpgate::testing
