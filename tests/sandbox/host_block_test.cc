// network: host with its block, against real clients in a real sandbox. The
// test moves itself into a network namespace of its own (root only) and puts
// the metadata address 169.254.169.254, a link-local address 169.254.7.7 and
// fd00:ec2::254 on its loopback interface, with listeners on them: "the host"
// of each sandboxed client is that namespace, so nothing here can reach any
// other network, and a block that failed would show as a connection counted
// by a listener. Each case runs as root and again with the runner dropped to
// nobody (setpriv), as the escape battery does.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <atomic>
#include <memory>
#include <thread>

#include "tests/sandbox/sandbox_test_util.h"

namespace mcpgate::sandbox::tests {
namespace {

inline constexpr const char* kRaceDir = HOST_RACE_DIR;

// Accepts on ADDRESS:PORT, answers each connection with a short HTTP reply and
// counts it; or, for UDP, counts datagrams.
class Listener {
 public:
  Listener(const std::string& ip, std::uint16_t port, int type = SOCK_STREAM) {
    sockaddr_storage ss{};
    socklen_t len = 0;
    const bool v6 = ip.find(':') != std::string::npos;
    if (v6) {
      auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
      a->sin6_family = AF_INET6;
      a->sin6_port = htons(port);
      ::inet_pton(AF_INET6, ip.c_str(), &a->sin6_addr);
      len = sizeof *a;
    } else {
      auto* a = reinterpret_cast<sockaddr_in*>(&ss);
      a->sin_family = AF_INET;
      a->sin_port = htons(port);
      ::inet_pton(AF_INET, ip.c_str(), &a->sin_addr);
      len = sizeof *a;
    }
    fd_ = UniqueFd(::socket(v6 ? AF_INET6 : AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    const int one = 1;
    ::setsockopt(fd_.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    const int buffer = 16 << 20;  // every datagram of a race run fits: none is dropped unseen
    ::setsockopt(fd_.get(), SOL_SOCKET, SO_RCVBUFFORCE, &buffer, sizeof buffer);
    if (::bind(fd_.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0 ||
        (type == SOCK_STREAM && ::listen(fd_.get(), 4096) != 0)) {
      ADD_FAILURE() << "listen on " << ip << ":" << port << ": " << std::strerror(errno);
      return;
    }
    sockaddr_storage bound{};
    socklen_t bound_len = sizeof bound;
    ::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&bound), &bound_len);
    port_ = ntohs(v6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                     : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    thread_ = std::thread([this, type] { serve(type); });
  }
  ~Listener() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  [[nodiscard]] std::uint16_t port() const { return port_; }
  [[nodiscard]] int count() const { return count_.load(); }

  // UDP: counts what is still queued, once the sender is gone.
  int settle() {
    char byte = 0;
    while (::recv(fd_.get(), &byte, 1, MSG_DONTWAIT) >= 0) ++count_;
    return count_.load();
  }

 private:
  void serve(int type) {
    while (!stop_) {
      pollfd p{fd_.get(), POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      if (type == SOCK_DGRAM) {
        char byte = 0;
        while (::recv(fd_.get(), &byte, 1, 0) >= 0) ++count_;
        continue;
      }
      for (;;) {
        UniqueFd c(::accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC));
        if (!c.valid()) break;
        ++count_;
        constexpr std::string_view kReply =
            "HTTP/1.0 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
        (void)!::write(c.get(), kReply.data(), kReply.size());
        ::shutdown(c.get(), SHUT_WR);
      }
    }
  }

  UniqueFd fd_;
  std::uint16_t port_ = 0;
  std::atomic<int> count_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

bool in_own_namespace = false;

// The clients, written where nobody can read them.
fs::path clientDir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("mcpgate-hostblock-" + std::to_string(::getpid()));
    fs::create_directories(d);
    ::chmod(d.c_str(), 0755);
    std::ofstream(d / "client.py") << R"(import socket, sys
# Each target twice: blocking (no timeout) and non-blocking (a timeout).
for target in sys.argv[1:]:
    host, port = target.rsplit(":", 1)
    for timeout in (None, 5):
        try:
            s = socket.create_connection((host.strip("[]"), int(port)), timeout=timeout)
            s.recv(64)
            s.close()
            print("OK", target)
        except OSError as e:
            print("ERR", target, e.errno)
)";
    std::ofstream(d / "client.js") << R"(const net = require('net');
(async () => {
  for (const target of process.argv.slice(2)) {
    const i = target.lastIndexOf(':');
    const host = target.slice(0, i).replace(/^\[|\]$/g, '');
    await new Promise((done) => {
      const s = net.connect({host, port: +target.slice(i + 1)}, () => {
        console.log('OK', target);
        s.destroy();
        done();
      });
      s.on('error', (e) => { console.log('ERR', target, e.code); done(); });
    });
    const status = await fetch(`http://${target}/`).then((r) => r.status, (e) => e.cause?.code);
    console.log('FETCH', target, status);
  }
})();
)";
    for (const char* f : {"client.py", "client.js"}) ::chmod((d / f).c_str(), 0644);
    return d;
  }();
  return dir;
}

class HostNetwork : public testing::TestWithParam<As> {
 public:
  static void SetUpTestSuite() {
    if (::geteuid() != 0) return;
    // Only this process (single-threaded here) and what it starts from now on.
    if (::unshare(CLONE_NEWNET) != 0) return;
    const std::vector<std::vector<std::string>> setup = {
        {"/usr/sbin/ip", "link", "set", "lo", "up"},
        {"/usr/sbin/ip", "addr", "add", "169.254.169.254/32", "dev", "lo"},
        {"/usr/sbin/ip", "addr", "add", "169.254.7.7/32", "dev", "lo"},
        {"/usr/sbin/ip", "-6", "addr", "add", "fd00:ec2::254/128", "dev", "lo", "nodad"},
    };
    for (const auto& argv : setup) {
      if (run(argv).code != 0) return;
    }
    in_own_namespace = true;
  }

 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "the test makes its own network namespace (root)";
    ASSERT_TRUE(in_own_namespace) << "could not set up the test's network namespace";
    if (GetParam() == As::kNobody) {
      Result can = run({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        "/usr/bin/test", "-x", kRunner});
      if (can.code != 0) GTEST_SKIP() << "nobody cannot execute " << kRunner;
    }
  }

  // Runs CMD under network: host with the gateway's port `own`.
  Result sandboxed(const std::vector<std::string>& options, const std::vector<std::string>& cmd) {
    std::vector<std::string> argv;
    if (GetParam() == As::kNobody) {
      argv = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
    }
    argv.insert(argv.end(), {kRunner, "sandbox", "run", "--network", "host", "--bind",
                             clientDir().string() + ":/opt/clients", "--bind",
                             std::string(kRaceDir) + ":/opt/race"});
    if (GetParam() == As::kNobody) argv.insert(argv.end(), {"--on-unavailable", "degrade"});
    argv.insert(argv.end(), options.begin(), options.end());
    argv.emplace_back("--");
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    return run(argv);
  }

  // The refusal the supervisor reported for ADDRESS:PORT.
  static bool refusedLine(const Result& r, const std::string& address, std::uint16_t port) {
    return r.err.find("{\"egress\":{") != std::string::npos &&
           r.err.find("\"address\":\"" + address + "\",\"port\":" + std::to_string(port) +
                      ",\"allowed\":false") != std::string::npos;
  }

  Listener metadata_{"169.254.169.254", 80};
  Listener metadata6_{"fd00:ec2::254", 80};
  Listener link_local_{"169.254.7.7", 80};
  Listener gateway_{"127.0.0.1", 0};
  Listener allowed_{"127.0.0.1", 0};

  [[nodiscard]] std::vector<std::string> targets() const {
    return {"169.254.169.254:80", "[fd00:ec2::254]:80", "169.254.7.7:80",
            "127.0.0.1:" + std::to_string(gateway_.port()),
            "127.0.0.1:" + std::to_string(allowed_.port())};
  }
  [[nodiscard]] std::vector<std::string> ownPort() const {
    return {"--own-port", std::to_string(gateway_.port())};
  }

  void expectOnlyTheAllowedListenerReached(const Result& r) {
    EXPECT_EQ(metadata_.count(), 0) << r.out << r.err;
    EXPECT_EQ(metadata6_.count(), 0) << r.out << r.err;
    EXPECT_EQ(link_local_.count(), 0) << r.out << r.err;
    EXPECT_EQ(gateway_.count(), 0) << r.out << r.err;
    EXPECT_GE(allowed_.count(), 1) << r.out << r.err;
    EXPECT_TRUE(refusedLine(r, "169.254.169.254", 80)) << r.err;
    EXPECT_TRUE(refusedLine(r, "fd00:ec2::254", 80)) << r.err;
    EXPECT_TRUE(refusedLine(r, "169.254.7.7", 80)) << r.err;
    EXPECT_TRUE(refusedLine(r, "127.0.0.1", gateway_.port())) << r.err;
  }
};

INSTANTIATE_TEST_SUITE_P(Both, HostNetwork, testing::Values(As::kRoot, As::kNobody), asName);

TEST_P(HostNetwork, CurlReachesLoopbackButNotMetadataLinkLocalOrTheGateway) {
  std::vector<std::string> cmd = {"/usr/bin/curl", "-sS", "--max-time",     "10", "-o",
                                  "/dev/null",     "-w",  "%{http_code}\\n"};
  for (const auto& t : targets()) cmd.push_back("http://" + t + "/");
  Result r = sandboxed(ownPort(), cmd);
  expectOnlyTheAllowedListenerReached(r);
  EXPECT_NE(r.out.find("200"), std::string::npos) << r.out << r.err;
}

TEST_P(HostNetwork, PythonBlockingAndNonBlockingConnectsAreDecided) {
  std::vector<std::string> cmd = {"/usr/bin/python3", "/opt/clients/client.py"};
  for (const auto& t : targets()) cmd.push_back(t);
  Result r = sandboxed(ownPort(), cmd);
  expectOnlyTheAllowedListenerReached(r);
  EXPECT_EQ(allowed_.count(), 2) << r.out << r.err;
  EXPECT_NE(r.out.find("ERR 169.254.169.254:80 13"), std::string::npos) << r.out;  // EACCES
  EXPECT_NE(r.out.find("OK 127.0.0.1:" + std::to_string(allowed_.port())), std::string::npos)
      << r.out << r.err;
}

TEST_P(HostNetwork, NodeNetAndFetchThroughLibuvAreDecided) {
  std::vector<std::string> cmd = {"/usr/bin/node", "/opt/clients/client.js"};
  for (const auto& t : targets()) cmd.push_back(t);
  Result r = sandboxed(ownPort(), cmd);
  expectOnlyTheAllowedListenerReached(r);
  EXPECT_NE(r.out.find("ERR 169.254.169.254:80 EACCES"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FETCH 127.0.0.1:" + std::to_string(allowed_.port()) + " 200"),
            std::string::npos)
      << r.out << r.err;
}

// What the block is for: the same client without it reaches every listener,
// so the counts above are not an artefact of the test's namespace.
TEST_P(HostNetwork, WithoutTheBlockTheSameClientReachesMetadata) {
  std::vector<std::string> cmd = {"/usr/bin/python3", "/opt/clients/client.py",
                                  "169.254.169.254:80", "169.254.7.7:80"};
  Result r = sandboxed({"--no-host-block", "--report"}, cmd);
  EXPECT_EQ(metadata_.count(), 2) << r.out << r.err;
  EXPECT_EQ(link_local_.count(), 2) << r.out << r.err;
  EXPECT_NE(r.err.find("without its block"), std::string::npos) << r.err;
}

TEST_P(HostNetwork, AnAllowEntryOpensTheLinkLocalAddressItNamesOnly) {
  std::vector<std::string> cmd = {"/usr/bin/python3", "/opt/clients/client.py", "169.254.7.7:80",
                                  "169.254.169.254:80"};
  Result r = sandboxed({"--allow", "169.254.7.7:80", "--allow", "169.254.0.0/16"}, cmd);
  EXPECT_EQ(link_local_.count(), 2) << r.out << r.err;
  EXPECT_EQ(metadata_.count(), 0) << r.out << r.err;  // a CIDR never opens metadata
}

TEST_P(HostNetwork, AnAddressFlippedDuringConnectNeverReachesTheBlockedOne) {
  Result r = sandboxed(ownPort(), {"/opt/race/host_race", "2000", "127.0.0.1",
                                   std::to_string(allowed_.port()), "169.254.169.254", "80"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(metadata_.count(), 0) << r.out;
  EXPECT_GT(allowed_.count(), 0) << r.out << r.err;  // the race ran against real connects
}

// Datagrams name their destination in each call: sendto, sendmsg and
// sendmmsg (glibc's resolver) are made by the supervisor with its copy.
TEST_P(HostNetwork, AnAddressFlippedDuringSendtoSendmsgOrSendmmsgNeverReachesTheBlockedOne) {
  for (const char* mode : {"sendto", "sendmsg", "sendmmsg"}) {
    SCOPED_TRACE(mode);
    Listener blocked("169.254.169.254", 5353, SOCK_DGRAM);
    Listener allowed("127.0.0.1", 0, SOCK_DGRAM);
    Result r = sandboxed({}, {"/opt/race/host_race", "1000", "127.0.0.1",
                              std::to_string(allowed.port()), "169.254.169.254", "5353", mode});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(blocked.settle(), 0) << r.out;
    const int reached = allowed.settle();
    EXPECT_GT(reached, 0) << r.out << r.err;
    // What the program counted as sent (sendmmsg: by msg_len) is what arrived.
    EXPECT_NE(r.out.find("connected " + std::to_string(reached) + " of"), std::string::npos)
        << r.out << " reached " << reached;
  }
}

}  // namespace
}  // namespace mcpgate::sandbox::tests
