#include "gateway/upstream/upstream.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <vector>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "gateway/observe/audit.h"
#include "gateway/observe/log.h"
#include "gateway/observe/metrics.h"
#include "sandbox/cgroup.h"
#include "sandbox/net.h"
#include "sandbox/spawn.h"
#include "sandbox/spawner_client.h"

// g++ 12 misreads Asio's coroutine frame allocator (awaitable_frame_base's own operator new and
// delete) as a mismatched pair at -O1 (the ASan build), as in session/aggregate.cc.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace mcpgate::gateway {

namespace asio = boost::asio;
using asio::as_tuple;
using asio::use_awaitable;
using nlohmann::json;

namespace {

// After the process is gone, how long its stdout may still hold unread output.
constexpr auto kDrainAfterExit = std::chrono::milliseconds(500);
constexpr auto kHoldPoll = std::chrono::milliseconds(10);  // backpressure: how often to look again
// How long the cgroups of a killed supervisor may stay busy before they are left to the next
// sandbox start (as long as a supervisor gives its own groups, in Cgroup::destroy).
constexpr auto kCgroupRemoval = std::chrono::seconds(10);
constexpr auto kCgroupRetry = std::chrono::milliseconds(10);

std::string& spawnerSocket() {
  static auto* const path = new std::string();  // never destroyed: read by workers
  return *path;
}

}  // namespace

void startServersThrough(std::string socket_path) { spawnerSocket() = std::move(socket_path); }
bool startsServersThroughSpawner() { return !spawnerSocket().empty(); }

std::expected<std::shared_ptr<Upstream>, std::string> ChildUpstream::start(
    asio::any_io_executor executor, const sandbox::SpawnSpec& spec, Options options,
    Callbacks callbacks) {
  // Through the spawner only the name travels: it builds the spec from its own config.
  auto child = spawnerSocket().empty() ? sandbox::spawn(spec)
                                       : sandbox::spawner::startThrough(spawnerSocket(), spec.name);
  if (!child) return std::unexpected(child.error().message);
  auto upstream = std::make_shared<ChildUpstream>(executor, std::move(*child), std::move(options),
                                                  std::move(callbacks));
  // Its supervisor makes cgroups that only we can remove if it is SIGKILLed (through the
  // spawner, the spawner is its parent).
  upstream->owns_cgroups_ = spec.sandbox.has_value() && spawnerSocket().empty();
  log::info("server started", {{"server", upstream->options_.server}, {"pid", upstream->pid_}});
  metrics::spawned(upstream->options_.server);
  auto self = upstream;
  asio::co_spawn(
      executor, [self] { return self->readMessages(); }, asio::detached);
  asio::co_spawn(
      executor, [self] { return self->readStderr(); }, asio::detached);
  asio::co_spawn(
      executor, [self] { return self->watchExit(); }, asio::detached);
  if (upstream->report_.is_open()) {
    asio::co_spawn(
        executor, [self] { return self->readReport(); }, asio::detached);
  }
  if (upstream->egress_.is_open()) {
    asio::co_spawn(
        executor, [self] { return self->serveEgress(); }, asio::detached);
  }
  return upstream;
}

ChildUpstream::ChildUpstream(asio::any_io_executor executor, sandbox::Child child, Options options,
                             Callbacks callbacks)
    : executor_(executor),
      child_(std::move(child)),
      pid_(child_.pid),
      options_(std::move(options)),
      callbacks_(std::move(callbacks)),
      stdin_(executor, child_.stdin_fd.release()),
      stdout_(executor, child_.stdout_fd.release()),
      stderr_(executor, child_.stderr_fd.release()),
      pidfd_(executor, ::fcntl(sandbox::exitNoticeFd(child_), F_DUPFD_CLOEXEC, 0)),
      report_(executor),
      egress_(executor),
      kill_timer_(executor),
      drain_timer_(executor),
      dropped_timer_(executor),
      stderr_lines_(options_.stderr_limits) {
  // send() writes to the pipe directly when it can: never block the worker.
  boost::system::error_code ignored;
  stdin_.non_blocking(true, ignored);
  if (child_.report_fd.valid()) {
    report_.assign(child_.report_fd.release(), ignored);
  } else {
    report_done_ = true;
  }
  // Without proxy settings nobody would accept on the sandbox's listener:
  // closing the channel makes the supervisor refuse the spawn instead.
  if (child_.egress_fd.valid() && options_.egress) {
    egress_.assign(child_.egress_fd.release(), ignored);
  } else {
    child_.egress_fd.reset();
  }
}

std::optional<mcp::Message> Upstream::parseFromServer(std::string text, const Options& options) {
  auto body = mcp::parseBody(std::move(text), options.max_json_depth, Direction::kToClient);
  if (!body || body->batch) {
    // Never log the text: it may carry exactly what DLP exists to protect.
    log::warn("server sent a line that is not one JSON-RPC message; dropped",
              {{"server", options.server},
               {"session", options.session},
               {"error", body ? "batch from server" : body.error().message.substr(0, 200)}});
    return std::nullopt;
  }
  return std::move(body->messages.front());
}

void ChildUpstream::send(mcp::Message sent) {
  if (terminating_ || !stdin_.is_open()) return;
  std::string message = std::move(sent.wire());
  message += '\n';
  if (!writing_) {
    // Nothing queued: write now. A message that fits the pipe is done in one
    // write, without a coroutine and a trip through the reactor; the rest of
    // one that does not waits for the pipe to drain, like any queued message.
    boost::system::error_code ec;
    const std::size_t n = stdin_.write_some(asio::buffer(message), ec);
    if (ec && ec != asio::error::would_block && ec != asio::error::try_again) {
      log::warn("cannot write to server", {{"server", options_.server}, {"error", ec.message()}});
      return;  // as in writeQueued: the exit is reported through the pidfd
    }
    if (n == message.size()) return;
    message.erase(0, n);
  }
  outbox_bytes_ += message.size();
  if (outbox_bytes_ > options_.max_unread_bytes) {
    log::error("server stopped reading its input; stopping it",
               {{"server", options_.server}, {"pid", pid_}, {"unread_bytes", outbox_bytes_}});
    terminate("stopped reading its input (" + std::to_string(outbox_bytes_) +
              " bytes waited for it)");
    return;
  }
  outbox_.push_back(std::move(message));
  if (!writing_) {
    writing_ = true;
    asio::co_spawn(
        executor_, [self = shared_from_this()] { return self->writeQueued(); }, asio::detached);
  }
}

asio::awaitable<void> ChildUpstream::writeQueued() {
  while (!outbox_.empty() && stdin_.is_open()) {
    auto [ec, n] =
        co_await asio::async_write(stdin_, asio::buffer(outbox_.front()), as_tuple(use_awaitable));
    if (ec) {
      // The server stopped reading (usually: it exited). Its exit is reported
      // through the pidfd; what it did not read is lost with it.
      log::warn("cannot write to server", {{"server", options_.server}, {"error", ec.message()}});
      outbox_.clear();
      outbox_bytes_ = 0;
      break;
    }
    if (outbox_.empty()) break;  // terminate() cleared it while the write finished
    outbox_bytes_ -= outbox_.front().size();
    outbox_.pop_front();
  }
  writing_ = false;
}

asio::awaitable<void> waitWhileHeld(asio::any_io_executor executor,
                                    const std::function<bool()>& hold,
                                    const std::function<bool()>& reading) {
  if (!hold || !hold()) co_return;
  asio::steady_timer wait(executor);
  while (reading() && hold()) {
    wait.expires_after(kHoldPoll);
    co_await wait.async_wait(as_tuple(use_awaitable));
  }
}

asio::awaitable<void> ChildUpstream::readMessages() {
  // Reads in chunks and splits them with memchr; a line that spans reads
  // waits in `partial`. (asio::async_read_until on a string read 512 bytes at
  // a time and copied every line twice.) The chunk starts small, so an idle
  // session costs little, and doubles while reads fill it, up to 64 KiB.
  std::vector<char> chunk(4 * 1024);
  std::string partial;
  bool over_limit = false;
  for (;;) {
    auto [ec, n] = co_await stdout_.async_read_some(asio::buffer(chunk), as_tuple(use_awaitable));
    if (ec) break;  // EOF, or closed by us
    const char* at = chunk.data();
    const bool grow = n == chunk.size() && chunk.size() < 64 * 1024;
    const char* const end = chunk.data() + n;
    while (at < end) {
      const auto* nl = static_cast<const char*>(std::memchr(at, '\n', end - at));
      if (nl == nullptr) {
        partial.append(at, end);
        break;
      }
      std::string line;
      if (partial.empty()) {
        line.assign(at, nl);
      } else {
        partial.append(at, nl);
        line = std::move(partial);
        partial.clear();
      }
      at = nl + 1;
      if (line.size() > options_.max_line_bytes) {
        over_limit = true;
        break;
      }
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.find_first_not_of(" \t") == std::string::npos) continue;
      if (auto message = parseFromServer(std::move(line), options_)) {
        callbacks_.on_message(std::move(*message));
      }
    }
    if (grow) chunk.resize(chunk.size() * 2);  // after its bytes were used
    co_await waitWhileHeld(executor_, callbacks_.hold,
                           [this] { return stdout_.is_open() && !terminating_; });
    if (over_limit || partial.size() > options_.max_line_bytes) {
      log::error("server sent a message over the line limit; stopping it",
                 {{"server", options_.server}, {"limit", options_.max_line_bytes}});
      terminate("sent a message larger than max_line_bytes (" +
                std::to_string(options_.max_line_bytes) + " bytes)");
      break;
    }
  }
  stdout_done_ = true;
  if (!exit_status_ && !terminating_) {
    // Usually the process is exiting: let it, and stop it only if it lingers.
    drain_timer_.expires_after(kDrainAfterExit);
    auto [timer_ec] = co_await drain_timer_.async_wait(as_tuple(use_awaitable));
    if (!timer_ec && !exit_status_) terminate("closed its stdout");
  }
  maybeReportExit();
}

asio::awaitable<void> ChildUpstream::readStderr() {
  // Everything on stderr is the server's output, whatever it looks like: the
  // sandbox's own lines come on the report channel (readReport).
  std::array<char, 4096> chunk{};
  for (;;) {
    auto [ec, n] = co_await stderr_.async_read_some(asio::buffer(chunk), as_tuple(use_awaitable));
    if (ec) break;
    for (const std::string& line : stderr_lines_.feed(std::string_view(chunk.data(), n))) {
      logStderrLine(line);
    }
    armDroppedReport();
  }
  for (const std::string& line : stderr_lines_.finish()) logStderrLine(line);
  logDropped(stderr_lines_.takeDropped());
  dropped_timer_.cancel();
  stderr_done_ = true;
  maybeReportExit();
}

void ChildUpstream::logStderrLine(const std::string& line) {
  log::info("server stderr", {{"server", options_.server}, {"pid", pid_}, {"line", line}});
}

void ChildUpstream::logDropped(std::uint64_t dropped) {
  if (dropped == 0) return;
  log::warn("server stderr lines dropped (rate limit)",
            {{"server", options_.server}, {"pid", pid_}, {"dropped", dropped}});
}

// A flood that stops is reported when its window closes, not when (if ever)
// the next line arrives.
void ChildUpstream::armDroppedReport() {
  const auto due = stderr_lines_.droppedDue();
  if (!due || dropped_armed_) return;
  dropped_armed_ = true;
  dropped_timer_.expires_at(*due);
  dropped_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    self->dropped_armed_ = false;
    if (ec) return;
    self->logDropped(self->stderr_lines_.takeDroppedIfDue(sandbox::StderrLines::Clock::now()));
    self->armDroppedReport();
  });
}

// The supervisor's own lines (the layer report, why it refused), on a pipe
// only it holds.
asio::awaitable<void> ChildUpstream::readReport() {
  std::string buffer;
  for (;;) {
    auto [ec, n] = co_await asio::async_read_until(report_, asio::dynamic_buffer(buffer, 64 * 1024),
                                                   '\n', as_tuple(use_awaitable));
    if (ec) break;
    std::string_view line(buffer.data(), n - 1);
    if (line.starts_with(sandbox::kSupervisorLinePrefix)) {
      line.remove_prefix(sandbox::kSupervisorLinePrefix.size());
    }
    logSandboxLine(line);
    buffer.erase(0, n);
  }
  report_done_ = true;
  maybeReportExit();
}

// network: allowlist: the supervisor sends the socket listening on the
// sandbox's proxy port; the proxy accepts on it, on this strand.
asio::awaitable<void> ChildUpstream::serveEgress() {
  auto [ec] = co_await egress_.async_wait(asio::posix::stream_descriptor::wait_read,
                                          as_tuple(use_awaitable));
  if (ec) co_return;
  sandbox::UniqueFd listener = sandbox::receiveDescriptor(egress_.native_handle());
  boost::system::error_code ignored;
  egress_.close(ignored);
  if (!listener.valid() || terminating_ || exit_status_) co_return;  // the report says why
  asio::ip::tcp::acceptor acceptor(executor_);
  boost::system::error_code aec;
  acceptor.assign(asio::ip::tcp::v4(), listener.get(), aec);
  if (aec) {
    log::error("cannot serve the sandbox's egress proxy port",
               {{"server", options_.server}, {"pid", pid_}, {"error", aec.message()}});
    co_return;
  }
  (void)listener.release();
  proxy_ = egress::Proxy::start(executor_, std::move(acceptor), options_.egress);
}

// The supervisor's lines: its layer report (JSON), why it refused a spawn, or
// that a limit ended the server. Refusals, degraded layers and dropped
// variables are audit events too.
void ChildUpstream::logSandboxLine(std::string_view text) {
  const std::string& server = options_.server;
  const std::string& session = options_.session;
  auto report = json::parse(text, nullptr, false);
  if (!report.is_discarded() && report.is_object() && report.contains("sandbox")) {
    json fields = report["sandbox"];
    fields["server"] = server;
    fields["pid"] = pid_;
    const bool degraded = fields.contains("degraded") && !fields["degraded"].empty();
    log::write(degraded ? log::Level::kWarn : log::Level::kInfo, "sandbox", fields);
    for (const json& d : fields.value("degraded", json::array())) {
      if (!d.is_object()) continue;
      audit::serverEvent("sandbox_degraded", "sandbox layer degraded", true, server, session,
                         {{"layer", d.value("layer", "")}, {"reason", d.value("reason", "")}});
    }
    constexpr std::string_view kDropped = "environment variable dropped: ";
    for (const json& n : fields.value("noted", json::array())) {
      if (!n.is_string() || !n.get<std::string>().starts_with(kDropped)) continue;
      audit::serverEvent("env_dropped", "server environment variable dropped", true, server,
                         session, {{"variable", n.get<std::string>().substr(kDropped.size())}});
    }
    return;
  }
  // network: host: a connect or send the supervisor refused, in the format of
  // the egress proxy's records (no name: the supervisor sees only the address).
  if (!report.is_discarded() && report.is_object() && report.contains("egress") &&
      report["egress"].is_object()) {
    const json& e = report["egress"];
    audit::serverEvent("egress", "egress refused", true, server, session,
                       {{"host", e.value("address", "")},
                        {"address", e.value("address", "")},
                        {"port", e.value("port", 0)},
                        {"allowed", false},
                        {"reason", e.value("reason", "")}});
    return;
  }
  if (text.starts_with("the server was killed by")) {
    audit::serverEvent("sandbox_limit", "sandbox limit ended the server", true, server, session,
                       {{"pid", pid_}, {"reason", text}});
    return;
  }
  if (!sandbox_refused_) metrics::sandboxRefused(server);
  sandbox_refused_ = true;
  log::error("sandbox refused to start the server",
             {{"server", server}, {"pid", pid_}, {"reason", text}});
  audit::serverEvent("sandbox_refused", "", false, server, session,
                     {{"reason", text}});
}

asio::awaitable<void> ChildUpstream::watchExit() {
  auto [ec] = co_await pidfd_.async_wait(asio::posix::stream_descriptor::wait_read,
                                         as_tuple(use_awaitable));
  (void)ec;
  // The pidfd is readable once the process has exited; reap it now so no
  // zombie outlives it.
  std::optional<int> status;
  for (int i = 0; i < 100 && !status; ++i) {
    status = sandbox::tryReap(child_);
    if (!status) ::usleep(1000);
  }
  if (status) metrics::reaped(options_.server);
  kill_timer_.cancel();
  pidfd_.close();
  // A supervisor SIGKILLed (at grace, most often) could not remove its cgroups, nor one that gave
  // up on a busy group: they go before the exit is known, so before it is reported, and no group
  // outlives its server. One look at the cgroup directories when there is nothing left.
  if (owns_cgroups_ && status) co_await removeCgroups();
  exit_status_ = status.value_or(0);
  if (!stdout_done_ || !stderr_done_ || !report_done_) {
    // Give the pipes a moment to deliver what the server wrote before it went;
    // a grandchild holding a pipe open must not keep the session alive.
    drain_timer_.expires_after(kDrainAfterExit);
    co_await drain_timer_.async_wait(as_tuple(use_awaitable));
    boost::system::error_code ignored;
    if (!stdout_done_) {
      stdout_.close(ignored);
      stdout_done_ = true;
    }
    if (!stderr_done_) stderr_.close(ignored);  // readStderr ends, then reports
    if (!report_done_) report_.close(ignored);
  }
  maybeReportExit();
}

asio::awaitable<void> ChildUpstream::removeCgroups() {
  const auto deadline = std::chrono::steady_clock::now() + kCgroupRemoval;
  while (!sandbox::removeGroupsOf(pid_)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      log::warn("the cgroups of a killed server are still busy; the next sandbox start removes them",
                {{"server", options_.server}, {"pid", pid_}});
      co_return;
    }
    asio::steady_timer retry(executor_, kCgroupRetry);
    co_await retry.async_wait(as_tuple(use_awaitable));
  }
}

void ChildUpstream::maybeReportExit() {
  if (reported_ || !exit_status_ || !stdout_done_ || !stderr_done_ || !report_done_) return;
  reported_ = true;
  boost::system::error_code ignored;
  stdin_.close(ignored);
  stderr_.close(ignored);
  report_.close(ignored);
  egress_.close(ignored);
  if (proxy_) proxy_->stop();
  drain_timer_.cancel();
  // The reason stays in the gateway log: it names host paths and policy.
  std::string why = sandbox_refused_ && WIFEXITED(*exit_status_) &&
                            WEXITSTATUS(*exit_status_) == sandbox::kExitSandboxFailed
                        ? "its sandbox refused to start it; see the gateway log"
                        : sandbox::describeExit(*exit_status_);
  log::info("server exited",
            {{"server", options_.server},
             {"pid", pid_},
             {"status", why},
             {"reason", terminate_reason_.empty() ? "exited by itself" : terminate_reason_}});
  if (callbacks_.on_exit) callbacks_.on_exit(why, terminate_reason_);
}

void ChildUpstream::terminate(std::string why) {
  if (terminating_ || exit_status_) return;
  terminating_ = true;
  terminate_reason_ = std::move(why);
  outbox_.clear();
  outbox_bytes_ = 0;
  boost::system::error_code ignored;
  stdin_.close(ignored);  // the MCP stdio way to ask a server to stop
  sandbox::signalChild(child_, SIGTERM);
  kill_timer_.expires_after(options_.grace);
  kill_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (ec || self->exit_status_) return;
    log::warn("server ignored SIGTERM; killing it",
              {{"server", self->options_.server}, {"pid", self->pid_}});
    sandbox::signalChild(self->child_, SIGKILL);
  });
}

}  // namespace mcpgate::gateway
