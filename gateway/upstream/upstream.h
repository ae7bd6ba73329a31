#pragma once

// An MCP server as the session sees it: a stream of JSON-RPC messages in each
// direction. Either a child process (ChildUpstream, here) or a remote
// Streamable HTTP server (gateway/remote_upstream.h). Every method and
// callback runs on the executor (a strand) it was started on.

#include <sys/types.h>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <expected>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "egress/proxy.h"
#include "gateway/mcp/message.h"
#include "sandbox/spawn.h"
#include "sandbox/stderr_lines.h"

namespace mcpgate::gateway {

class Upstream {
 public:
  struct Options {
    std::string server;  // name, for logs
    std::uint64_t max_line_bytes = 16 * 1024 * 1024;
    std::chrono::milliseconds grace{10'000};
    // Bytes written to the server and not yet taken by it. A server that
    // stops reading its stdin must not make the gateway buffer without end:
    // past this it is stopped.
    std::uint64_t max_unread_bytes = 64 * 1024 * 1024;
    // How much of the server's stderr reaches the log (its sandbox policy's).
    sandbox::StderrLimits stderr_limits = {};
    // network: allowlist: the proxy that serves the sandbox's egress listener.
    std::shared_ptr<const egress::ProxySettings> egress = {};
    std::string session = {};  // the session it serves, for audit records
    std::uint32_t max_json_depth = 64;  // of what the server sends
  };
  struct Callbacks {
    // Each message the server sent, parsed once here (a line, a JSON body or
    // an SSE event); what does not parse is logged and dropped.
    std::function<void(mcp::Message message)> on_message;
    // Called once, after the process is reaped and its stdout drained: how it
    // ended ("exited with status 3") and, if the gateway stopped it, why.
    // A remote upstream calls it once it has stopped for good (terminated, or
    // its remote session is gone), with stopped_because always set.
    std::function<void(const std::string& status, const std::string& stopped_because)> on_exit;
    // Backpressure: while it returns true, the server's output is not read
    // (its pipe fills and a well-behaved server waits). Optional.
    std::function<bool()> hold;
  };

  virtual ~Upstream() = default;
  // A line or body from a server as one message, parsed here once; a batch
  // (which a stdio server must not send) or text that does not parse is
  // logged (never its text) and gives nullopt.
  [[nodiscard]] static std::optional<mcp::Message> parseFromServer(std::string text,
                                                                   const Options& options);
  // One message, its `text` the line to send (without a newline, no raw CR
  // or LF); its facts say what the remote upstream needs to know of it.
  virtual void send(mcp::Message message) = 0;
  virtual void terminate(std::string why) = 0;  // idempotent
};

// Backpressure, for an upstream between two reads of its server: while `hold`
// says the clients have not taken what is queued for them (and `reading` says
// the upstream still reads), waits; the server's pipe or socket fills meanwhile
// and a well-behaved server waits too. Returns at once without a `hold`.
boost::asio::awaitable<void> waitWhileHeld(boost::asio::any_io_executor executor,
                                           const std::function<bool()>& hold,
                                           const std::function<bool()>& reading);

// From now on, every ChildUpstream of this process is started by the
// privileged spawner listening on `socket_path` (sandbox/spawner_client.h),
// by server name, instead of by sandbox::spawn here. Call before serving.
void startServersThrough(std::string socket_path);
[[nodiscard]] bool startsServersThroughSpawner();

// One MCP server child process speaking newline-delimited JSON-RPC: started
// through sandbox::spawn (or the spawner), supervised through its pidfd,
// stopped with stdin closed + SIGTERM, then SIGKILL after a grace period.
class ChildUpstream final : public Upstream, public std::enable_shared_from_this<ChildUpstream> {
 public:
  [[nodiscard]] static std::expected<std::shared_ptr<Upstream>, std::string> start(
      boost::asio::any_io_executor executor, const sandbox::SpawnSpec& spec, Options options,
      Callbacks callbacks);

  void send(mcp::Message message) override;
  void terminate(std::string why) override;

  ChildUpstream(boost::asio::any_io_executor executor, sandbox::Child child, Options options,
                Callbacks callbacks);

 private:
  boost::asio::awaitable<void> readMessages();
  boost::asio::awaitable<void> readStderr();
  boost::asio::awaitable<void> readReport();
  boost::asio::awaitable<void> serveEgress();
  boost::asio::awaitable<void> watchExit();
  boost::asio::awaitable<void> removeCgroups();
  boost::asio::awaitable<void> writeQueued();
  void maybeReportExit();
  void logSandboxLine(std::string_view text);
  void logStderrLine(const std::string& line);
  void armDroppedReport();
  void logDropped(std::uint64_t dropped);

  boost::asio::any_io_executor executor_;
  sandbox::Child child_;
  pid_t pid_;
  Options options_;
  Callbacks callbacks_;
  boost::asio::posix::stream_descriptor stdin_, stdout_, stderr_, pidfd_, report_, egress_;
  boost::asio::steady_timer kill_timer_, drain_timer_, dropped_timer_;
  sandbox::StderrLines stderr_lines_;
  std::shared_ptr<egress::Proxy> proxy_;
  std::deque<std::string> outbox_;
  std::uint64_t outbox_bytes_ = 0;
  bool writing_ = false;
  bool terminating_ = false;
  bool stdout_done_ = false;
  bool stderr_done_ = false;
  bool report_done_ = false;
  bool dropped_armed_ = false;
  bool reported_ = false;
  bool sandbox_refused_ = false;
  bool owns_cgroups_ = false;
  std::optional<int> exit_status_;
  std::string terminate_reason_;
};

}  // namespace mcpgate::gateway
