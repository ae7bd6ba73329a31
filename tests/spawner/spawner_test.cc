// No root where network input is parsed: mcpgate-spawner runs as root, the
// real gateway runs as an unprivileged uid with no capabilities and starts
// every sandboxed server through the spawner, by name. All as real processes;
// every address is loopback.

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sandbox/spawn.h"
#include "sandbox/spawner_client.h"
#include "tests/gateway/harness.h"

namespace mcpgate::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// The gateway's user: neither root nor nobody (the sandboxed servers' uid).
constexpr uid_t kGatewayUid = 64123;
constexpr const char* kProbeDir = ESCAPE_PROBE_DIR;

// mcpgate-spawner as root, on a socket in its own directory, serving kGatewayUid.
class Spawner {
 public:
  explicit Spawner(const std::string& config_yaml, const std::vector<std::string>& env = {}) {
    ::chmod(dir_.path().c_str(), 0711);  // kGatewayUid reaches the socket, lists nothing
    config_ = dir_.write("spawner.yaml", config_yaml);
    socket_ = dir_.path() + "/spawner.sock";
    log_ = dir_.path() + "/spawner.log";
    pid_ = ::fork();
    if (pid_ == 0) {
      const int log = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(log, STDERR_FILENO);
      for (const auto& e : env) ::putenv(const_cast<char*>(e.c_str()));
      ::execl(SPAWNER_BIN, SPAWNER_BIN, "--config", config_.c_str(), "--socket", socket_.c_str(),
              "--gateway-user", std::to_string(kGatewayUid).c_str(), nullptr);
      ::_exit(127);
    }
    if (!waitUntil([&] { return log().find("spawner listening") != std::string::npos; }, 20s))
      throw std::runtime_error("the spawner did not start; log:\n" + log());
  }
  ~Spawner() {
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }
  [[nodiscard]] pid_t pid() const { return pid_; }
  [[nodiscard]] const std::string& socket() const { return socket_; }
  [[nodiscard]] std::string log() const { return readFile(log_); }
  [[nodiscard]] const TempDir& dir() const { return dir_; }

 private:
  TempDir dir_;
  std::string config_, socket_, log_;
  pid_t pid_ = -1;
};

// A config whose servers the spawner and the gateway both read: the test
// server, and a remote one (not the spawner's to start).
// One DLP rule cache for the unprivileged gateways of every test here, beside this binary and
// owned by kGatewayUid: each would otherwise compile every pack (its HOME is root's, whose
// cache it cannot use), over 40 s under ASan.
std::string gatewayCacheDir() {
  std::error_code ec;
  const auto dir = std::filesystem::canonical("/proc/self/exe", ec).parent_path() /
                   "unprivileged-gateway-cache";
  ::mkdir(dir.c_str(), 0700);
  (void)::chown(dir.c_str(), kGatewayUid, kGatewayUid);
  ::chmod(dir.c_str(), 0700);
  return dir.string();
}

std::string configYaml(const std::string& state_dir, const std::string& test_extra = "") {
  return "listen: 127.0.0.1:0\nstate_dir: " + state_dir + "\ncache_dir: " + gatewayCacheDir() +
         "\nservers:\n" +
         testServerYaml("test", test_extra) +
         "  remote:\n    url: http://127.0.0.1:9/mcp\n"
         "session: {idle_timeout: 60s, grace: 2s, request_timeout: 10s}\n";
}

// Runs `body` in a child process with the given uid (and gid, no groups); what
// it returns comes back as text.
std::string asUser(uid_t uid, const std::function<std::string()>& body) {
  std::array<int, 2> out{};
  if (::pipe(out.data()) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(out[0]);
    if (uid != 0 && (::setgroups(0, nullptr) != 0 || ::setresgid(uid, uid, uid) != 0 ||
                     ::setresuid(uid, uid, uid) != 0)) {
      ::_exit(1);
    }
    const std::string result = body();
    (void)!::write(out[1], result.data(), result.size());
    ::_exit(0);
  }
  ::close(out[1]);
  std::string result;
  std::array<char, 4096> buffer{};
  for (ssize_t n; (n = ::read(out[0], buffer.data(), buffer.size())) > 0;)
    result.append(buffer.data(), n);
  ::close(out[0]);
  ::waitpid(pid, nullptr, 0);
  return result;
}

// Requests in turn on one fresh connection, and the spawner's answers joined
// with " | " (or why none came).
std::string askAll(uid_t uid, const std::string& socket_path,
                   const std::vector<std::string>& requests) {
  return asUser(uid, [&]() -> std::string {
    const int fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0)
      return std::string("connect: ") + ::strerrorname_np(errno);
    timeval timeout{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    std::string answers;
    for (const std::string& request : requests) {
      (void)!::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
      std::array<char, 512> reply{};
      const ssize_t n = ::recv(fd, reply.data(), reply.size(), 0);  // descriptors are dropped
      answers += (answers.empty() ? "" : " | ") + (n > 0 ? std::string(reply.data(), n) : "EOF");
    }
    return answers;
  });
}

// One request on a fresh connection, and the spawner's answer (or why none came).
std::string ask(uid_t uid, const std::string& socket_path, const std::string& request) {
  return asUser(uid, [&]() -> std::string {
    const int fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0)
      return std::string("connect: ") + ::strerrorname_np(errno);
    timeval timeout{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    (void)!::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    std::array<char, 512> reply{};
    const ssize_t n = ::recv(fd, reply.data(), reply.size(), 0);
    return n > 0 ? std::string(reply.data(), n) : "no answer";
  });
}

// /proc/PID/status fields, whole lines: "Uid:\t64123\t64123\t64123\t64123".
std::string statusLine(pid_t pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(key + ":")) return line;
  }
  return "";
}

// The processes holding a TCP socket that listens on `port` (/proc/net/tcp*).
std::set<pid_t> listenersOn(int port) {
  std::set<std::string> inodes;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retr, uid, timeout, inode;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retr >> uid >> timeout >>
          inode;
      const int local_port = std::stoi(local.substr(local.rfind(':') + 1), nullptr, 16);
      if (state == "0A" && local_port == port) inodes.insert("socket:[" + inode + "]");
    }
  }
  std::set<pid_t> holders;
  for (const auto& proc : fs::directory_iterator("/proc")) {
    const std::string name = proc.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code ec;
    for (const auto& fd : fs::directory_iterator(proc.path() / "fd", ec)) {
      std::error_code link_ec;
      if (inodes.contains(fs::read_symlink(fd.path(), link_ec).string()))
        holders.insert(std::stoi(name));
    }
  }
  return holders;
}

// Every listening TCP socket a process holds.
bool holdsAnyTcpListener(pid_t pid) {
  std::set<std::string> listening;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retr, uid, timeout, inode;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retr >> uid >> timeout >>
          inode;
      if (state == "0A") listening.insert("socket:[" + inode + "]");
    }
  }
  std::error_code ec;
  for (const auto& fd : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    std::error_code link_ec;
    if (listening.contains(fs::read_symlink(fd.path(), link_ec).string())) return true;
  }
  return false;
}

class SpawnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "the spawner runs as root; these tests start it";
  }

  Launch unprivileged(const Spawner& spawner) {
    const std::string id = std::to_string(kGatewayUid);
    return Launch{{"/usr/bin/setpriv", "--reuid=" + id, "--regid=" + id, "--clear-groups",
                   "--inh-caps=-all", "--bounding-set=-all", "--"},
                  {"--spawner", spawner.socket()},
                  kGatewayUid};
  }
};

TEST_F(SpawnerTest, AnUnprivilegedGatewayServesCallsThroughServersTheSpawnerStarts) {
  TempDir state;
  // A server secret only the spawner can decrypt: its key is in the spawner's
  // environment alone, and the gateway starts without it.
  const std::string key = "MCPGATE_SECRET_KEY=spawner-only-key-0123456789abcdef0123";
  const std::string value = "value-from-the-store";  // not secret-shaped: DLP would redact it
  // In a subshell: runCommand gives the whole command line stdin from /dev/null.
  const CommandResult set = runCommand("(printf %s " + value + " | " + key + " " + mcpgateBinary() +
                                       " secret set --state-dir " + state.path() + " API_TOKEN)");
  ASSERT_EQ(set.exit_code, 0) << set.output;
  ::chown(state.path().c_str(), kGatewayUid, kGatewayUid);
  const std::string yaml =
      configYaml(state.path(), "    env: {API_TOKEN: \"${secret:API_TOKEN}\"}\n");
  Spawner spawner(yaml, {key});
  Gateway gateway(yaml, {}, unprivileged(spawner));

  const std::string session = gateway.initialize("test");
  ASSERT_FALSE(session.empty()) << gateway.log();
  const json answer = gateway.callTool("test", session, "echo", {{"text", "through the spawner"}});
  EXPECT_EQ(text(answer), "through the spawner") << answer.dump() << "\n" << gateway.log();
  const json secret = gateway.callTool("test", session, "env", {{"name", "API_TOKEN"}}, 101);
  EXPECT_EQ(text(secret), value) << secret.dump();

  // The official SDK client, as an agent would call: a session (and a server) of its own.
  const CommandResult sdk =
      runCommand("node " + sourceDir() + "/tests/spawner/sdk_echo.mjs http://127.0.0.1:" +
                 std::to_string(gateway.port()) + "/mcp/test 5");
  EXPECT_EQ(sdk.exit_code, 0) << sdk.output << gateway.log();
  EXPECT_NE(sdk.output.find("\"ok\":true"), std::string::npos) << sdk.output;

  // The servers are the spawner's children, not the gateway's: the gateway has none.
  EXPECT_FALSE(descendants(spawner.pid()).empty()) << spawner.log();
  EXPECT_TRUE(descendants(gateway.pid()).empty());
  EXPECT_NE(spawner.log().find("spawner started a server"), std::string::npos);

  // What ps shows: the process that accepts connections is not root and has
  // no capability at all; root's process holds no listening socket.
  const std::set<pid_t> holders = listenersOn(gateway.port());
  ASSERT_EQ(holders, std::set<pid_t>{gateway.pid()});
  const std::string id = std::to_string(kGatewayUid);
  EXPECT_EQ(statusLine(gateway.pid(), "Uid"), "Uid:\t" + id + "\t" + id + "\t" + id + "\t" + id);
  EXPECT_EQ(statusLine(gateway.pid(), "CapEff"), "CapEff:\t0000000000000000");
  EXPECT_EQ(statusLine(gateway.pid(), "CapPrm"), "CapPrm:\t0000000000000000");
  EXPECT_EQ(statusLine(gateway.pid(), "CapBnd"), "CapBnd:\t0000000000000000");
  EXPECT_EQ(statusLine(spawner.pid(), "Uid").substr(0, 6), "Uid:\t0");
  EXPECT_FALSE(holdsAnyTcpListener(spawner.pid()));

  // Stopping goes through the spawner too (SIGTERM, the exit status back).
  const auto status = gateway.stop();
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, 0) << gateway.log();
  EXPECT_TRUE(waitUntil([&] { return descendants(spawner.pid()).empty(); }, 10s)) << spawner.log();
  // Every server the spawner started was reaped by it and its status reached the gateway.
  const auto exits = logEntries(gateway.log(), "server exited");
  const auto started = logEntries(spawner.log(), "spawner started a server");
  EXPECT_GE(started.size(), 2u);  // the harness's session and the SDK client's
  EXPECT_EQ(exits.size(), started.size()) << gateway.log();
  EXPECT_EQ(logEntries(spawner.log(), "spawner reaped a server").size(), started.size());
  EXPECT_EQ(gateway.log().find(value), std::string::npos);
  // The gateway's own lack of privilege is not its servers': no layer warnings.
  EXPECT_TRUE(logEntries(gateway.log(),
                         "sandbox layer cannot be enforced on this host: servers with "
                         "on_unavailable: fail that need it will be refused")
                  .empty());
  EXPECT_EQ(spawner.log().find(value), std::string::npos);
}

TEST_F(SpawnerTest, AGatewayThatDiesTakesItsServersWithIt) {
  TempDir state;
  ::chown(state.path().c_str(), kGatewayUid, kGatewayUid);
  const std::string yaml = configYaml(state.path());
  Spawner spawner(yaml);
  Gateway gateway(yaml, {}, unprivileged(spawner));
  for (int i = 0; i < 3; ++i) ASSERT_FALSE(gateway.initialize("test").empty()) << gateway.log();
  ASSERT_TRUE(waitUntil([&] { return descendants(spawner.pid()).size() >= 3; }, 10s));
  ::kill(gateway.pid(), SIGKILL);
  EXPECT_TRUE(waitUntil([&] { return descendants(spawner.pid()).empty(); }, 10s)) << spawner.log();
}

// A listener on 127.0.0.1:<port 0> that answers every request with `body`.
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
    thread_ = std::thread([this] {
      for (int c; (c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC)) >= 0; ::close(c)) {
        ++connections_;
        std::string head;
        std::array<char, 1024> buf{};
        for (ssize_t n; head.find("\r\n\r\n") == std::string::npos &&
                        (n = ::read(c, buf.data(), buf.size())) > 0;) {
          head.append(buf.data(), n);
        }
        const std::string reply =
            "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body_.size()) +
            "\r\nConnection: close\r\n\r\n" + body_;
        (void)!::write(c, reply.data(), reply.size());
      }
    });
  }
  ~LoopbackHttp() {
    ::shutdown(fd_, SHUT_RDWR);
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
  }
  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] int connections() const { return connections_.load(); }

 private:
  std::string body_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<int> connections_{0};
  std::thread thread_;
};

// network: allowlist through the spawner: the sandbox's listener travels from
// the spawner's child to the unprivileged gateway, whose proxy decides.
TEST_F(SpawnerTest, AnAllowlistServerGoesOutThroughTheUnprivilegedGatewaysProxy) {
  TempDir state;
  ::chown(state.path().c_str(), kGatewayUid, kGatewayUid);
  LoopbackHttp allowed("reached-the-allowed-listener");
  LoopbackHttp other("must-never-be-reached");
  const std::string yaml =
      "listen: 127.0.0.1:0\nstate_dir: " + state.path() +
      "\nservers:\n  eg:\n    command: node\n    args: [/opt/mcpgate-tests/egress_client.mjs]\n"
      "    sandbox:\n      binds: [{src: " +
      sourceDir() +
      "/tests/servers, dst: /opt/mcpgate-tests}]\n      network: allowlist\n"
      "      allow: [\"127.0.0.1:" +
      std::to_string(allowed.port()) +
      "\"]\nsession: {idle_timeout: 60s, grace: 2s, request_timeout: 40s}\n";
  Spawner spawner(yaml);
  Gateway gateway(yaml, {}, unprivileged(spawner));
  const std::string session = gateway.initialize("eg");
  ASSERT_FALSE(session.empty()) << gateway.log();
  const auto fetch = [&](int port, int id) {
    return text(gateway.callTool(
        "eg", session, "fetch",
        {{"client", "curl"}, {"url", "http://127.0.0.1:" + std::to_string(port) + "/"}}, id));
  };
  EXPECT_EQ(fetch(allowed.port(), 11), "status 200 reached-the-allowed-listener") << gateway.log();
  EXPECT_TRUE(fetch(other.port(), 12).starts_with("status 403 mcpgate egress:"));
  EXPECT_EQ(allowed.connections(), 1);
  EXPECT_EQ(other.connections(), 0);
  EXPECT_EQ(logEntries(gateway.log(), "egress allowed").size(), 1u) << gateway.log();
}

TEST_F(SpawnerTest, RefusesOtherUsersUnknownNamesAndAnythingButAName) {
  TempDir state;
  const std::string yaml = configYaml(state.path());
  Spawner spawner(yaml);
  const std::string& sock = spawner.socket();
  // Root and any other uid: the socket is the gateway user's alone (0600), and
  // root, which may open it anyway, is refused by its peer credentials.
  EXPECT_EQ(ask(12345, sock, "start test"), "connect: EACCES");
  EXPECT_EQ(ask(0, sock, "start test"), "refused this spawner serves uid 64123 only, not 0");
  // The gateway's uid gets a configured server by name, and nothing more.
  EXPECT_TRUE(
      ask(kGatewayUid, sock, "start nosuch").starts_with("refused no server named 'nosuch'"));
  EXPECT_TRUE(ask(kGatewayUid, sock, "start remote").starts_with("refused it is a remote server"));
  const std::string with_args = ask(kGatewayUid, sock, "start test --inspect=0.0.0.0:9229");
  EXPECT_EQ(with_args, "refused start takes a configured server's name and nothing else");
  const std::string with_spec =
      ask(kGatewayUid, sock, R"(start test {"command": "/bin/sh", "sandbox": null})");
  EXPECT_EQ(with_spec, "refused start takes a configured server's name and nothing else");
  EXPECT_EQ(ask(kGatewayUid, sock, "signal 9"), "refused the first request must be: start NAME");
  EXPECT_EQ(ask(kGatewayUid, sock, "spawn /bin/sh"),
            "refused the first request must be: start NAME");
  EXPECT_EQ(ask(kGatewayUid, sock, "start " + std::string(600, 'a')), "refused request too long");
  // Nothing of the above started a process; the control does.
  EXPECT_EQ(spawner.log().find("spawner started a server"), std::string::npos) << spawner.log();
  const std::string started = ask(kGatewayUid, sock, "start test");
  EXPECT_TRUE(started.starts_with("started ")) << started;
  EXPECT_TRUE(started.ends_with(" pioer")) << started;  // pidfd, stdio, the report channel
  // Once started, only SIGTERM and SIGKILL: anything else ends the process.
  const std::string hangup = askAll(kGatewayUid, sock, {"start test", "signal 1", "signal 15"});
  EXPECT_TRUE(hangup.ends_with(" pioer | refused only SIGTERM and SIGKILL are sent | EOF"))
      << hangup;
  EXPECT_TRUE(waitUntil([&] { return descendants(spawner.pid()).empty(); }, 10s)) << spawner.log();
}

// The sandbox holds for a server the spawner starts as it does for one the
// gateway starts itself (tests/sandbox: the whole battery): escape_probe,
// configured with its attempts as arguments, tries them and prints the errno,
// including against the spawner itself.
TEST_F(SpawnerTest, TheEscapeBatteryHoldsForAServerItStarts) {
  TempDir state;
  const std::string secret = state.write("secret.txt", "secret");
  ::chmod(state.path().c_str(), 0755);
  ::chmod(secret.c_str(), 0644);  // readable by anyone on the host: only the sandbox hides it
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in loopback{};
  loopback.sin_family = AF_INET;
  loopback.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof loopback;
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&loopback), sizeof loopback), 0);
  ASSERT_EQ(::listen(listener, 4), 0);
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&loopback), &len);
  const std::string connect = "connect:" + std::to_string(ntohs(loopback.sin_port));

  // The spawner's pid and socket are known once it runs; its config names them:
  // a config reload (SIGHUP) brings in the probe with its final arguments.
  const std::string probe = std::string(kProbeDir) + "/escape_probe";
  const auto config = [&](const std::string& args) {
    return "sandbox: {commands: [" + probe + "]}\nstate_dir: " + state.path() +
           "/state\nservers:\n  probe:\n    command: " + probe + "\n    args: [" + args +
           "]\n    sandbox:\n      binds: [{src: " + kProbeDir + ", dst: " + kProbeDir + "}]\n";
  };
  Spawner spawner(config("ids"));
  const std::string me = std::to_string(spawner.pid());
  const std::vector<std::string> attempts = {"read:" + secret,
                                             "write:/usr/mcpgate-escape",
                                             "kill:" + me,
                                             "read:/proc/" + me + "/environ",
                                             "unix:" + spawner.socket(),
                                             connect,
                                             "ptrace",
                                             "mount",
                                             "unshare",
                                             "keyctl",
                                             "socket-packet",
                                             "exit:3"};
  std::string args;
  for (const auto& a : attempts) args += (args.empty() ? "" : ", ") + ("'" + a + "'");
  std::ofstream(spawner.dir().path() + "/spawner.yaml") << config(args);
  ::kill(spawner.pid(), SIGHUP);
  ASSERT_TRUE(waitUntil(
      [&] { return spawner.log().find("spawner config reloaded") != std::string::npos; }, 10s))
      << spawner.log();

  const std::string out = asUser(kGatewayUid, [&]() -> std::string {
    auto child = sandbox::spawner::startThrough(spawner.socket(), "probe");
    if (!child) return "start failed: " + child.error().message;
    std::string text;
    pollfd out_fd{child->stdout_fd.get(), POLLIN, 0};
    for (;;) {
      if (::poll(&out_fd, 1, 20000) <= 0) return text + "\n(stdout timed out)";
      std::array<char, 4096> buffer{};
      const ssize_t n = ::read(child->stdout_fd.get(), buffer.data(), buffer.size());
      if (n < 0 && errno == EAGAIN) continue;
      if (n <= 0) break;
      text.append(buffer.data(), n);
    }
    pollfd exit_fd{sandbox::exitNoticeFd(*child), POLLIN, 0};
    if (::poll(&exit_fd, 1, 20000) <= 0) return text + "\n(no exit status)";
    const auto status = sandbox::tryReap(*child);
    return text + "status: " + (status ? sandbox::describeExit(*status) : "none") + "\n";
  });
  ::close(listener);
  const auto action = [&](const std::string& name) {
    const auto at = out.find(name + ": ");
    if (at == std::string::npos) return "(none for " + name + " in: " + out + ")";
    return out.substr(at + name.size() + 2, out.find('\n', at) - at - name.size() - 2);
  };
  EXPECT_EQ(action("read:" + secret), "ENOENT");
  EXPECT_EQ(action("write:/usr/mcpgate-escape"), "EROFS");
  EXPECT_EQ(action("kill:" + me), "ESRCH");  // the spawner is outside its pid namespace
  EXPECT_EQ(action("read:/proc/" + me + "/environ"), "ENOENT");
  EXPECT_EQ(action("unix:" + spawner.socket()), "ENOENT");  // not in its filesystem
  EXPECT_EQ(action(connect), "ECONNREFUSED");               // its own loopback, not the host's
  EXPECT_EQ(action("ptrace"), "EPERM");
  EXPECT_EQ(action("mount"), "EPERM");
  EXPECT_EQ(action("unshare"), "EPERM");
  EXPECT_EQ(action("keyctl"), "EPERM");
  EXPECT_EQ(action("socket-packet"), "EAFNOSUPPORT");
  EXPECT_EQ(action("status"), "exited with status 3") << out;  // the status came back
  EXPECT_FALSE(fs::exists("/usr/mcpgate-escape"));
}

}  // namespace
}  // namespace mcpgate::testing
