#include "gateway/session/sessions.h"

#include <openssl/rand.h>

#include <array>
#include <chrono>
#include <boost/asio/strand.hpp>
#include <stdexcept>
#include <vector>

#include "common/encoding.h"
#include "gateway/observe/log.h"
#include "gateway/observe/metrics.h"
#include "gateway/session/aggregate.h"

namespace mcpgate::gateway {

std::string newSessionId() {
  std::array<unsigned char, 24> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    // Without randomness a session id is guessable: better to stop.
    log::error("OpenSSL RAND_bytes failed; cannot make a session id");
    std::abort();
  }
  return common::toHex(bytes);
}

SessionTable::SessionTable(IoPool& pool, std::shared_ptr<const CurrentGeneration> current)
    : pool_(pool), current_(std::move(current)) {}

std::optional<SessionTable::Failure> SessionTable::admitLocked(const config::Config& config,
                                                               const std::string& client,
                                                               bool inner) const {
  if (draining_ && !inner) {
    return Failure{CreateError::kShuttingDown,
                   "the gateway is shutting down; initialize again on another replica"};
  }
  if (sessions_.size() >= config.limits.max_sessions) {
    return Failure{CreateError::kTooMany, "the gateway already has the maximum of " +
                                              std::to_string(config.limits.max_sessions) +
                                              " sessions"};
  }
  const config::ClientConfig* entry = config::findClient(config.auth, client);
  if (!inner && !client.empty() && entry != nullptr && entry->max_sessions > 0) {
    std::size_t own = 0;
    for (const auto& [sid, other] : sessions_) {
      own += other->client() == client && !inner_.contains(sid) ? 1 : 0;
    }
    if (own >= entry->max_sessions) {
      return Failure{CreateError::kClientTooMany, "client '" + client +
                                                      "' already has its maximum of " +
                                                      std::to_string(entry->max_sessions) +
                                                      " sessions; end one (HTTP DELETE) first"};
    }
  }
  return std::nullopt;
}

namespace {

// A session its client used this recently is not closed to make room: agents
// sharing one token (one client) may run more sessions at once than the limit
// (the limit is for sessions a client has left behind, not for work in
// progress); they are admitted above it until some have been idle this long.
constexpr auto kInUseWithin = std::chrono::seconds(5);

}  // namespace

std::expected<std::shared_ptr<ClientSession>, SessionTable::Failure> SessionTable::makeRoomLocked(
    const config::Config& config, const std::string& identity) {
  const std::uint32_t limit = config.session.max_per_client;
  if (limit == 0 || identity.empty()) return nullptr;
  std::size_t own = 0;
  std::shared_ptr<ClientSession> oldest;
  std::chrono::steady_clock::time_point oldest_use{};
  const auto in_use_since = std::chrono::steady_clock::now() - kInUseWithin;
  for (const auto& [sid, who] : identity_) {
    if (who != identity) continue;
    ++own;
    auto found = sessions_.find(sid);
    if (found == sessions_.end()) continue;
    // Lock order: the table, then a session (a session calls the table's
    // hooks only with its own lock released).
    auto since = found->second->idleSince();
    if (since && *since <= in_use_since && (!oldest || *since < oldest_use)) {
      oldest = found->second;
      oldest_use = *since;
    }
  }
  // Every one in use: admitted above the limit (limits.max_sessions still holds).
  if (own < limit || !oldest) return nullptr;
  eraseLocked(oldest->id());
  return oldest;
}

void SessionTable::enterLocked(const std::string& id, std::shared_ptr<ClientSession> session,
                               bool inner, const std::string& identity) {
  sessions_.emplace(id, std::move(session));
  if (inner) {
    inner_.insert(id);
  } else {
    identity_.emplace(id, identity);
  }
  metrics::sessionsChanged(1);
}

void SessionTable::eraseLocked(const std::string& id) {
  inner_.erase(id);
  identity_.erase(id);
  if (sessions_.erase(id) > 0) metrics::sessionsChanged(-1);
}

namespace {

// Out of the table already: its next request gets 404 and its client
// initializes again.
void closeToMakeRoom(const std::shared_ptr<ClientSession>& evicted, const std::string& identity,
                     const config::Config& config) {
  if (!evicted) return;
  const std::string limit = std::to_string(config.session.max_per_client);
  log::info("session closed to make room",
            {{"session", evicted->id()}, {"client", identity}, {"max_per_client", limit}});
  evicted->close("its client opened more than session.max_per_client (" + limit +
                 ") sessions, and it was the least recently used idle one");
}

}  // namespace

std::expected<std::shared_ptr<Session>, SessionTable::Failure> SessionTable::create(
    const std::shared_ptr<const Generation>& generation, const config::ServerConfig& server,
    const std::string& client, bool inner, const std::string& identity) {
  std::string id = newSessionId();
  const std::string& whom = identity.empty() ? client : identity;
  Session::Hooks hooks{[this](const std::string& sid) {
                         std::lock_guard lock(mu_);
                         eraseLocked(sid);
                       },
                       [this] {
                         --children_alive_;
                         metrics::childrenChanged(-1);
                       }};
  auto session = std::make_shared<Session>(id, client, boost::asio::make_strand(pool_.local()),
                                           generation->config, server, current_, std::move(hooks));
  // The limits are checked and the session entered under one lock, so
  // concurrent initializes cannot pass a limit together. In the table before
  // the server starts, so a server that dies at once is taken out again by its
  // own close(), never left behind.
  std::shared_ptr<ClientSession> evicted;
  {
    std::lock_guard lock(mu_);
    if (auto refused = admitLocked(*generation->config, client, inner)) {
      return std::unexpected(*refused);
    }
    if (!inner) {
      auto room = makeRoomLocked(*generation->config, whom);
      if (!room) return std::unexpected(room.error());
      evicted = std::move(*room);
    }
    enterLocked(id, session, inner, whom);
  }
  closeToMakeRoom(evicted, whom, *generation->config);
  ++children_alive_;
  metrics::childrenChanged(1);
  if (auto started = session->start(); !started) {
    --children_alive_;
    metrics::childrenChanged(-1);
    {
      std::lock_guard lock(mu_);
      eraseLocked(id);
    }
    log::error("cannot start server", {{"server", server.name}, {"error", started.error()}});
    return std::unexpected(
        Failure{CreateError::kSpawnFailed,
                "cannot start MCP server '" + server.name + "': " + started.error()});
  }
  log::info("session created", {{"server", server.name}, {"session", id}, {"client", client}});
  return session;
}

std::expected<std::shared_ptr<ClientSession>, SessionTable::Failure> SessionTable::createAggregate(
    const std::shared_ptr<const Generation>& generation, std::vector<std::string> servers,
    const std::string& client, const std::string& identity) {
  std::string id = newSessionId();
  const std::string& whom = identity.empty() ? client : identity;
  AggregateSession::Hooks hooks{
      .on_closed =
          [this](const std::string& sid) {
            std::lock_guard lock(mu_);
            eraseLocked(sid);
          },
      .current = [this] { return current(); },
      .create_inner =
          [this](const std::shared_ptr<const Generation>& now, const config::ServerConfig& server,
                 const std::string& owner)
          -> std::expected<std::shared_ptr<Session>, std::string> {
        auto created = create(now, server, owner, /*inner=*/true);
        if (!created) return std::unexpected(created.error().message);
        return *created;
      }};
  auto session =
      std::make_shared<AggregateSession>(id, client, boost::asio::make_strand(pool_.local()), generation,
                                         std::move(servers), std::move(hooks));
  std::shared_ptr<ClientSession> evicted;
  {
    std::lock_guard lock(mu_);
    if (auto refused = admitLocked(*generation->config, client, /*inner=*/false)) {
      return std::unexpected(*refused);
    }
    auto room = makeRoomLocked(*generation->config, whom);
    if (!room) return std::unexpected(room.error());
    evicted = std::move(*room);
    enterLocked(id, session, /*inner=*/false, whom);
  }
  closeToMakeRoom(evicted, whom, *generation->config);
  session->start();
  log::info("session created", {{"endpoint", "/mcp"}, {"session", id}, {"client", client}});
  return session;
}

std::shared_ptr<ClientSession> SessionTable::find(const std::string& id) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

void SessionTable::closeRemovedServers(const config::Config& config) {
  std::vector<std::shared_ptr<ClientSession>> removed;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, session] : sessions_) {
      // The aggregate endpoint's own sessions have no server; theirs are here too.
      if (!session->server().empty() && !config.servers.contains(session->server())) {
        removed.push_back(session);
      }
    }
  }
  for (auto& session : removed) {
    session->close("server '" + session->server() + "' was removed from the config");
  }
}

void SessionTable::closeAll(const std::string& reason) {
  std::vector<std::shared_ptr<ClientSession>> all;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, session] : sessions_) all.push_back(session);
  }
  for (auto& session : all) session->close(reason);
}

}  // namespace mcpgate::gateway
