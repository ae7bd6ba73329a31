#include "gateway/http/endpoint.h"

#include <algorithm>
#include <boost/asio/this_coro.hpp>
#include <cctype>
#include <iterator>

#include "config/origin.h"
#include "gateway/guard/auth.h"
#include "gateway/http/accept_guard.h"
#include "gateway/http/media_type.h"
#include "gateway/http/modern_post.h"
#include "gateway/mcp/jsonrpc.h"
#include "gateway/mcp/message.h"
#include "gateway/modern/front.h"
#include "gateway/observe/log.h"
#include "gateway/observe/metrics.h"

// g++ 12 misreads Asio's coroutine frame allocator as a mismatched new/delete pair (as in
// session/aggregate.cc), here since post() awaits modernPost().
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace mcpgate::gateway {

namespace asio = boost::asio;
using asio::awaitable;
using nlohmann::json;
using Status = HttpStatus;

namespace {

constexpr std::string_view kMcpPrefix = "/mcp/";
constexpr std::string_view kAggregatePath = "/mcp";  // every server the client may use
constexpr std::string_view kMetadataPath = "/.well-known/oauth-protected-resource";

// Host header values that may go into a URL we hand out: a host name, an IPv4
// or a bracketed IPv6 address, and a port.
bool isPlainHost(std::string_view host) {
  return !host.empty() && host.size() < 256 && std::all_of(host.begin(), host.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':' ||
           c == '[' || c == ']';
  });
}

// A quoted-string value of WWW-Authenticate must not hold '"' or '\\'.
// Nor control characters: a CR LF from a token's header would start a new
// response header.
std::string quotable(std::string text) {
  for (char& c : text) {
    if (c == '"') c = '\'';
    if (c == '\\') c = '/';
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return text;
}

Reply unknownSession() {
  return refuse(Status::not_found, jsonrpc::kInvalidRequest,
                "session not found (it ended or expired); initialize again", "unknown_session");
}

// What a POST carries once its headers and body have been checked.
struct PostBody {
  bool accepts_sse = false;
  bool accepts_json = false;
  bool is_batch = false;
  std::vector<mcp::Message> messages;  // parsed once, here
  std::size_t requests = 0;
  bool initialize = false;
};

std::expected<PostBody, Reply> checkPost(HttpRequest& req, const config::Config& config) {
  PostBody post;
  // SSE only when the client names it; */* alone gets JSON.
  post.accepts_sse = acceptsMediaType(req.accept, "text/event-stream", /*wildcards=*/false);
  post.accepts_json = acceptsMediaType(req.accept, "application/json");
  if (!post.accepts_json && !post.accepts_sse) {
    return std::unexpected(refuse(Status::not_acceptable, jsonrpc::kInvalidRequest,
                                  "Accept must include application/json or text/event-stream",
                                  "not_acceptable"));
  }
  if (!isMediaType(req.content_type, "application/json")) {
    return std::unexpected(refuse(Status::unsupported_media_type, jsonrpc::kInvalidRequest,
                                  "Content-Type must be application/json", "content_type"));
  }
  // The body moves into the message: a single message keeps it as the text
  // to forward (unless an object in it repeated a key).
  auto parsed =
      mcp::parseBody(std::move(req.body), config.limits.max_json_depth, Direction::kToServer);
  if (!parsed) {
    return std::unexpected(
        refuse(Status::bad_request, parsed.error().code, parsed.error().message,
               parsed.error().code == jsonrpc::kParseError ? "parse_error" : "max_json_depth"));
  }
  post.is_batch = parsed->batch;
  post.messages = std::move(parsed->messages);
  if (post.messages.empty()) {
    return std::unexpected(
        refuse(Status::bad_request, jsonrpc::kInvalidRequest, "empty batch", "invalid_request"));
  }
  for (const mcp::Message& m : post.messages) {
    if (m.kind == jsonrpc::Kind::kInvalid) {
      return std::unexpected(refuse(Status::bad_request, jsonrpc::kInvalidRequest,
                                    "not a JSON-RPC 2.0 request, notification or response",
                                    "invalid_request", m.id));
    }
    if (m.isRequest()) {
      ++post.requests;
      post.initialize = post.initialize || m.method == "initialize";
    }
  }
  if (post.initialize && post.is_batch) {
    return std::unexpected(refuse(Status::bad_request, jsonrpc::kInvalidRequest,
                                  "initialize must not be part of a batch", "invalid_request"));
  }
  return post;
}

}  // namespace

Reply refuse(Status status, int code, std::string message, std::string_view reason, json id) {
  json data = {{"gateway", "mcpgate"}, {"reason", reason}};
  Reply reply{status, jsonrpc::errorResponse(id, code, message, data), ""};
  if (status == Status::method_not_allowed)
    reply.headers.emplace_back("Allow", "GET, POST, DELETE");
  return reply;
}

Endpoint::Endpoint(std::shared_ptr<const CurrentGeneration> current, SessionTable& sessions,
                   bool tls, std::string peer)
    : current_(std::move(current)), sessions_(sessions), tls_(tls), peer_(std::move(peer)) {}

awaitable<Answer> Endpoint::handle(HttpRequest& request) {
  generation_ = current_->get();
  config_ = generation_->config;
  client_.clear();
  metric_server_.clear();
  // Named, never a temporary inside the co_await expression: g++ 12 destroys
  // those twice.
  Plan plan = co_await route(request);
  co_return Answer{std::move(plan), std::move(metric_server_)};
}

awaitable<Plan> Endpoint::route(HttpRequest& req) {
  const std::string_view target = req.target;
  if (target == "/healthz") co_return Reply{Status::ok, R"({"status":"ok"})", ""};
  if (target == "/readyz") {
    const std::optional<std::string> not_ready = metrics::notReadyReason();
    json status = not_ready ? json{{"status", "not ready"}, {"reason", *not_ready}}
                            : json{{"status", "ready"}};
    co_return Reply{not_ready ? Status::service_unavailable : Status::ok, status.dump(), ""};
  }
  // DNS rebinding: a page that made its own name point at this gateway sends
  // that name as Host. Nothing but the health checks answers it.
  if (!config::hostAllowed(*config_, req.host)) {
    static log::Limiter limiter;  // a peer may send these at will
    limiter.warn("request refused: Host not allowed",
                 {{"host", std::string(req.host.substr(0, 256))}, {"path", std::string(target)}});
    co_return refuse(Status::forbidden, jsonrpc::kInvalidRequest,
                     "Host '" + std::string(req.host.substr(0, 256)) +
                         "' is not allowed; list the names clients use in allowed_hosts",
                     "host_not_allowed");
  }
  if (target == "/metrics") {
    // With auth on, metrics (server names, traffic) are for clients with a
    // token: Prometheus sends one with `authorization: {credentials: ...}`.
    // Each client sees the series of the servers it may use, no others.
    if (generation_->authenticator) {
      if (auto refused = authorize(req, nullptr)) co_return std::move(*refused);
      const auth::Authenticator& authenticator = *generation_->authenticator;
      co_return Reply{Status::ok, metrics::render([&](std::string_view server) {
                        return server.empty() || authenticator.mayUse(client_, server);
                      }),
                      "", metrics::kContentType};
    }
    co_return Reply{Status::ok, metrics::render(), "", metrics::kContentType};
  }
  if (target == kMetadataPath || target.starts_with(std::string(kMetadataPath) + "/")) {
    co_return metadata(req, target.substr(kMetadataPath.size()));
  }
  const config::ServerConfig* server = nullptr;
  if (target.starts_with(kMcpPrefix)) {
    auto it = config_->servers.find(std::string(target.substr(kMcpPrefix.size())));
    if (it != config_->servers.end()) server = &it->second;
  }
  if (server != nullptr) metric_server_ = server->name;
  if (auto refused = admit(req, server, target == kAggregatePath)) co_return std::move(*refused);
  switch (req.method) {
    case HttpRequest::Method::kPost: {
      Plan plan = co_await post(req, server);
      co_return plan;
    }
    case HttpRequest::Method::kGet: {
      Plan plan = co_await get(req, server);
      co_return plan;
    }
    case HttpRequest::Method::kDelete:
      co_return del(req, server);
    case HttpRequest::Method::kOther:
      break;
  }
  co_return refuse(Status::method_not_allowed, jsonrpc::kInvalidRequest,
                   "method not allowed; use POST, GET or DELETE", "method_not_allowed");
}

// The checks every MCP request passes, in this order: auth before anything
// else, so that without a token nothing, not even whether a server exists, is
// revealed; then the path, Origin, the protocol version.
std::optional<Reply> Endpoint::admit(const HttpRequest& req, const config::ServerConfig* server,
                                     bool aggregate) {
  if (generation_->authenticator) {
    if (auto refused = authorize(req, server)) return refused;
  }
  if (server == nullptr && !aggregate) {
    return refuse(Status::not_found, jsonrpc::kInvalidRequest,
                  "no MCP server at " + std::string(req.target) +
                      "; servers are served at /mcp/<name>, all of them together at /mcp",
                  "unknown_server");
  }
  // DNS rebinding: a browser page must not reach a gateway on localhost.
  if (!req.origin.empty() && !config::originAllowed(*config_, req.origin)) {
    static log::Limiter limiter;  // a peer may send these at will
    limiter.warn("request refused: Origin not allowed",
                 {{"origin", std::string(req.origin)}, {"path", std::string(req.target)}});
    return refuse(Status::forbidden, jsonrpc::kInvalidRequest,
                  "Origin '" + std::string(req.origin) + "' is not allowed", "origin_not_allowed");
  }
  // A POST's version is checked with its body (post()): the answer names its id.
  if (req.method != HttpRequest::Method::kPost && !req.protocol_version.empty() &&
      !jsonrpc::isSupportedProtocolVersion(req.protocol_version)) {
    return refuse(Status::bad_request, jsonrpc::kInvalidRequest,
                  "unsupported MCP-Protocol-Version '" + std::string(req.protocol_version) +
                      "'; supported: 2025-03-26, 2025-06-18, 2025-11-25",
                  "protocol_version");
  }
  return std::nullopt;
}

// The public base URL clients reach the gateway at: auth.public_url, else
// the scheme served and the request's Host.
std::string Endpoint::baseUrl(const HttpRequest& req) const {
  if (!config_->auth.public_url.empty()) return config_->auth.public_url;
  std::string authority = isPlainHost(req.host) ? std::string(req.host) : "localhost";
  return (tls_ ? "https://" : "http://") + authority;
}

// RFC 9728 Protected Resource Metadata for the gateway (`suffix` empty) or
// one server's endpoint (`suffix` "/mcp/NAME").
Reply Endpoint::metadata(const HttpRequest& req, std::string_view suffix) const {
  // Any /mcp/NAME gets a document, configured or not: a client without a
  // token must not learn which servers exist.
  const std::string_view name =
      suffix.starts_with(kMcpPrefix) ? suffix.substr(kMcpPrefix.size()) : std::string_view();
  const bool known = suffix.empty() || suffix == kAggregatePath ||
                     (!name.empty() && name.find('/') == std::string_view::npos);
  if (!generation_->authenticator || !known) {
    return refuse(Status::not_found, jsonrpc::kInvalidRequest,
                  generation_->authenticator ? "no such protected resource"
                                             : "this gateway runs without auth",
                  "not_found");
  }
  json doc = {{"resource", baseUrl(req) + std::string(suffix)},
              {"bearer_methods_supported", {"header"}},
              {"resource_name", "mcpgate"}};
  if (!config_->auth.authorization_servers.empty()) {
    doc["authorization_servers"] = config_->auth.authorization_servers;
  }
  return {Status::ok, doc.dump(), ""};
}

// Sets client_ from the request's token; or the reply that refuses it: 401
// (no or bad token), 403 (a server this client may not use), 429 (rate).
std::optional<Reply> Endpoint::authorize(const HttpRequest& req,
                                         const config::ServerConfig* server) {
  auto identity = generation_->authenticator->authenticate(req.authorization);
  if (!identity) {
    const auth::AuthError& error = identity.error();
    const std::string suffix = server != nullptr ? "/mcp/" + server->name : "";
    std::string challenge =
        "Bearer resource_metadata=\"" + baseUrl(req) + std::string(kMetadataPath) + suffix + "\"";
    if (error.kind != auth::AuthError::Kind::kMissing) {
      challenge +=
          ", error=\"invalid_token\", error_description=\"" + quotable(error.description) + "\"";
    }
    static log::Limiter limiter;  // a peer may send these at will
    limiter.warn("request refused: not authenticated",
                 {{"path", std::string(req.target)}, {"why", error.description}});
    Reply reply = refuse(Status::unauthorized, jsonrpc::kInvalidRequest,
                         error.kind == auth::AuthError::Kind::kMissing
                             ? "authentication required: send Authorization: Bearer TOKEN"
                             : "authentication failed: " + error.description,
                         error.kind == auth::AuthError::Kind::kExpired   ? "token_expired"
                         : error.kind == auth::AuthError::Kind::kMissing ? "unauthorized"
                                                                         : "invalid_token");
    reply.headers.emplace_back("WWW-Authenticate", std::move(challenge));
    return reply;
  }
  client_ = std::move(identity->client);
  if (!client_.empty() && slot_client_ != client_) {
    // Counted per process: every connection of every listener, whatever its address.
    // Never destroyed: connections may still end while the process exits.
    static ConnectionCounts& per_client = *new ConnectionCounts();
    client_slot_.reset();
    slot_client_.clear();
    const std::uint32_t cap = config_->limits.max_connections_per_client;
    client_slot_ = per_client.claim(client_, cap);
    if (!client_slot_) {
      static log::Limiter limiter;  // a peer may send these at will
      limiter.warn("request refused: too many connections for client", {{"client", client_}});
      Reply reply = refuse(Status::service_unavailable, jsonrpc::kUpstreamError,
                           "too many connections for client '" + client_ +
                               "' (limits.max_connections_per_client is " + std::to_string(cap) +
                               ")",
                           "too_many_connections");
      reply.close = true;
      return reply;
    }
    slot_client_ = client_;
  }
  if (server != nullptr && !generation_->authenticator->mayUse(client_, server->name)) {
    static log::Limiter limiter;  // a peer may send these at will
    limiter.warn("request refused: server not allowed for client",
                 {{"client", client_}, {"server", server->name}});
    return refuse(Status::forbidden, jsonrpc::kInvalidRequest,
                  "client '" + client_ + "' may not use server '" + server->name + "'",
                  "server_not_allowed");
  }
  if (auto wait = generation_->rate->acquire(client_); wait) {
    Reply reply = refuse(Status::too_many_requests, jsonrpc::kUpstreamError,
                         "client '" + client_ + "' is over its request rate; retry in " +
                             std::to_string(wait->count()) + " s",
                         "rate_limited");
    reply.headers.emplace_back("Retry-After", std::to_string(wait->count()));
    return reply;
  }
  return std::nullopt;
}

// The session named by Mcp-Session-Id on this path (`server`, or null for
// the aggregate endpoint), or the reply that refuses the request. Another
// client's session is answered exactly as an unknown one.
std::expected<std::shared_ptr<ClientSession>, Reply> Endpoint::sessionOf(
    const HttpRequest& req, const config::ServerConfig* server) {
  if (req.session_id.empty()) {
    return std::unexpected(refuse(Status::bad_request, jsonrpc::kInvalidRequest,
                                  "Mcp-Session-Id header is required; send initialize first",
                                  "missing_session"));
  }
  auto session = sessions_.find(std::string(req.session_id));
  // A session is used on the path that created it, and nowhere else.
  if (session && session->server() != (server == nullptr ? "" : server->name)) session.reset();
  if (session && session->client() != client_) {
    static log::Limiter limiter;  // a peer may send these at will
    limiter.warn("request refused: session belongs to another client",
                 {{"client", client_}, {"session_client", session->client()}});
    session = nullptr;
  }
  if (!session) return std::unexpected(unknownSession());
  return session;
}

// A new session for an initialize on this path: one server's, or the
// aggregate's over the servers this client may use.
std::expected<std::shared_ptr<ClientSession>, Reply> Endpoint::createSession(
    const config::ServerConfig* server, const json& initialize_id) {
  std::expected<std::shared_ptr<ClientSession>, SessionTable::Failure> created;
  // Whom session.max_per_client counts it for: the client, or its address.
  const std::string& identity = client_.empty() ? peer_ : client_;
  if (server != nullptr) {
    auto one = sessions_.create(generation_, *server, client_, /*inner=*/false, identity);
    if (one) {
      created = *one;
    } else {
      created = std::unexpected(one.error());
    }
  } else {
    std::vector<std::string> allowed;
    for (const auto& [name, s] : config_->servers) {
      if (!generation_->authenticator || generation_->authenticator->mayUse(client_, name)) {
        allowed.push_back(name);
      }
    }
    created = sessions_.createAggregate(generation_, std::move(allowed), client_, identity);
  }
  if (created) return std::move(*created);
  Status status = Status::bad_gateway;
  std::string_view reason = "spawn_failed";
  using enum SessionTable::CreateError;
  switch (created.error().kind) {
    case kTooMany:
      status = Status::service_unavailable;
      reason = "max_sessions";
      break;
    case kClientTooMany:
      status = Status::too_many_requests;
      reason = "client_max_sessions";
      break;
    case kShuttingDown:
      status = Status::service_unavailable;
      reason = "shutting_down";
      break;
    case kSpawnFailed:
      break;
  }
  return std::unexpected(
      refuse(status, jsonrpc::kUpstreamError, created.error().message, reason, initialize_id));
}

// `server` is null on the aggregate endpoint.
awaitable<Plan> Endpoint::post(HttpRequest& req, const config::ServerConfig* server) {
  auto checked = checkPost(req, *config_);
  if (!checked) co_return std::move(checked.error());
  PostBody& post = *checked;
  // The modern era (2026-07-28): no session; served per server (modern_post.cc).
  mcp::Message& first_message = post.messages[0];
  const json& first_id = first_message.id;
  first_message.era = modern::eraOf(first_message.value, req.protocol_version);
  if (!post.is_batch && first_message.era == Era::kModern) {
    // Named, never temporaries inside the co_await expression (see handle()).
    ModernPost modern_post{req,     generation_, server, {}, client_, client_.empty() ? peer_ : client_,
                           post.accepts_sse, post.accepts_json};
    if (server == nullptr) {
      for (const auto& [name, s] : config_->servers) {
        if (!generation_->authenticator || generation_->authenticator->mayUse(client_, name)) {
          modern_post.aggregate.push_back(name);
        }
      }
    }
    mcp::Message modern_message = std::move(first_message);
    Plan plan = co_await modernPost(sessions_, std::move(modern_post), std::move(modern_message));
    co_return plan;
  }
  if (!req.protocol_version.empty() && !jsonrpc::isSupportedProtocolVersion(req.protocol_version)) {
    modern::FrontError unsupported = modern::unsupportedVersion(req.protocol_version);
    unsupported.data["supported"] = modern::supportedVersions();  // this path serves both eras
    unsupported.data["gateway"] = "mcpgate";
    unsupported.data["reason"] = "protocol_version";
    co_return Reply{Status::bad_request, modern::errorBody(unsupported, first_id), ""};
  }
  const json initialize_id = post.initialize ? post.messages[0].id : json(nullptr);

  std::shared_ptr<ClientSession> session;
  if (post.initialize) {
    auto created = createSession(server, initialize_id);
    if (!created) co_return std::move(created.error());
    session = std::move(*created);
  } else {
    auto found = sessionOf(req, server);
    if (!found) co_return std::move(found.error());
    session = std::move(*found);
    if (post.is_batch && !session->batchesAllowed()) {
      co_return refuse(Status::bad_request, jsonrpc::kInvalidRequest,
                       "JSON-RPC batches are only allowed with protocol version 2025-03-26",
                       "batch_not_allowed");
    }
  }

  std::shared_ptr<Mailbox> mailbox;
  if (post.requests > 0) {
    mailbox = std::make_shared<Mailbox>(co_await asio::this_coro::executor, post.accepts_sse,
                                        post.requests);
    // Checked once the mailbox counts as in flight, so shutdown, which
    // waits for Mailbox::inFlight() to reach 0 after drain(), either sees
    // this request or has refused it. Responses and notifications still
    // pass: a request in flight may need the client's answer.
    if (!post.initialize && sessions_.draining()) {
      co_return refuse(Status::not_found, jsonrpc::kInvalidRequest,
                       "the gateway is shutting down and this session ends; initialize again",
                       "shutting_down");
    }
  }
  if (session->fromClient(std::move(post.messages), mailbox) == ClientSession::Accepted::kClosed) {
    if (!post.initialize) co_return unknownSession();
    // Its server died before the initialize reached it: say why, as the
    // answer to that initialize, rather than "not found" for a session the
    // client never had.
    json data = {{"gateway", "mcpgate"}, {"reason", "session_closed"}};
    if (server != nullptr) data["server"] = server->name;
    co_return Reply{Status::ok,
                    jsonrpc::errorResponse(initialize_id, jsonrpc::kUpstreamError,
                                           session->closeReason(), data),
                    ""};
  }
  if (!mailbox) co_return Reply{Status::accepted, "", ""};
  std::string sid = post.initialize ? session->id() : "";
  // JSON when nothing but responses came (a batch waits for all of them);
  // SSE as soon as the server sends anything else first.
  Mailbox::Batch first = co_await mailbox->next();
  while (post.accepts_json && !first.finished && !first.has_intermediate) {
    Mailbox::Batch more = co_await mailbox->next();
    first.messages.insert(first.messages.end(), std::make_move_iterator(more.messages.begin()),
                          std::make_move_iterator(more.messages.end()));
    first.has_intermediate = more.has_intermediate;
    first.finished = more.finished;
  }
  if (!post.accepts_json || !first.finished || first.has_intermediate) {
    co_return EventStream{std::move(sid), std::move(mailbox), std::move(first)};
  }
  std::string body;
  if (post.is_batch) {
    body = "[";
    for (std::size_t i = 0; i < first.messages.size(); ++i) {
      if (i > 0) body += ',';
      body += first.messages[i];
    }
    body += "]";
  } else if (!first.messages.empty()) {
    body = std::move(first.messages.front());
  }
  co_return Reply{Status::ok, std::move(body), std::move(sid)};
}

awaitable<Plan> Endpoint::get(const HttpRequest& req, const config::ServerConfig* server) {
  if (!acceptsMediaType(req.accept, "text/event-stream", /*wildcards=*/false)) {
    co_return refuse(Status::not_acceptable, jsonrpc::kInvalidRequest,
                     "Accept must include text/event-stream", "not_acceptable");
  }
  auto found = sessionOf(req, server);
  if (!found) co_return std::move(found.error());
  auto mailbox = std::make_shared<Mailbox>(co_await asio::this_coro::executor, true, 0);
  switch ((*found)->openStream(mailbox)) {
    case ClientSession::StreamResult::kClosed:
      co_return refuse(Status::not_found, jsonrpc::kInvalidRequest,
                       "session not found (it ended or expired)", "unknown_session");
    case ClientSession::StreamResult::kConflict:
      co_return refuse(Status::conflict, jsonrpc::kInvalidRequest,
                       "this session already has an open GET stream", "stream_conflict");
    case ClientSession::StreamResult::kOk:
      break;
  }
  co_return EventStream{"", std::move(mailbox), {}};
}

Plan Endpoint::del(const HttpRequest& req, const config::ServerConfig* server) {
  auto found = sessionOf(req, server);
  if (!found) return std::move(found.error());
  (*found)->close("the client ended the session (HTTP DELETE)");
  return Reply{Status::ok, "", ""};
}

}  // namespace mcpgate::gateway
