#pragma once

// An MCP session: one client, one server child process. Holds the requests
// waiting for answers and routes each message from the server to the mailbox
// of the client request (or stream) it belongs to.
//
// Threads: session state is guarded by one mutex, so connections on any
// thread get immediate answers; the child's I/O lives on the session's strand.

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <expected>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "config/config.h"
#include "gateway/guard/filter.h"
#include "gateway/guard/generation.h"
#include "gateway/mcp/message.h"
#include "gateway/session/client_session.h"
#include "gateway/session/mailbox.h"

namespace mcpgate::gateway {

class Upstream;

class Session final : public ClientSession, public std::enable_shared_from_this<Session> {
 public:
  struct Hooks {
    std::function<void(const std::string& id)> on_closed;  // drop it from the session table
    std::function<void()> on_child_gone;                   // its process has been reaped
  };

  // `client` is who created the session (empty without auth): only that
  // client may use it, and policy may differ per client.
  // `config` (holding `server`) stays the session's for its lifetime; the
  // filters come from `current` for every message, so a reload's new rules
  // and policies apply to sessions already open.
  Session(std::string id, std::string client, boost::asio::any_io_executor strand,
          std::shared_ptr<const config::Config> config, const config::ServerConfig& server,
          std::shared_ptr<const CurrentGeneration> current, Hooks hooks);

  // Spawns the server. On failure the session is unusable.
  [[nodiscard]] std::expected<void, std::string> start();

  [[nodiscard]] const std::string& server() const override { return server_.name; }

  Accepted fromClient(std::vector<mcp::Message> messages,
                      const std::shared_ptr<Mailbox>& mailbox) override;
  StreamResult openStream(const std::shared_ptr<Mailbox>& mailbox) override;
  void close(const std::string& reason) override;
  [[nodiscard]] std::string closeReason() const override;
  [[nodiscard]] std::optional<std::chrono::steady_clock::time_point> idleSince() const override;

 private:
  struct Pending {
    std::shared_ptr<Mailbox> mailbox;
    nlohmann::json id;  // for the gateway's own answers (timeout, closed)
    std::uint64_t seq;
    std::chrono::steady_clock::time_point deadline;
    std::string progress_key;
    bool initialize;
    std::string method;  // for the log lines about its response
    std::string tool;    // for tools/call: the tool it calls
    // What scanned the request scans its response: a reload meanwhile does
    // not change the rules of a request in flight.
    std::shared_ptr<const FilterChain> filters;
    // The request's effective policy (owned by `filters`), the response's too.
    const EffectivePolicy* policy = nullptr;
    std::chrono::steady_clock::time_point received{};  // for its latency in /metrics
  };

  using PendingMap = std::unordered_map<std::string, Pending>;  // id key -> waiting request

  void fromServer(mcp::Message message);  // on the strand
  void upstreamExited(const std::string& status, const std::string& stopped_because);
  void routeUnsolicited(std::string message);  // mu_ held
  void addPendingLocked(const mcp::Message& request, const std::shared_ptr<Mailbox>& mailbox,
                        const std::shared_ptr<const FilterChain>& filters,
                        std::chrono::steady_clock::time_point now);  // mu_ held
  void cancelledLocked(const mcp::Message& cancelled);               // mu_ held
  // Answers a pending request; `outcome` is how it ended, for /metrics;
  // `parsed`, the response's value when the server sent it.
  void finishLocked(Pending& pending, std::string response, std::string_view outcome,
                    const nlohmann::json* parsed = nullptr);  // mu_ held
  void completeLocked(PendingMap::iterator it, std::string response,
                      std::string_view outcome);  // mu_ held, erases it
  void countDone(const Pending& pending, std::string_view outcome) const;
  void scheduleTick();
  void tick();
  void failAllLocked(const std::string& reason);
  // Backpressure: the session's queued messages, or the gateway's, are over budget.
  [[nodiscard]] bool overBudget() const;
  // Ends the streams whose clients take nothing while over budget.
  void endStalledLocked(std::chrono::steady_clock::time_point now);  // mu_ held

  boost::asio::any_io_executor strand_;
  std::shared_ptr<const config::Config> config_;
  const config::ServerConfig& server_;
  std::shared_ptr<const CurrentGeneration> current_;
  Hooks hooks_;
  std::shared_ptr<Upstream> upstream_;
  boost::asio::steady_timer timer_;

  mutable std::mutex mu_;
  bool closed_ = false;
  std::string close_reason_;
  PendingMap pending_;
  std::unordered_map<std::string, std::string> progress_;  // progress token key -> id key
  std::shared_ptr<Mailbox> stream_;                        // the GET stream, if open
  std::deque<std::string> backlog_;                        // for the GET stream, while none is open
  std::size_t backlog_bytes_ = 0;
  // Bytes queued for this session's clients (mailboxes and backlog).
  const std::shared_ptr<QueueBudget> queued_ = std::make_shared<QueueBudget>();
  std::uint64_t next_seq_ = 0;
  std::chrono::steady_clock::time_point last_activity_;
  std::chrono::steady_clock::time_point last_keepalive_;
};

}  // namespace mcpgate::gateway
