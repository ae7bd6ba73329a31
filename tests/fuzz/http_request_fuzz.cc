// The gateway's HTTP request path in process: what a client sends on one connection goes through
// the real transport (the raw header checks, Beast's parser, the framing checks, the Endpoint, the
// reply and event-stream writer) on a loopback TCP connection the target makes to itself. The
// config has one remote server on a loopback port nothing listens on, so an initialize reaches
// the session table and the remote upstream, which fails fast. Properties: the gateway answers
// every input or closes the connection, within 10 s; whatever it writes is HTTP/1.x responses.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "config/config.h"
#include "gateway/guard/generation.h"
#include "gateway/http/connection.h"
#include "gateway/observe/log.h"
#include "gateway/session/io_pool.h"
#include "gateway/session/sessions.h"
#include "tests/fuzz/fuzz_check.h"

namespace asio = boost::asio;
namespace gw = mcpgate::gateway;
using mcpgate::fuzz::broken;
using mcpgate::fuzz::check;

namespace {

// A loopback port with no listener: bound, never listened on, so connects to it are refused.
int closedPort(int& holder) {
  holder = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(holder, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      ::getsockname(holder, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    broken("cannot bind a loopback port");
  }
  return ntohs(addr.sin_port);
}

struct World {
  World() {
    int holder = -1;
    const int port = closedPort(holder);
    char dir[] = "/tmp/mcpgate-http-fuzz-XXXXXX";
    if (::mkdtemp(dir) == nullptr) broken("mkdtemp");
    const std::string path = std::string(dir) + "/gateway.yaml";
    std::ofstream(path) << "listen: 127.0.0.1:0\n"
                           "log_level: error\n"
                           "state_dir: "
                        << dir
                        << "\n"
                           "servers:\n"
                           "  remote:\n"
                           "    url: http://127.0.0.1:"
                        << port
                        << "/mcp\n"
                           "session: {idle_timeout: 1s, request_timeout: 2s, grace: 1s}\n"
                           "limits: {max_body_bytes: 64KiB}\n"
                           "dlp:\n"
                           "  rules: ["
                        << MCPGATE_SOURCE_DIR << "/rules]\n";
    auto config = mcpgate::config::loadConfig(path);
    if (!config) broken("the fuzz config does not load: " + config.error().message);
    gw::log::setLevel(gw::log::Level::kError);
    auto generation = gw::buildGeneration(*config);
    if (!generation) broken("the fuzz config does not build: " + generation.error());
    current = std::make_shared<gw::CurrentGeneration>(*generation);
    sessions = std::make_unique<gw::SessionTable>(pool, current);
    acceptor.open(asio::ip::tcp::v4());
    acceptor.bind({asio::ip::make_address("127.0.0.1"), 0});
    acceptor.listen();
    runner = std::thread([this] { pool.run(); });
  }
  // One worker, run by its own thread as the gateway runs its workers: the connections, the
  // sessions and their upstreams.
  gw::IoPool pool{1};
  std::thread runner;
  std::shared_ptr<gw::CurrentGeneration> current;
  std::unique_ptr<gw::SessionTable> sessions;
  asio::ip::tcp::acceptor acceptor{pool.main()};
};

World& world() {
  static World* w = new World();  // never destroyed: the pool's threads outlive the fuzzer's exit
  return *w;
}

// A connect interrupted by a signal goes on in the kernel: wait for it and return its outcome,
// 0 or an errno. libFuzzer's timer is SIGALRM every timeout/2 + 1 s (11 s for CI's -timeout=20),
// so a loaded host's connect, waiting on the loopback handshake, could meet it: that was the
// silent CI failure of sessions 9-13 (tests/fuzz/README.md).
int finishConnect(int fd) {
  pollfd pfd{fd, POLLOUT, 0};
  while (::poll(&pfd, 1, 10'000) < 0 && errno == EINTR) {
  }
  int error = ETIMEDOUT;
  socklen_t len = sizeof error;
  if ((pfd.revents & (POLLOUT | POLLERR | POLLHUP)) != 0 &&
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0) {
    error = errno;
  }
  return error;
}

// A client socket connected to the target's own listener (accepted at once: it is connected).
int connectTo(std::uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) broken(std::string("socket: ") + std::strerror(errno));
  int error = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 ? 0 : errno;
  if (error == EINTR) error = finishConnect(fd);
  if (error != 0) broken(std::string("connect to the gateway: ") + std::strerror(error));
  return fd;
}

// Reads what is there without blocking; false at EOF or on an error.
bool drain(int fd, std::string& into) {
  char buf[16384];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) {
      into.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 128 * 1024) return 0;
  World& w = world();
  const int client = connectTo(w.acceptor.local_endpoint().port());
  asio::ip::tcp::socket server(w.pool.main());
  w.acceptor.accept(server);
  gw::serveConnection(std::move(server), w.current, *w.sessions);

  // The request bytes, then the end of the client's side: the gateway answers what it read.
  std::size_t sent = 0;
  if (size == 0) ::shutdown(client, SHUT_WR);
  std::string answer;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    pollfd pfd{client, static_cast<short>(POLLIN | (sent < size ? POLLOUT : 0)), 0};
    (void)::poll(&pfd, 1, 100);
    if (sent < size && (pfd.revents & POLLOUT) != 0) {
      const ssize_t n = ::send(client, data + sent, size - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0) sent += static_cast<std::size_t>(n);
      if (n < 0 && errno != EAGAIN && errno != EINTR) sent = size;  // it closed: read the rest
      if (sent == size) ::shutdown(client, SHUT_WR);
    }
    if (!drain(client, answer)) break;
    check(std::chrono::steady_clock::now() < deadline,
          "the gateway neither answered nor closed within 10 s");
  }
  // Reset, not FIN: hundreds of clients a second would each leave a port in TIME_WAIT.
  const linger reset{1, 0};
  (void)::setsockopt(client, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
  ::close(client);
  check(answer.empty() || answer.starts_with("HTTP/1.1 ") || answer.starts_with("HTTP/1.0 "),
        "the gateway wrote something that is not an HTTP response: " + answer.substr(0, 64));
  return 0;
}
