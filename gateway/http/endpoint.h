#pragma once

// What the gateway answers to one HTTP request, apart from how its bytes move:
// routing, health, /metrics, RFC 9728 metadata, auth and rate limits, Origin,
// MCP-Protocol-Version, sessions, and whether a POST is answered as JSON or as
// an SSE stream. No Beast here: this compiles once, and the transport
// (connection_impl.h, templated on plain or TLS streams) reads a request, asks
// the endpoint, and writes what it says at one place.

#include <boost/asio/awaitable.hpp>
#include <boost/beast/http/status.hpp>
#include <cstddef>
#include <expected>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "config/config.h"
#include "gateway/guard/generation.h"
#include "gateway/session/mailbox.h"
#include "gateway/session/sessions.h"

namespace mcpgate::gateway {

using HttpStatus = boost::beast::http::status;

// What the transport offers to learn that the client went away while its answer is awaited
// (not only when a write fails): a modern client cancels a request by closing its stream.
class PeerWatch {
 public:
  virtual ~PeerWatch() = default;
  // From now until this request's answer is sent: if the client closes the connection,
  // `mailbox` is abandoned (Mailbox::abandon()).
  virtual void abandonOnClose(std::weak_ptr<Mailbox> mailbox) = 0;
};

// The parts of a request the endpoint looks at. The views point into the
// transport's request, which outlives the call.
struct HttpRequest {
  enum class Method { kGet, kPost, kDelete, kOther };
  Method method = Method::kOther;
  std::string_view target;  // the path, without the query
  std::string_view host;
  std::string_view accept;
  std::string_view content_type;
  std::string_view authorization;
  std::string_view origin;
  std::string_view protocol_version;  // MCP-Protocol-Version
  std::string_view session_id;        // Mcp-Session-Id
  // The 2026-07-28 request metadata headers (absent: nullopt); each
  // Mcp-Param-{Name} as (Name, value).
  std::optional<std::string_view> mcp_method;  // Mcp-Method
  std::optional<std::string_view> mcp_name;    // Mcp-Name
  std::vector<std::pair<std::string_view, std::string_view>> mcp_params;
  std::string body;
  PeerWatch* peer = nullptr;  // the transport's, when it can watch
};

// A whole answer: status, headers, body.
struct Reply {
  HttpStatus status = HttpStatus::ok;
  std::string body;  // JSON; empty for 202 and DELETE
  std::string session_id;
  std::string_view content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers = {};  // Allow, WWW-Authenticate, ...
  bool close = false;  // the connection ends after this reply
};

// An SSE stream: `first` at once, then what the mailbox gets until it finishes.
struct EventStream {
  std::string session_id;
  std::shared_ptr<Mailbox> mailbox;
  Mailbox::Batch first;
};

using Plan = std::variant<Reply, EventStream>;

struct Answer {
  Plan plan;
  std::string metric_server;  // the server the path names, for /metrics; empty if none
};

// An HTTP-level refusal, with a JSON-RPC error body that says what to fix.
[[nodiscard]] Reply refuse(HttpStatus status, int code, std::string message,
                           std::string_view reason, nlohmann::json id = nullptr);

// One per connection: requests on a connection are served one after another.
class Endpoint {
 public:
  // `peer`: the client's IP address, whom sessions count for without auth
  // (session.max_per_client).
  Endpoint(std::shared_ptr<const CurrentGeneration> current, SessionTable& sessions, bool tls,
           std::string peer = {});

  // Served by the generation current when it is called: a request read while
  // a reload ran is served by the new config, and a revoked token gets no
  // further request in.
  [[nodiscard]] boost::asio::awaitable<Answer> handle(HttpRequest& request);

 private:
  [[nodiscard]] boost::asio::awaitable<Plan> route(HttpRequest& req);
  [[nodiscard]] boost::asio::awaitable<Plan> post(HttpRequest& req,
                                                  const config::ServerConfig* server);
  [[nodiscard]] boost::asio::awaitable<Plan> get(const HttpRequest& req,
                                                 const config::ServerConfig* server);
  [[nodiscard]] Plan del(const HttpRequest& req, const config::ServerConfig* server);

  [[nodiscard]] std::optional<Reply> admit(const HttpRequest& req,
                                           const config::ServerConfig* server, bool aggregate);
  [[nodiscard]] std::optional<Reply> authorize(const HttpRequest& req,
                                               const config::ServerConfig* server);
  [[nodiscard]] std::expected<std::shared_ptr<ClientSession>, Reply> sessionOf(
      const HttpRequest& req, const config::ServerConfig* server);
  [[nodiscard]] std::expected<std::shared_ptr<ClientSession>, Reply> createSession(
      const config::ServerConfig* server, const nlohmann::json& initialize_id);
  [[nodiscard]] Reply metadata(const HttpRequest& req, std::string_view suffix) const;
  [[nodiscard]] std::string baseUrl(const HttpRequest& req) const;

  std::shared_ptr<const CurrentGeneration> current_;
  SessionTable& sessions_;
  const bool tls_;
  const std::string peer_;
  // Of the request being served.
  std::shared_ptr<const Generation> generation_;
  std::shared_ptr<const config::Config> config_;  // generation_->config
  std::string client_;                            // empty without auth
  // The connection's place in its client's count (limits.max_connections_per_client), taken at
  // its first authenticated request and held while the connection lives.
  std::shared_ptr<void> client_slot_;
  std::string slot_client_;
  std::string metric_server_;
};

}  // namespace mcpgate::gateway
