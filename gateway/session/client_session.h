#pragma once

// What a client's Mcp-Session-Id names: a session with one server
// (/mcp/<server>, Session) or with every server it may use (/mcp,
// AggregateSession). The HTTP transport speaks to either through this.

#include <atomic>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gateway/mcp/message.h"
#include "gateway/session/mailbox.h"

namespace mcpgate::gateway {

class ClientSession {
 public:
  virtual ~ClientSession() = default;

  [[nodiscard]] const std::string& id() const { return id_; }
  // The server's name, or "" for the aggregate endpoint.
  [[nodiscard]] virtual const std::string& server() const = 0;
  [[nodiscard]] const std::string& client() const { return client_; }
  // JSON-RPC batches exist only in protocol revision 2025-03-26.
  [[nodiscard]] bool batchesAllowed() const { return batches_allowed_.load(); }

  enum class Accepted { kOk, kClosed };
  // Messages a client sent (one, or a batch), parsed once where they came
  // in. Requests get their answers in `mailbox` (which may be null when there
  // are none). A message's `text`, when set, is forwarded as it is if no
  // filter changed it; it is empty when it must not be (an object in it
  // repeated a key, which another parser could read differently from the
  // checked value).
  virtual Accepted fromClient(std::vector<mcp::Message> messages,
                              const std::shared_ptr<Mailbox>& mailbox) = 0;

  enum class StreamResult { kOk, kClosed, kConflict };
  // The GET stream: messages the server sends outside any pending request.
  virtual StreamResult openStream(const std::shared_ptr<Mailbox>& mailbox) = 0;

  virtual void close(const std::string& reason) = 0;  // DELETE, idle, shutdown; idempotent
  // Why it closed ("" while open): the answer to an initialize whose session
  // ended before the message reached it (a server that died at once).
  [[nodiscard]] virtual std::string closeReason() const = 0;
  // When its client last used it, or nullopt while a request of its client is
  // in flight (or it cannot tell): the per-client session limit closes the
  // least recently used idle session to make room.
  [[nodiscard]] virtual std::optional<std::chrono::steady_clock::time_point> idleSince() const {
    return std::nullopt;
  }

 protected:
  // `client` is who created the session (empty without auth).
  ClientSession(std::string id, std::string client)
      : id_(std::move(id)), client_(std::move(client)) {}

  const std::string id_;
  const std::string client_;
  // Set from the protocol version initialize settled on.
  std::atomic<bool> batches_allowed_{true};
};

}  // namespace mcpgate::gateway
