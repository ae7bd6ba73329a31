#pragma once

// /mcp: one client session over every server the client may use. Tools and
// prompts are listed with their names prefixed `<server><separator><name>`
// (kept within 64 characters) and resources by their URIs; each call is
// routed to its server's own Session, so DLP, policy and pinning apply there
// exactly as on /mcp/<server>. A server's session is started on first use
// (spawn + the client's initialize replayed) and again after it idles out.
//
// Threads: all state lives on the aggregate's strand; fromClient() and
// openStream() only post to it.

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <expected>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/guard/generation.h"
#include "gateway/mcp/message.h"
#include "gateway/session/client_session.h"

namespace mcpgate::gateway {

class Session;

class AggregateSession final : public ClientSession,
                               public std::enable_shared_from_this<AggregateSession> {
 public:
  // What the aggregate needs of the session table, which owns it: the table
  // knows the aggregate, not the other way round.
  struct Hooks {
    std::function<void(const std::string& id)> on_closed;  // drop it from the session table
    // The generation new sessions are made from (the config of now).
    std::function<std::shared_ptr<const Generation>()> current;
    // A server session for this aggregate (counted as an inner session), or why not.
    std::function<std::expected<std::shared_ptr<Session>, std::string>(
        const std::shared_ptr<const Generation>& generation, const config::ServerConfig& server,
        const std::string& client)>
        create_inner;
  };

  // `servers`: the names the client may use, all in generation->config.
  AggregateSession(std::string id, std::string client, boost::asio::any_io_executor strand,
                   std::shared_ptr<const Generation> generation, std::vector<std::string> servers,
                   Hooks hooks);

  void start();  // the idle timer

  [[nodiscard]] const std::string& server() const override { return kNoServer; }

  Accepted fromClient(std::vector<mcp::Message> messages,
                      const std::shared_ptr<Mailbox>& mailbox) override;
  StreamResult openStream(const std::shared_ptr<Mailbox>& mailbox) override;
  void close(const std::string& reason) override;
  [[nodiscard]] std::string closeReason() const override;
  [[nodiscard]] std::optional<std::chrono::steady_clock::time_point> idleSince() const override;

 private:
  static const std::string kNoServer;

  // What each kind of list holds, and the member that names an item.
  struct ListKind {
    std::string_view method, key, name_member;
  };
  static constexpr ListKind kLists[] = {
      {"tools/list", "tools", "name"},
      {"prompts/list", "prompts", "name"},
      {"resources/list", "resources", "uri"},
      {"resources/templates/list", "resourceTemplates", "uriTemplate"}};

  struct Inner {
    std::shared_ptr<Session> session;
    bool starting = false;
  };
  struct Target {
    std::string server;
    std::string name;  // as the server knows it
    std::string kind;  // the list method it came from (tools/list, prompts/list)
  };

  boost::asio::awaitable<void> handle(mcp::Message message, std::shared_ptr<Mailbox> out);
  boost::asio::awaitable<nlohmann::json> answer(mcp::Message request, std::shared_ptr<Mailbox> out);
  // In aggregate_names.cc: the merged lists and the names that route back.
  boost::asio::awaitable<nlohmann::json> listAll(const std::string& method, const std::string& key);
  // `request` goes to the server as the client sent it, or serialised
  // again when the aggregate changed it (its `text` then empty).
  boost::asio::awaitable<nlohmann::json> route(const std::string& server, mcp::Message request,
                                               std::shared_ptr<Mailbox> out);
  // The server's session, started and initialized; an error says why not.
  boost::asio::awaitable<std::expected<std::shared_ptr<Session>, std::string>> inner(
      const std::string& server);
  // Sends one request of the gateway's own to the server and waits for its
  // response (server messages meanwhile go to the GET stream).
  boost::asio::awaitable<nlohmann::json> ask(const std::shared_ptr<Session>& session,
                                             nlohmann::json request);
  boost::asio::awaitable<void> relayStream(std::string server, std::shared_ptr<Mailbox> from);
  // Backpressure on the client's side: while `out` holds more than a stream's
  // budget, waits (the server's side is not read meanwhile, so its session
  // stops reading the server). False when the client took nothing for the
  // stall timeout: the caller ends that stream.
  boost::asio::awaitable<bool> clientKeepsUp(const Mailbox& out);
  [[nodiscard]] std::string stalledReason() const;
  void fromClientResponse(mcp::Message message);
  void toEveryServer(const mcp::Message& notification);
  // A line from an inner session's mailbox, read with the gateway's own reader.
  [[nodiscard]] std::optional<nlohmann::json> readLine(std::string_view line) const;
  void toStream(std::string message);
  // The name a client sees, or nullopt when another server has it already.
  std::optional<std::string> prefixed(const std::string& server, const std::string& name,
                                      const std::string& kind);
  [[nodiscard]] std::expected<Target, std::string> targetOf(const std::string& name) const;
  void scheduleTick();

  boost::asio::any_io_executor strand_;
  std::shared_ptr<const Generation> generation_;
  const std::vector<std::string> servers_;
  const std::string separator_;
  Hooks hooks_;
  boost::asio::steady_timer timer_;
  std::atomic<bool> closed_{false};
  // For idleSince(), read from other threads: client requests not yet
  // answered, and when the client last sent a message or was answered.
  std::atomic<int> requests_open_{0};
  std::atomic<std::chrono::steady_clock::time_point> used_{std::chrono::steady_clock::now()};

  // On the strand:
  nlohmann::json initialize_params_;  // the client's, replayed to each server
  std::map<std::string, Inner> inners_;
  std::map<std::string, Target> names_;           // prefixed tool or prompt name -> target
  std::map<std::string, std::string> resources_;  // resource URI -> server
  std::map<std::string, std::string> in_flight_;  // client request id key -> server
  mutable std::mutex stream_mu_;                  // openStream() comes from the client's connection
  std::string close_reason_;                      // under stream_mu_
  std::shared_ptr<Mailbox> stream_;               // the client's GET stream
  std::deque<std::string> backlog_;               // for it, while none is open
  std::size_t backlog_bytes_ = 0;                  // under stream_mu_
  std::uint64_t next_id_ = 1;
  std::chrono::steady_clock::time_point last_activity_;
};

}  // namespace mcpgate::gateway
