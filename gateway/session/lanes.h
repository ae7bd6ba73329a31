#pragma once

// The server processes the gateway keeps for modern (2026-07-28) clients,
// which bring no session of their own: per client identity and server, a few
// started processes ("lanes"), each probed once for its era as any server is
// (bridge::decideEra: server/discover, then initialize for a legacy one, as
// the stdio binding's backward compatibility says). A lane is never shared between two identities.
// Idle lanes end with the session idle timeout (the lane is a Session underneath).
//
// Also the waiting room of multi round-trip requests: when a legacy server
// asks the client something (sampling, elicitation, roots) during a modern
// request, the request is parked here under a ticket until the client's retry
// brings the answers, or until it expires.

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <expected>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "config/config.h"
#include "gateway/guard/generation.h"
#include "gateway/mcp/era.h"
#include "gateway/mcp/message.h"
#include "gateway/modern/front.h"
#include "gateway/modern/request_state.h"
#include "gateway/session/mailbox.h"
#include "gateway/session/session.h"
#include "gateway/session/sessions.h"

namespace mcpgate::gateway {

// An open subscriptions/listen stream of a modern client on a lane.
struct Listener {
  std::string gateway_id;  // a modern server tags its notifications with this id
  nlohmann::json client_id;  // ... which the client knows as this one
  nlohmann::json filter;     // what the gateway acknowledged (a legacy server's lane)
  std::weak_ptr<Mailbox> out;
};

struct Lane {
  // A Session with one server; for /mcp an AggregateSession over the client's servers.
  std::shared_ptr<ClientSession> session;
  std::string server;
  std::string identity;
  Era era = Era::kUnknown;
  EraChoice choice = EraChoice::kAuto;  // the server's `protocol:`
  modern::ServerOffer offer;  // what it declared (discover or initialize)
  // Requests on it now. Taken under LanePool::mu_, given back without it
  // (LanePool::release runs where a session delivers, under the session's lock).
  std::atomic<int> in_flight{0};
  // The worker (io_context) its session runs on: a request from a connection
  // on the same worker stays on one thread (session/io_pool.h).
  const boost::asio::execution_context* worker = nullptr;
  std::atomic<std::chrono::steady_clock::time_point> last_used{};
  std::chrono::milliseconds idle_timeout{0};  // pool.idle_timeout, else session.idle_timeout
  std::mutex listeners_mu;
  std::vector<Listener> listeners;  // listeners_mu
  bool stream_open = false;         // listeners_mu: a legacy lane's GET stream is read
};

// A modern request parked while its client answers the server's requests.
struct Ticket {
  std::shared_ptr<Lane> lane;
  std::shared_ptr<Mailbox> upstream;  // where the rest of the server's answer arrives
  std::string gateway_id;             // the id the server knows the request by
  std::string method;                 // the client's method
  std::string identity;
  nlohmann::json client_capabilities;
  // inputRequests key -> the server's request (its id and method).
  std::vector<std::pair<std::string, nlohmann::json>> waiting;
  std::chrono::steady_clock::time_point expires;
};

class LanePool {
 public:
  // Lanes per identity and server at most: the server's pool.size (4 for
  // /mcp). A legacy lane serves one request at a time (a stdio server does
  // not say which request its own requests belong to), so concurrent
  // requests take more lanes, then share the least busy. pool.start lanes are
  // started at an identity's first request; pool.idle_timeout ends idle ones.
  static constexpr std::chrono::minutes kTicketLifetime{5};
  // How often idle lanes and expired parked requests are looked for.
  static constexpr std::chrono::seconds kReapEvery{1};

  static LanePool& instance();

  // A ready lane (era known, a legacy one initialized) of `server` for
  // `identity`, counted in flight until release(); or why there is none.
  // `server` null: the aggregate /mcp over `aggregate` (the servers the client may use).
  [[nodiscard]] boost::asio::awaitable<std::expected<std::shared_ptr<Lane>, std::string>> acquire(
      SessionTable& sessions, const std::shared_ptr<const Generation>& generation,
      const config::ServerConfig* server, std::vector<std::string> aggregate,
      const std::string& client, const std::string& identity);
  void release(const std::shared_ptr<Lane>& lane);

  // A lane over a session its caller started and keeps (mcpgate stdio: one
  // client, one server process), readied like the pool's; never in the pool,
  // so never shared, reaped or counted here. Its requests hold() it.
  [[nodiscard]] boost::asio::awaitable<std::expected<std::shared_ptr<Lane>, std::string>> adopt(
      std::shared_ptr<ClientSession> session, const config::ServerConfig& server,
      std::string identity);
  // Counts a request in flight on a lane the caller has (until release()).
  void hold(const std::shared_ptr<Lane>& lane);

  // Parks a waiting request; returns its ticket id.
  [[nodiscard]] std::string park(Ticket ticket);
  // Takes a parked request out (it is then the caller's), or nullopt when it
  // is gone (answered, expired, its server ended).
  [[nodiscard]] std::optional<Ticket> take(const std::string& id);

  [[nodiscard]] const modern::StateSealer& sealer() const { return sealer_; }

  // The x-mcp-header annotations of the tools a server listed to `identity`
  // (tool -> annotations; nullopt: the tool's annotations are invalid), kept
  // from its last tools/list: what a tools/call's Mcp-Param-* headers are
  // checked against.
  using ToolHeaders = std::unordered_map<std::string, std::optional<std::vector<modern::ParamHeader>>>;
  void rememberTools(const std::string& identity, const std::string& server,
                     const nlohmann::json& tools);
  // nullopt: the tool was not listed (nothing to check against).
  [[nodiscard]] std::optional<std::optional<std::vector<modern::ParamHeader>>> toolHeaders(
      const std::string& identity, const std::string& server, const std::string& tool);

  // Shutdown, after the sessions were closed: lets go of every lane and
  // parked request while the I/O contexts they were made on still exist.
  void clear();

  // Lanes alive for `identity` and `server` (tests, metrics).
  [[nodiscard]] std::size_t lanes(const std::string& identity, const std::string& server);

 private:
  LanePool();
  void reapLocked(std::chrono::steady_clock::time_point now);  // mu_ held
  // Reaps every kReapEvery on `executor` from now on, while lanes or parked
  // requests exist. mu_ held.
  void armReaperLocked(const boost::asio::any_io_executor& executor);
  void awaitReap(std::shared_ptr<boost::asio::steady_timer> timer);
  // A new lane entered in `lanes`, in flight for its caller. mu_ held.
  std::shared_ptr<Lane> reserveLocked(std::vector<std::shared_ptr<Lane>>& lanes,
                                      const config::ServerConfig* server,
                                      const std::string& identity);
  // Starts a reserved lane's session and probes it; on failure takes it out.
  boost::asio::awaitable<std::expected<void, std::string>> ready(
      std::shared_ptr<Lane> lane, SessionTable& sessions,
      std::shared_ptr<const Generation> generation, const config::ServerConfig* server,
      std::vector<std::string> aggregate, std::string client);
  // A pool.start lane: readied and left idle.
  boost::asio::awaitable<void> startSpare(SessionTable& sessions,
                                          std::shared_ptr<const Generation> generation,
                                          const config::ServerConfig* server, std::string client,
                                          std::string identity);

  std::mutex mu_;
  // identity + '\n' + server -> its lanes
  std::unordered_map<std::string, std::vector<std::shared_ptr<Lane>>> lanes_;
  std::unordered_map<std::string, Ticket> tickets_;
  std::unordered_map<std::string, ToolHeaders> tool_headers_;  // identity + '\n' + server
  modern::StateSealer sealer_;
  std::shared_ptr<boost::asio::steady_timer> reaper_;  // mu_; null while none is needed
};

// Sends one message (the gateway's own, or a modern client's) to a lane's
// session, through its filters like any client message.
ClientSession::Accepted sendToLane(ClientSession& session, mcp::Message message,
                                   const std::shared_ptr<Mailbox>& mailbox = nullptr);
// The same for a message the gateway makes.
ClientSession::Accepted sendToLane(ClientSession& session, nlohmann::json message,
                                   const std::shared_ptr<Mailbox>& mailbox = nullptr);

// Answers a request the lane's server sent with an error (the gateway's own
// answer: the server stops waiting).
void answerLane(ClientSession& session, const nlohmann::json& id, int code, std::string message);

// Sends one request to a lane's session and waits for its response text (or
// nullopt when the session closed first, or `timeout` passed when not zero).
// For the gateway's own requests.
[[nodiscard]] boost::asio::awaitable<std::optional<std::string>> askLane(
    ClientSession& session, nlohmann::json request, std::chrono::milliseconds timeout = {});

}  // namespace mcpgate::gateway
