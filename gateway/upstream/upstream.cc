#include "gateway/upstream/upstream.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <vector>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "gateway/observe/log.h"
#include "gateway/observe/metrics.h"
#include "sandbox/spawn.h"

namespace mcpgate::gateway {

namespace asio = boost::asio;
using asio::as_tuple;
using asio::use_awaitable;
using nlohmann::json;

namespace {

// A chatty server must not flood the gateway's log.
constexpr std::size_t kStderrLineCap = 1024;
constexpr int kStderrLinesPerSecond = 20;
// After the process is gone, how long its stdout may still hold unread output.
constexpr auto kDrainAfterExit = std::chrono::milliseconds(500);

}  // namespace

std::expected<std::shared_ptr<Upstream>, std::string> ChildUpstream::start(
    asio::any_io_executor executor, const sandbox::SpawnSpec& spec, Options options,
    Callbacks callbacks) {
  auto child = sandbox::spawn(spec);
  if (!child) return std::unexpected(child.error().message);
  auto upstream = std::make_shared<ChildUpstream>(executor, std::move(*child), std::move(options),
                                                  std::move(callbacks));
  log::info("server started", {{"server", upstream->options_.server}, {"pid", upstream->pid_}});
  metrics::spawned(upstream->options_.server);
  auto self = upstream;
  asio::co_spawn(
      executor, [self] { return self->readMessages(); }, asio::detached);
  asio::co_spawn(
      executor, [self] { return self->readStderr(); }, asio::detached);
  asio::co_spawn(
      executor, [self] { return self->watchExit(); }, asio::detached);
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
      pidfd_(executor, ::fcntl(child_.pidfd.get(), F_DUPFD_CLOEXEC, 0)),
      kill_timer_(executor),
      drain_timer_(executor) {
  // send() writes to the pipe directly when it can: never block the worker.
  boost::system::error_code ignored;
  stdin_.non_blocking(true, ignored);
}

void ChildUpstream::send(std::string message) {
  if (terminating_ || !stdin_.is_open()) return;
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
      callbacks_.on_message(std::move(line));
    }
    if (grow) chunk.resize(chunk.size() * 2);  // after its bytes were used
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
  std::string buffer;
  auto window_start = std::chrono::steady_clock::now();
  int lines_in_window = 0;
  std::uint64_t dropped = 0;
  for (;;) {
    auto [ec, n] = co_await asio::async_read_until(stderr_, asio::dynamic_buffer(buffer, 64 * 1024),
                                                   '\n', as_tuple(use_awaitable));
    std::string line;
    if (ec == asio::error::not_found) {
      line = std::move(buffer);  // one overlong line: keep its head
      buffer.clear();
    } else if (ec) {
      break;
    } else {
      line = buffer.substr(0, n - 1);
      buffer.erase(0, n);
    }
    auto now = std::chrono::steady_clock::now();
    if (now - window_start >= std::chrono::seconds(1)) {
      if (dropped > 0) {
        log::warn("server stderr lines dropped (rate limit)",
                  {{"server", options_.server}, {"dropped", dropped}});
      }
      window_start = now;
      lines_in_window = 0;
      dropped = 0;
    }
    if (++lines_in_window > kStderrLinesPerSecond) {
      ++dropped;
      continue;
    }
    if (line.starts_with(sandbox::kSupervisorLinePrefix)) {
      logSandboxLine(std::string_view(line).substr(sandbox::kSupervisorLinePrefix.size()));
      continue;
    }
    if (line.size() > kStderrLineCap) line.resize(kStderrLineCap);
    log::info("server stderr", {{"server", options_.server}, {"pid", pid_}, {"line", line}});
  }
  // The sandbox's refusal line may still be in the pipe when the exit is
  // seen: the exit is reported only after stderr is read to its end.
  stderr_done_ = true;
  maybeReportExit();
}

// The sandbox supervisor writes its layer report, and why it refused a spawn,
// on the server's stderr before the server runs, each line prefixed.
void ChildUpstream::logSandboxLine(std::string_view text) {
  auto report = json::parse(text, nullptr, false);
  if (!report.is_discarded() && report.is_object() && report.contains("sandbox")) {
    json fields = report["sandbox"];
    fields["server"] = options_.server;
    fields["pid"] = pid_;
    const bool degraded = fields.contains("degraded") && !fields["degraded"].empty();
    log::write(degraded ? log::Level::kWarn : log::Level::kInfo, "sandbox", fields);
    return;
  }
  if (!sandbox_refused_) metrics::sandboxRefused(options_.server);
  sandbox_refused_ = true;
  log::error("sandbox refused to start the server",
             {{"server", options_.server}, {"pid", pid_}, {"reason", text}});
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
  exit_status_ = status.value_or(0);
  if (status) metrics::reaped(options_.server);
  kill_timer_.cancel();
  pidfd_.close();
  if (!stdout_done_ || !stderr_done_) {
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
  }
  maybeReportExit();
}

void ChildUpstream::maybeReportExit() {
  if (reported_ || !exit_status_ || !stdout_done_ || !stderr_done_) return;
  reported_ = true;
  boost::system::error_code ignored;
  stdin_.close(ignored);
  stderr_.close(ignored);
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
