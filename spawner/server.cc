#include "spawner/server.h"

#include <poll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <charconv>
#include <cstring>
#include <expected>
#include <iostream>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "gateway/cli/serve_common.h"
#include "gateway/observe/log.h"
#include "gateway/upstream/spawn_spec.h"
#include "sandbox/fd_passing.h"
#include "sandbox/spawn.h"
#include "sandbox/spawner_client.h"

namespace mcpgate::spawner {

namespace {

namespace log = gateway::log;
using sandbox::UniqueFd;
namespace wire = sandbox::spawner;

// Each connection holds at most one server; past this many, new ones are closed.
constexpr std::size_t kMaxConnections = 4096;

// One gateway connection: the handle of at most one server process.
struct Connection {
  UniqueFd fd;
  // Set for a peer that is not the gateway: its first request gets this
  // answer. (Closing before reading its request would reset the connection
  // and the peer would learn nothing.)
  std::string refusal;
  pid_t pid = -1;  // the sandbox supervisor, once started
  UniqueFd pidfd;
  std::string server;
};

// A process whose connection closed: killed, waiting to be reaped.
struct Orphan {
  pid_t pid;
  UniqueFd pidfd;
};

std::expected<UniqueFd, std::string> listenOn(const Options& options) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (options.socket_path.size() >= sizeof address.sun_path)
    return std::unexpected("path too long");
  std::memcpy(address.sun_path, options.socket_path.c_str(), options.socket_path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return std::unexpected(std::string("socket: ") + std::strerror(errno));
  ::unlink(options.socket_path.c_str());  // a stale socket of an earlier run
  // Made 0600 from the start (umask), then given to the gateway's user: only
  // it (and root) may connect; SO_PEERCRED then refuses root too.
  const mode_t old = ::umask(0177);
  const int bound = ::bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address);
  ::umask(old);
  if (bound != 0) return std::unexpected(std::string("bind: ") + std::strerror(errno));
  if (::chown(options.socket_path.c_str(), options.gateway_uid, options.gateway_gid) != 0)
    return std::unexpected(std::string("chown: ") + std::strerror(errno));
  if (::listen(fd.get(), 128) != 0)
    return std::unexpected(std::string("listen: ") + std::strerror(errno));
  return fd;
}

bool reply(const Connection& c, std::string_view text, std::span<const int> fds = {}) {
  return sandbox::sendWithFds(c.fd.get(), text.data(), text.size(), fds, MSG_DONTWAIT);
}

// Only what the config names may be asked for: a name, nothing after it.
bool plainName(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  for (char ch : name) {
    if (ch <= ' ' || ch == 0x7f) return false;
  }
  return true;
}

class Spawner {
 public:
  Spawner(const Options& options, std::shared_ptr<const config::Config> config)
      : options_(options), config_(std::move(config)) {}

  int run(UniqueFd listener, UniqueFd signals);

 private:
  void accept();
  // False when the connection is done with (closed, refused, or its process reaped).
  bool onRequest(Connection& c);
  bool start(Connection& c, std::string_view name);
  bool onExit(Connection& c);
  void drop(Connection& c);
  bool onSignal();
  void reload();
  void refuse(Connection& c, const std::string& why) {
    log::warn("spawner refused a request", {{"reason", why}, {"server", c.server}});
    (void)reply(c, std::string(wire::kRefused) + why);
  }

  const Options& options_;
  std::shared_ptr<const config::Config> config_;
  UniqueFd listener_, signals_;
  std::list<Connection> connections_;
  std::list<Orphan> orphans_;
  bool stopping_ = false;
};

void Spawner::accept() {
  UniqueFd fd(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
  if (!fd.valid()) return;
  ucred peer{};
  socklen_t len = sizeof peer;
  Connection c;
  c.fd = std::move(fd);
  if (::getsockopt(c.fd.get(), SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 ||
      peer.uid != options_.gateway_uid) {
    c.refusal = "this spawner serves uid " + std::to_string(options_.gateway_uid) + " only, not " +
                std::to_string(peer.uid);
  }
  if (connections_.size() >= kMaxConnections) {
    refuse(c, "too many server processes (" + std::to_string(kMaxConnections) + ")");
    return;
  }
  connections_.push_back(std::move(c));
}

bool Spawner::onRequest(Connection& c) {
  std::array<char, wire::kMaxMessage> buffer{};
  const ssize_t n = ::recv(c.fd.get(), buffer.data(), buffer.size(), MSG_DONTWAIT | MSG_TRUNC);
  if (n < 0) return errno == EAGAIN || errno == EINTR;
  if (n == 0) return false;  // the gateway let go of its process: drop() kills it
  if (static_cast<std::size_t>(n) > buffer.size()) {
    refuse(c, "request too long");
    return false;
  }
  const std::string_view request(buffer.data(), static_cast<std::size_t>(n));
  if (!c.refusal.empty()) {
    refuse(c, c.refusal);
    return false;
  }
  if (c.pid < 0) {
    if (!request.starts_with(wire::kStart)) {
      refuse(c, "the first request must be: start NAME");
      return false;
    }
    return start(c, request.substr(wire::kStart.size()));
  }
  if (request.starts_with(wire::kSignal)) {
    const std::string_view number = request.substr(wire::kSignal.size());
    int sig = 0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), sig);
    if (ec != std::errc() || end != number.data() + number.size() ||
        (sig != SIGTERM && sig != SIGKILL)) {
      refuse(c, "only SIGTERM and SIGKILL are sent");
      return false;
    }
    ::syscall(SYS_pidfd_send_signal, c.pidfd.get(), sig, nullptr, 0);
    return true;
  }
  refuse(c, "unknown request");
  return false;
}

bool Spawner::start(Connection& c, std::string_view name) {
  if (!plainName(name)) {
    refuse(c, "start takes a configured server's name and nothing else");
    return false;
  }
  c.server = std::string(name);
  const auto found = config_->servers.find(c.server);
  if (found == config_->servers.end()) {
    refuse(c, "no server named '" + c.server + "' in " + config_->source);
    return false;
  }
  auto spec = gateway::spawnSpecFor(*config_, found->second);
  if (!spec) {
    refuse(c, spec.error());
    return false;
  }
  auto child = sandbox::spawn(*spec);
  if (!child) {
    refuse(c, child.error().message);
    return false;
  }
  c.pid = child->pid;
  std::string names = "pioe";
  std::vector<int> fds = {child->pidfd.get(), child->stdin_fd.get(), child->stdout_fd.get(),
                          child->stderr_fd.get()};
  if (child->report_fd.valid()) {
    names += 'r';
    fds.push_back(child->report_fd.get());
  }
  if (child->egress_fd.valid()) {
    names += 'g';
    fds.push_back(child->egress_fd.get());
  }
  c.pidfd = std::move(child->pidfd);  // ours stays for reaping; the gateway gets a copy
  log::info("spawner started a server", {{"server", c.server}, {"pid", c.pid}});
  // The pipes' ends leave with `child` once the gateway has its copies.
  return reply(c, std::string(wire::kStarted) + std::to_string(c.pid) + " " + names, fds);
}

// The process ended: reap it and say how. The connection then closes.
bool Spawner::onExit(Connection& c) {
  int status = 0;
  if (::waitpid(c.pid, &status, WNOHANG) != c.pid) return true;
  log::info("spawner reaped a server",
            {{"server", c.server}, {"pid", c.pid}, {"status", sandbox::describeExit(status)}});
  c.pid = -1;
  c.pidfd.reset();
  (void)reply(c, std::string(wire::kExited) + std::to_string(status));
  return false;
}

// The gateway closed (or broke the protocol): its process goes too.
void Spawner::drop(Connection& c) {
  if (c.pid > 0) {
    ::syscall(SYS_pidfd_send_signal, c.pidfd.get(), SIGKILL, nullptr, 0);
    orphans_.push_back({c.pid, std::move(c.pidfd)});
    c.pid = -1;
  }
}

bool Spawner::onSignal() {
  signalfd_siginfo info{};
  if (::read(signals_.get(), &info, sizeof info) != sizeof info) return true;
  if (info.ssi_signo == SIGHUP) {
    reload();
    return true;
  }
  log::info("spawner stopping", {{"signal", ::strsignal(static_cast<int>(info.ssi_signo))}});
  return false;
}

void Spawner::reload() {
  auto loaded = config::loadConfig(options_.config_path);
  if (!loaded) {
    log::error("spawner config reload failed; keeping the loaded one",
               {{"error", loaded.error().message}});
    return;
  }
  config_ = *loaded;
  log::info("spawner config reloaded", {{"config", config_->source}});
}

int Spawner::run(UniqueFd listener, UniqueFd signals) {
  listener_ = std::move(listener);
  signals_ = std::move(signals);
  std::vector<pollfd> polled;
  while (!stopping_) {
    // [signals, listener, then per connection: its socket and its pidfd, then orphans' pidfds]
    polled.clear();
    polled.push_back({signals_.get(), POLLIN, 0});
    polled.push_back({listener_.get(), POLLIN, 0});
    for (const Connection& c : connections_) {
      polled.push_back({c.fd.get(), POLLIN, 0});
      polled.push_back({c.pid > 0 ? c.pidfd.get() : -1, POLLIN, 0});
    }
    for (const Orphan& o : orphans_) polled.push_back({o.pidfd.get(), POLLIN, 0});
    if (::poll(polled.data(), polled.size(), -1) < 0) {
      if (errno == EINTR) continue;
      log::error("spawner poll failed", {{"error", std::strerror(errno)}});
      return 1;
    }
    for (auto [it, i] = std::pair{orphans_.begin(), 2 + 2 * connections_.size()};
         it != orphans_.end(); ++i) {
      if (polled[i].revents != 0 && ::waitpid(it->pid, nullptr, WNOHANG) == it->pid) {
        it = orphans_.erase(it);
      } else {
        ++it;
      }
    }
    std::size_t i = 2;  // the orphans went first: the connections may add some not polled
    for (auto it = connections_.begin(); it != connections_.end(); i += 2) {
      bool keep = true;
      if (polled[i + 1].revents != 0) keep = onExit(*it);
      if (keep && polled[i].revents != 0) keep = onRequest(*it);
      if (keep) {
        ++it;
        continue;
      }
      drop(*it);
      it = connections_.erase(it);
    }
    if (polled[1].revents != 0) accept();
    if (polled[0].revents != 0 && !onSignal()) stopping_ = true;
  }
  // The sandboxes die with us (their supervisors' parent-death signal); say so first.
  for (Connection& c : connections_) drop(c);
  for (Orphan& o : orphans_) ::waitpid(o.pid, nullptr, 0);
  ::unlink(options_.socket_path.c_str());
  return 0;
}

}  // namespace

int serve(const Options& options) {
  auto config = config::loadConfig(options.config_path);
  if (!config) {
    std::cerr << config.error().message << "\n";
    return 1;
  }
  (void)log::setLevel((*config)->log_level);
  gateway::warnAboutUnenforceableLayers(**config);
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGHUP, SIGTERM, SIGINT}) sigaddset(&set, sig);
  ::sigprocmask(SIG_BLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  UniqueFd signals(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!signals.valid()) {
    std::cerr << "mcpgate-spawner: signalfd: " << std::strerror(errno) << "\n";
    return 1;
  }
  auto listener = listenOn(options);
  if (!listener) {
    std::cerr << "mcpgate-spawner: cannot listen on " << options.socket_path << ": "
              << listener.error() << "\n";
    return 1;
  }
  std::vector<std::string> names;
  for (const auto& [name, server] : (*config)->servers) {
    if (!server.remote) names.push_back(name);
  }
  log::info("spawner listening", {{"socket", options.socket_path},
                                  {"gateway_uid", options.gateway_uid},
                                  {"servers", names},
                                  {"config", (*config)->source}});
  Spawner spawner(options, *config);
  return spawner.run(std::move(*listener), std::move(signals));
}

}  // namespace mcpgate::spawner
