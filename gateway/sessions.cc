#include "gateway/sessions.h"

#include <openssl/rand.h>

#include <array>
#include <boost/asio/strand.hpp>
#include <stdexcept>
#include <vector>

#include "gateway/log.h"

namespace mcpgate::gateway {

std::string newSessionId() {
  std::array<unsigned char, 24> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    // Without randomness a session id is guessable: better to stop.
    log::error("OpenSSL RAND_bytes failed; cannot make a session id");
    std::abort();
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  id.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) {
    id += kHex[b >> 4];
    id += kHex[b & 15];
  }
  return id;
}

SessionTable::SessionTable(boost::asio::io_context& io,
                           std::shared_ptr<const config::Config> config,
                           std::shared_ptr<const FilterChain> filters)
    : io_(io), config_(std::move(config)), filters_(std::move(filters)) {}

std::expected<std::shared_ptr<Session>, SessionTable::Failure> SessionTable::create(
    const config::ServerConfig& server, const std::string& client) {
  std::string id = newSessionId();
  Session::Hooks hooks{[this](const std::string& sid) {
                         std::lock_guard lock(mu_);
                         sessions_.erase(sid);
                       },
                       [this] { --children_alive_; }};
  auto session = std::make_shared<Session>(id, client, boost::asio::make_strand(io_), config_,
                                           server, filters_, std::move(hooks));
  // The limits are checked and the session entered under one lock, so
  // concurrent initializes cannot pass a limit together. In the table before
  // the server starts, so a server that dies at once is taken out again by its
  // own close(), never left behind.
  {
    std::lock_guard lock(mu_);
    if (sessions_.size() >= config_->limits.max_sessions) {
      return std::unexpected(Failure{
          CreateError::kTooMany, "the gateway already has the maximum of " +
                                     std::to_string(config_->limits.max_sessions) + " sessions"});
    }
    const config::ClientConfig* entry = config::findClient(config_->auth, client);
    if (!client.empty() && entry != nullptr && entry->max_sessions > 0) {
      std::size_t own = 0;
      for (const auto& [sid, other] : sessions_) own += other->client() == client ? 1 : 0;
      if (own >= entry->max_sessions) {
        return std::unexpected(Failure{CreateError::kClientTooMany,
                                       "client '" + client + "' already has its maximum of " +
                                           std::to_string(entry->max_sessions) +
                                           " sessions; end one (HTTP DELETE) first"});
      }
    }
    sessions_.emplace(id, session);
  }
  ++children_alive_;
  if (auto started = session->start(); !started) {
    --children_alive_;
    {
      std::lock_guard lock(mu_);
      sessions_.erase(id);
    }
    log::error("cannot start server", {{"server", server.name}, {"error", started.error()}});
    return std::unexpected(
        Failure{CreateError::kSpawnFailed,
                "cannot start MCP server '" + server.name + "': " + started.error()});
  }
  log::info("session created", {{"server", server.name}, {"session", id}, {"client", client}});
  return session;
}

std::shared_ptr<Session> SessionTable::find(const std::string& id) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

void SessionTable::closeAll(const std::string& reason) {
  std::vector<std::shared_ptr<Session>> all;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, session] : sessions_) all.push_back(session);
  }
  for (auto& session : all) session->close(reason);
}

}  // namespace mcpgate::gateway
