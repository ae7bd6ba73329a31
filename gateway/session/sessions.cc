#include "gateway/session/sessions.h"

#include <openssl/rand.h>

#include <array>
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

std::expected<std::shared_ptr<Session>, SessionTable::Failure> SessionTable::create(
    const std::shared_ptr<const Generation>& generation, const config::ServerConfig& server,
    const std::string& client, bool inner) {
  std::string id = newSessionId();
  Session::Hooks hooks{[this](const std::string& sid) {
                         std::lock_guard lock(mu_);
                         inner_.erase(sid);
                         if (sessions_.erase(sid) > 0) metrics::sessionsChanged(-1);
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
  {
    std::lock_guard lock(mu_);
    if (auto refused = admitLocked(*generation->config, client, inner)) {
      return std::unexpected(*refused);
    }
    sessions_.emplace(id, session);
    if (inner) inner_.insert(id);
    metrics::sessionsChanged(1);
  }
  ++children_alive_;
  metrics::childrenChanged(1);
  if (auto started = session->start(); !started) {
    --children_alive_;
    metrics::childrenChanged(-1);
    {
      std::lock_guard lock(mu_);
      inner_.erase(id);
      if (sessions_.erase(id) > 0) metrics::sessionsChanged(-1);
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
    const std::string& client) {
  std::string id = newSessionId();
  AggregateSession::Hooks hooks{
      .on_closed =
          [this](const std::string& sid) {
            std::lock_guard lock(mu_);
            if (sessions_.erase(sid) > 0) metrics::sessionsChanged(-1);
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
  {
    std::lock_guard lock(mu_);
    if (auto refused = admitLocked(*generation->config, client, /*inner=*/false)) {
      return std::unexpected(*refused);
    }
    sessions_.emplace(id, session);
    metrics::sessionsChanged(1);
  }
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
