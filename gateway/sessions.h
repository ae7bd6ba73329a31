#pragma once

// The table of live sessions, keyed by Mcp-Session-Id.

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <expected>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "config/config.h"
#include "gateway/filter.h"
#include "gateway/session.h"

namespace mcpgate::gateway {

class SessionTable {
 public:
  SessionTable(boost::asio::io_context& io, std::shared_ptr<const config::Config> config,
               std::shared_ptr<const FilterChain> filters);

  // kTooMany: the gateway's limits.max_sessions; kClientTooMany: the
  // client's own auth.clients.NAME.max_sessions.
  enum class CreateError { kTooMany, kClientTooMany, kSpawnFailed };
  struct Failure {
    CreateError kind;
    std::string message;
  };
  // A new session with a fresh id from the CSPRNG and its server started,
  // owned by `client` (empty without auth).
  [[nodiscard]] std::expected<std::shared_ptr<Session>, Failure> create(
      const config::ServerConfig& server, const std::string& client = {});
  [[nodiscard]] std::shared_ptr<Session> find(const std::string& id);
  void closeAll(const std::string& reason);
  // Server processes not yet reaped: shutdown waits for this to reach 0.
  [[nodiscard]] int childrenAlive() const { return children_alive_.load(); }

 private:
  boost::asio::io_context& io_;
  std::shared_ptr<const config::Config> config_;
  std::shared_ptr<const FilterChain> filters_;
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Session>> sessions_;
  std::atomic<int> children_alive_{0};
};

// 192 bits from OpenSSL's CSPRNG as hex: visible ASCII, as the transport requires.
[[nodiscard]] std::string newSessionId();

}  // namespace mcpgate::gateway
