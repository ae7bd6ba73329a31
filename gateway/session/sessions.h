#pragma once

// The table of live sessions, keyed by Mcp-Session-Id.

#include <atomic>
#include <expected>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "config/config.h"
#include "gateway/guard/generation.h"
#include "gateway/session/client_session.h"
#include "gateway/session/io_pool.h"
#include "gateway/session/session.h"

namespace mcpgate::gateway {

class SessionTable {
 public:
  // A session runs on the worker of the thread that creates it: the worker of
  // the connection its initialize came on (IoPool).
  SessionTable(IoPool& pool, std::shared_ptr<const CurrentGeneration> current);

  // kTooMany: the gateway's limits.max_sessions; kClientTooMany: the
  // client's own auth.clients.NAME.max_sessions; kShuttingDown: after drain().
  enum class CreateError { kTooMany, kClientTooMany, kSpawnFailed, kShuttingDown };
  struct Failure {
    CreateError kind;
    std::string message;
  };
  // A new session with a fresh id from the CSPRNG and its server started,
  // owned by `client` (empty without auth). `server` belongs to
  // `generation`'s config, which the session keeps for its lifetime.
  // `inner`: a server session of an aggregate session (/mcp), which counts
  // against the gateway's limit but not against the client's own: the
  // aggregate session counts for the client.
  // `identity`: whom session.max_per_client counts it for (the client, or
  // its address without auth); empty: `client`.
  [[nodiscard]] std::expected<std::shared_ptr<Session>, Failure> create(
      const std::shared_ptr<const Generation>& generation, const config::ServerConfig& server,
      const std::string& client = {}, bool inner = false, const std::string& identity = {});
  // The generation new sessions are made from.
  [[nodiscard]] std::shared_ptr<const Generation> current() const { return current_->get(); }
  // A session of the aggregate endpoint /mcp over `servers` (names in
  // generation's config); their sessions are started as it needs them.
  [[nodiscard]] std::expected<std::shared_ptr<ClientSession>, Failure> createAggregate(
      const std::shared_ptr<const Generation>& generation, std::vector<std::string> servers,
      const std::string& client = {}, const std::string& identity = {});
  [[nodiscard]] std::shared_ptr<ClientSession> find(const std::string& id);
  void closeAll(const std::string& reason);
  // Shutdown has begun: from now on no new session is created (an aggregate
  // session may still start its servers' sessions for requests in flight).
  void drain() { draining_ = true; }
  [[nodiscard]] bool draining() const { return draining_.load(); }
  // Closes the sessions of servers that `config` no longer has (after a reload).
  void closeRemovedServers(const config::Config& config);
  // Server processes not yet reaped: shutdown waits for this to reach 0.
  [[nodiscard]] int childrenAlive() const { return children_alive_.load(); }

 private:
  // Why a new session of `client` may not be entered now, if it may not. mu_ held.
  [[nodiscard]] std::optional<Failure> admitLocked(const config::Config& config,
                                                   const std::string& client, bool inner) const;
  // session.max_per_client: at the limit, takes the identity's least recently
  // used session idle for some seconds out of the table and returns it, for
  // the caller to close outside the lock; null when none has to or may. mu_ held.
  [[nodiscard]] std::expected<std::shared_ptr<ClientSession>, Failure> makeRoomLocked(
      const config::Config& config, const std::string& identity);
  // Enters a session admitted by admitLocked and makeRoomLocked. mu_ held.
  void enterLocked(const std::string& id, std::shared_ptr<ClientSession> session, bool inner,
                   const std::string& identity);
  void eraseLocked(const std::string& id);  // mu_ held

  IoPool& pool_;
  std::shared_ptr<const CurrentGeneration> current_;
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<ClientSession>> sessions_;
  std::unordered_set<std::string> inner_;  // ids of aggregate sessions' server sessions
  std::unordered_map<std::string, std::string> identity_;  // id -> whom it counts for (not inner)
  std::atomic<int> children_alive_{0};
  std::atomic<bool> draining_{false};
};

// 192 bits from OpenSSL's CSPRNG as hex: visible ASCII, as the transport requires.
[[nodiscard]] std::string newSessionId();

}  // namespace mcpgate::gateway
