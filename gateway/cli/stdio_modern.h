#pragma once

// The modern (2026-07-28) client of `mcpgate stdio`: no initialize, each
// request with its envelope in params._meta. Its requests are served as a
// modern client's on HTTP (session/modern_flow.h), through one lane over the
// stdio session's server: one client, one lane. A legacy server is
// initialized by the gateway and its sampling and elicitation requests reach
// the client as an InputRequiredResult; a modern one is passed through. Each
// answer, and what comes before it (progress, log messages, a listen
// stream's notifications), goes to stdout as it comes.

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <expected>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "config/config.h"
#include "gateway/guard/generation.h"
#include "gateway/mcp/message.h"
#include "gateway/session/lanes.h"
#include "gateway/session/mailbox.h"
#include "gateway/session/session.h"

namespace mcpgate::gateway {

class StdioModern : public std::enable_shared_from_this<StdioModern> {
 public:
  // `out` is stdout's mailbox; it finishes when the session has closed and
  // every answer begun by then has been written.
  StdioModern(boost::asio::io_context& io, std::shared_ptr<const CurrentGeneration> current,
              const config::ServerConfig& server, std::shared_ptr<Mailbox> out);

  // The session the lane is made over (set once, before the first message).
  void attach(std::shared_ptr<Session> session) { session_ = std::move(session); }

  // Whether the client has spoken modern MCP: its later messages without an
  // envelope (a cancellation) are the modern front's too.
  [[nodiscard]] bool active() const { return active_.load(); }

  // From the reader thread, in the client's order. The first request readies
  // the lane (the server's era probed, a legacy one initialized) before the
  // reader goes on.
  void fromClient(mcp::Message message);

  // The session closed (any thread): stdout ends after the answers in flight.
  void sessionClosed();

 private:
  // The lane, readied on the first request; its error for every request when
  // it could not be.
  const std::expected<std::shared_ptr<Lane>, std::string>& lane();
  boost::asio::awaitable<void> serve(mcp::Message message, std::shared_ptr<Lane> lane);
  void begin();
  void end();

  boost::asio::io_context& io_;
  std::shared_ptr<const CurrentGeneration> current_;
  const config::ServerConfig& server_;
  std::shared_ptr<Mailbox> out_;
  std::shared_ptr<Session> session_;
  std::atomic<bool> active_{false};
  std::optional<std::expected<std::shared_ptr<Lane>, std::string>> lane_;  // reader thread only
  // Answers begun and not yet written to `out_`; closing_: the session closed.
  std::atomic<int> writing_{0};
  std::atomic<bool> closing_{false};
  // Requests in flight by the client's id key: a cancellation abandons their stream.
  std::mutex mu_;
  std::unordered_map<std::string, std::weak_ptr<Mailbox>> in_flight_;
};

}  // namespace mcpgate::gateway
