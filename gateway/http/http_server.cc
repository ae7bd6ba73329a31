#include "gateway/http/http_server.h"

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cctype>
#include <optional>

#include "config/origin.h"
#include "gateway/guard/auth.h"
#include "gateway/mcp/jsonrpc.h"
#include "gateway/observe/log.h"
#include "gateway/observe/metrics.h"

namespace mcpgate::gateway {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::as_tuple;
using asio::awaitable;
using asio::use_awaitable;
using asio::ip::tcp;
using nlohmann::json;

namespace {

constexpr auto kIdleConnectionTimeout = std::chrono::seconds(60);
constexpr auto kWriteTimeout = std::chrono::seconds(60);
constexpr auto kHandshakeTimeout = std::chrono::seconds(10);
constexpr auto kTlsShutdownTimeout = std::chrono::seconds(5);
constexpr std::string_view kMcpPrefix = "/mcp/";
constexpr std::string_view kAggregatePath = "/mcp";  // every server the client may use
constexpr std::string_view kMetadataPath = "/.well-known/oauth-protected-resource";

using TlsStream = beast::ssl_stream<beast::tcp_stream>;

using Request = http::request<http::string_body>;

bool containsCaseless(std::string_view haystack, std::string_view needle) {
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                        [](char a, char b) { return std::tolower(a) == std::tolower(b); });
  return it != haystack.end();
}

struct Reply {
  http::status status;
  std::string body;  // JSON; empty for 202 and DELETE
  std::string session_id;
  std::string_view content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers = {};  // WWW-Authenticate, Retry-After
};

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

// An HTTP-level refusal, with a JSON-RPC error body that says what to fix.
Reply refuse(http::status status, int code, std::string message, std::string_view reason,
             json id = nullptr) {
  json data = {{"gateway", "mcpgate"}, {"reason", reason}};
  return {status, jsonrpc::errorResponse(id, code, message, data), ""};
}

// One client connection, plain (beast::tcp_stream) or TLS (TlsStream).
template <typename Stream>
class Connection {
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

 public:
  Connection(tcp::socket socket, asio::ssl::context* tls,
             std::shared_ptr<const CurrentGeneration> current, SessionTable& sessions)
      : stream_(makeStream(std::move(socket), tls)),
        current_(std::move(current)),
        sessions_(sessions) {}

  awaitable<void> run() {
    if constexpr (kTls) {
      // A failed handshake (a plain-HTTP client, a scanner, an old TLS
      // version) ends this connection only; the socket closes with it.
      lowest().expires_after(kHandshakeTimeout);
      auto [ec] =
          co_await stream_.async_handshake(asio::ssl::stream_base::server, as_tuple(use_awaitable));
      if (ec) {
        log::debug("TLS handshake failed", {{"error", ec.message()}});
        co_return;
      }
    }
    beast::flat_buffer buffer;
    // Beast reads at most the buffer's free capacity (512 bytes when it is
    // empty), and a consumed buffer never grows: without this, every request
    // took a read per 512 bytes.
    buffer.reserve(16 * 1024);
    for (;;) {
      // Taken before reading, so the body limit and the request agree.
      generation_ = current_->get();
      config_ = generation_->config;
      http::request_parser<http::string_body> parser;
      parser.body_limit(config_->limits.max_body_bytes);
      lowest().expires_after(kIdleConnectionTimeout);
      auto [ec, n] = co_await http::async_read(stream_, buffer, parser, as_tuple(use_awaitable));
      request_started_ = std::chrono::steady_clock::now();
      metric_server_.clear();
      if (ec == http::error::body_limit) {
        Reply r = refuse(http::status::payload_too_large, jsonrpc::kInvalidRequest,
                         "request body exceeds the limit of " +
                             std::to_string(config_->limits.max_body_bytes) + " bytes",
                         "max_body_bytes");
        co_await write(parser.get().version(), r, /*keep_alive=*/false);
        break;
      }
      if (ec) {
        if (ec != http::error::end_of_stream && ec != asio::error::eof &&
            ec != beast::error::timeout && ec != asio::error::connection_reset &&
            ec != asio::ssl::error::stream_truncated) {
          Reply r = refuse(http::status::bad_request, jsonrpc::kInvalidRequest,
                           "malformed HTTP request: " + ec.message(), "bad_http");
          co_await write(11, r, false);
        }
        break;
      }
      lowest().expires_never();
      Request req = parser.release();
      // Served by the generation of now: the read may have waited through a
      // reload, and a revoked token must not get one more request in.
      generation_ = current_->get();
      config_ = generation_->config;
      bool keep_alive = co_await handle(req);
      if (!keep_alive || !req.keep_alive()) break;
    }
    if constexpr (kTls) {
      lowest().expires_after(kTlsShutdownTimeout);
      auto [ec] = co_await stream_.async_shutdown(as_tuple(use_awaitable));
      (void)ec;  // the peer may already be gone; the socket closes either way
    } else {
      beast::error_code ignored;
      lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
    }
  }

 private:
  static Stream makeStream(tcp::socket socket, asio::ssl::context* tls) {
    if constexpr (kTls) {
      return Stream(beast::tcp_stream(std::move(socket)), *tls);
    } else {
      (void)tls;
      return Stream(std::move(socket));
    }
  }

  beast::tcp_stream& lowest() { return beast::get_lowest_layer(stream_); }

  // Callers pass a named Reply, never a temporary: g++ 12 destroys
  // temporaries of a co_await full-expression twice.
  // The body is moved into the response, not copied.
  awaitable<bool> write(unsigned version, Reply& reply, bool keep_alive) {
    http::response<http::string_body> res{reply.status, version};
    res.set(http::field::server, "mcpgate");
    if (!reply.body.empty()) res.set(http::field::content_type, reply.content_type);
    if (!reply.session_id.empty()) res.set("Mcp-Session-Id", reply.session_id);
    if (reply.status == http::status::method_not_allowed)
      res.set(http::field::allow, "GET, POST, DELETE");
    for (const auto& [name, value] : reply.headers) res.set(name, value);
    res.body() = std::move(reply.body);
    res.keep_alive(keep_alive);
    res.prepare_payload();
    metrics::httpReply(metric_server_, static_cast<unsigned>(reply.status),
                       std::chrono::steady_clock::now() - request_started_);
    lowest().expires_after(kWriteTimeout);
    auto [ec, n] = co_await http::async_write(stream_, res, as_tuple(use_awaitable));
    lowest().expires_never();
    co_return !ec && keep_alive;
  }

  awaitable<bool> handle(Request& req) {
    std::string_view target(req.target().data(), req.target().size());
    target = target.substr(0, target.find('?'));
    const unsigned version = req.version();
    const bool keep_alive = req.keep_alive();

    if (target == "/healthz") {
      {
        Reply reply_out = {http::status::ok, R"({"status":"ok"})", ""};
        co_return co_await write(version, reply_out, keep_alive);
      }
    }
    if (target == "/readyz") {
      const std::optional<std::string> not_ready = metrics::notReadyReason();
      json status = not_ready ? json{{"status", "not ready"}, {"reason", *not_ready}}
                              : json{{"status", "ready"}};
      Reply reply_out = {not_ready ? http::status::service_unavailable : http::status::ok,
                         status.dump(), ""};
      co_return co_await write(version, reply_out, keep_alive);
    }
    if (target == "/metrics") {
      // With auth on, metrics (server names, traffic) are for clients with a
      // token: Prometheus sends one with `authorization: {credentials: ...}`.
      if (generation_->authenticator) {
        if (auto refused = authorize(req, target, nullptr); refused) {
          Reply reply_out = std::move(*refused);
          co_return co_await write(version, reply_out, keep_alive);
        }
      }
      Reply reply_out = {http::status::ok, metrics::render(), "", metrics::kContentType};
      co_return co_await write(version, reply_out, keep_alive);
    }
    if (target == kMetadataPath || target.starts_with(std::string(kMetadataPath) + "/")) {
      Reply reply_out = metadata(req, target.substr(kMetadataPath.size()));
      co_return co_await write(version, reply_out, keep_alive);
    }
    const config::ServerConfig* server = nullptr;
    if (target.starts_with(kMcpPrefix)) {
      auto it = config_->servers.find(std::string(target.substr(kMcpPrefix.size())));
      if (it != config_->servers.end()) server = &it->second;
    }
    if (server != nullptr) metric_server_ = server->name;
    const bool aggregate = target == kAggregatePath;
    // Auth before anything else: without a token nothing, not even whether a
    // server exists, is revealed.
    client_.clear();
    if (generation_->authenticator) {
      if (auto refused = authorize(req, target, server); refused) {
        Reply reply_out = std::move(*refused);
        co_return co_await write(version, reply_out, keep_alive);
      }
    }
    if (server == nullptr && !aggregate) {
      {
        Reply reply_out =
            refuse(http::status::not_found, jsonrpc::kInvalidRequest,
                   "no MCP server at " + std::string(target) +
                       "; servers are served at /mcp/<name>, all of them together at /mcp",
                   "unknown_server");
        co_return co_await write(version, reply_out, keep_alive);
      }
    }
    // DNS rebinding: a browser page must not reach a gateway on localhost.
    if (auto origin = req[http::field::origin]; !origin.empty()) {
      if (!config::originAllowed(*config_, std::string_view(origin.data(), origin.size()))) {
        log::warn("request refused: Origin not allowed",
                  {{"origin", std::string(origin)}, {"path", std::string(target)}});
        {
          Reply reply_out =
              refuse(http::status::forbidden, jsonrpc::kInvalidRequest,
                     "Origin '" + std::string(origin) + "' is not allowed", "origin_not_allowed");
          co_return co_await write(version, reply_out, keep_alive);
        }
      }
    }
    if (auto pv = req["MCP-Protocol-Version"]; !pv.empty()) {
      if (!jsonrpc::isSupportedProtocolVersion(std::string_view(pv.data(), pv.size()))) {
        {
          Reply reply_out = refuse(http::status::bad_request, jsonrpc::kInvalidRequest,
                                   "unsupported MCP-Protocol-Version '" + std::string(pv) +
                                       "'; supported: 2025-03-26, 2025-06-18, 2025-11-25",
                                   "protocol_version");
          co_return co_await write(version, reply_out, keep_alive);
        }
      }
    }
    switch (req.method()) {
      case http::verb::post:
        co_return co_await post(req, server);
      case http::verb::get:
        co_return co_await get(req, server);
      case http::verb::delete_:
        co_return co_await del(req, server);
      default: {
        Reply reply_out =
            refuse(http::status::method_not_allowed, jsonrpc::kInvalidRequest,
                   "method not allowed; use POST, GET or DELETE", "method_not_allowed");
        co_return co_await write(version, reply_out, keep_alive);
      }
    }
  }

  // The public base URL clients reach the gateway at: auth.public_url, else
  // the scheme served and the request's Host.
  std::string baseUrl(const Request& req) const {
    if (!config_->auth.public_url.empty()) return config_->auth.public_url;
    auto host = req[http::field::host];
    std::string_view h(host.data(), host.size());
    std::string authority = isPlainHost(h) ? std::string(h) : "localhost";
    return (kTls ? "https://" : "http://") + authority;
  }

  // RFC 9728 Protected Resource Metadata for the gateway (`suffix` empty) or
  // one server's endpoint (`suffix` "/mcp/NAME").
  Reply metadata(const Request& req, std::string_view suffix) const {
    // Any /mcp/NAME gets a document, configured or not: a client without a
    // token must not learn which servers exist.
    const std::string_view name =
        suffix.starts_with(kMcpPrefix) ? suffix.substr(kMcpPrefix.size()) : std::string_view();
    const bool known = suffix.empty() || suffix == kAggregatePath ||
                       (!name.empty() && name.find('/') == std::string_view::npos);
    if (!generation_->authenticator || !known) {
      return refuse(http::status::not_found, jsonrpc::kInvalidRequest,
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
    return {http::status::ok, doc.dump(), ""};
  }

  // Sets client_ from the request's token; or the reply that refuses it: 401
  // (no or bad token), 403 (a server this client may not use), 429 (rate).
  std::optional<Reply> authorize(const Request& req, std::string_view target,
                                 const config::ServerConfig* server) {
    auto header = req[http::field::authorization];
    auto identity =
        generation_->authenticator->authenticate(std::string_view(header.data(), header.size()));
    if (!identity) {
      const auth::AuthError& error = identity.error();
      const std::string suffix = server != nullptr ? "/mcp/" + server->name : "";
      std::string challenge =
          "Bearer resource_metadata=\"" + baseUrl(req) + std::string(kMetadataPath) + suffix + "\"";
      if (error.kind != auth::AuthError::Kind::kMissing) {
        challenge +=
            ", error=\"invalid_token\", error_description=\"" + quotable(error.description) + "\"";
      }
      log::warn("request refused: not authenticated",
                {{"path", std::string(target)}, {"why", error.description}});
      Reply reply = refuse(http::status::unauthorized, jsonrpc::kInvalidRequest,
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
    if (server != nullptr && !generation_->authenticator->mayUse(client_, server->name)) {
      log::warn("request refused: server not allowed for client",
                {{"client", client_}, {"server", server->name}});
      return refuse(http::status::forbidden, jsonrpc::kInvalidRequest,
                    "client '" + client_ + "' may not use server '" + server->name + "'",
                    "server_not_allowed");
    }
    if (auto wait = generation_->rate->acquire(client_); wait) {
      Reply reply = refuse(http::status::too_many_requests, jsonrpc::kUpstreamError,
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
  std::expected<std::shared_ptr<ClientSession>, Reply> sessionOf(
      const Request& req, const config::ServerConfig* server) {
    auto sid = req["Mcp-Session-Id"];
    if (sid.empty()) {
      return std::unexpected(refuse(http::status::bad_request, jsonrpc::kInvalidRequest,
                                    "Mcp-Session-Id header is required; send initialize first",
                                    "missing_session"));
    }
    auto session = sessions_.find(std::string(sid));
    // A session is used on the path that created it, and nowhere else.
    if (session && session->server() != (server == nullptr ? "" : server->name)) session.reset();
    if (session && session->client() != client_) {
      log::warn("request refused: session belongs to another client",
                {{"client", client_}, {"session_client", session->client()}});
      session = nullptr;
    }
    if (!session) {
      return std::unexpected(refuse(http::status::not_found, jsonrpc::kInvalidRequest,
                                    "session not found (it ended or expired); initialize again",
                                    "unknown_session"));
    }
    return session;
  }

  // `server` is null on the aggregate endpoint.
  awaitable<bool> post(Request& req, const config::ServerConfig* server) {
    const unsigned version = req.version();
    const bool keep_alive = req.keep_alive();
    auto accept = req[http::field::accept];
    std::string_view accept_sv(accept.data(), accept.size());
    const bool accepts_sse = containsCaseless(accept_sv, "text/event-stream");
    const bool accepts_json =
        accept_sv.empty() || containsCaseless(accept_sv, "application/json") ||
        containsCaseless(accept_sv, "*/*") || containsCaseless(accept_sv, "application/*");
    if (!accepts_json && !accepts_sse) {
      {
        Reply reply_out =
            refuse(http::status::not_acceptable, jsonrpc::kInvalidRequest,
                   "Accept must include application/json or text/event-stream", "not_acceptable");
        co_return co_await write(version, reply_out, keep_alive);
      }
    }
    auto content_type = req[http::field::content_type];
    if (!containsCaseless(std::string_view(content_type.data(), content_type.size()),
                          "application/json")) {
      {
        Reply reply_out = refuse(http::status::unsupported_media_type, jsonrpc::kInvalidRequest,
                                 "Content-Type must be application/json", "content_type");
        co_return co_await write(version, reply_out, keep_alive);
      }
    }
    bool duplicate_keys = false;
    auto parsed = jsonrpc::parse(req.body(), config_->limits.max_json_depth, &duplicate_keys);
    if (!parsed) {
      {
        Reply reply_out =
            refuse(http::status::bad_request, parsed.error().code, parsed.error().message,
                   parsed.error().code == jsonrpc::kParseError ? "parse_error" : "max_json_depth");
        co_return co_await write(version, reply_out, keep_alive);
      }
    }
    const bool is_batch = parsed->is_array();
    std::vector<json> messages;
    if (is_batch) {
      messages.assign(std::make_move_iterator(parsed->begin()),
                      std::make_move_iterator(parsed->end()));
    } else {
      messages.push_back(std::move(*parsed));
    }
    if (messages.empty()) {
      {
        Reply reply_out = refuse(http::status::bad_request, jsonrpc::kInvalidRequest, "empty batch",
                                 "invalid_request");
        co_return co_await write(version, reply_out, keep_alive);
      }
    }
    std::size_t requests = 0;
    bool initialize = false;
    for (const auto& m : messages) {
      auto kind = jsonrpc::classify(m);
      if (kind == jsonrpc::Kind::kInvalid) {
        json id = m.is_object() && m.contains("id") ? m["id"] : json(nullptr);
        {
          Reply reply_out =
              refuse(http::status::bad_request, jsonrpc::kInvalidRequest,
                     "not a JSON-RPC 2.0 request, notification or response", "invalid_request", id);
          co_return co_await write(version, reply_out, keep_alive);
        }
      }
      if (kind == jsonrpc::Kind::kRequest) {
        ++requests;
        initialize = initialize || m["method"] == "initialize";
      }
    }

    std::shared_ptr<ClientSession> session;
    if (initialize) {
      if (is_batch) {
        {
          Reply reply_out = refuse(http::status::bad_request, jsonrpc::kInvalidRequest,
                                   "initialize must not be part of a batch", "invalid_request");
          co_return co_await write(version, reply_out, keep_alive);
        }
      }
      std::expected<std::shared_ptr<ClientSession>, SessionTable::Failure> created;
      if (server != nullptr) {
        auto one = sessions_.create(generation_, *server, client_);
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
        created = sessions_.createAggregate(generation_, std::move(allowed), client_);
      }
      if (!created) {
        using enum SessionTable::CreateError;
        const auto kind = created.error().kind;
        {
          Reply reply_out = refuse(kind == kTooMany         ? http::status::service_unavailable
                                   : kind == kClientTooMany ? http::status::too_many_requests
                                                            : http::status::bad_gateway,
                                   jsonrpc::kUpstreamError, created.error().message,
                                   kind == kTooMany         ? "max_sessions"
                                   : kind == kClientTooMany ? "client_max_sessions"
                                                            : "spawn_failed",
                                   messages[0]["id"]);
          co_return co_await write(version, reply_out, keep_alive);
        }
      }
      session = std::move(*created);
    } else {
      auto found = sessionOf(req, server);
      if (!found) co_return co_await write(version, found.error(), keep_alive);
      session = std::move(*found);
      if (is_batch && !session->batchesAllowed()) {
        {
          Reply reply_out =
              refuse(http::status::bad_request, jsonrpc::kInvalidRequest,
                     "JSON-RPC batches are only allowed with protocol version 2025-03-26",
                     "batch_not_allowed");
          co_return co_await write(version, reply_out, keep_alive);
        }
      }
    }

    std::shared_ptr<Mailbox> mailbox;
    if (requests > 0) {
      mailbox =
          std::make_shared<Mailbox>(co_await asio::this_coro::executor, accepts_sse, requests);
    }
    const json initialize_id = initialize ? messages[0]["id"] : json(nullptr);
    // Empty: not to be forwarded as written (ClientSession::fromClient).
    if (duplicate_keys) req.body().clear();
    if (session->fromClient(std::move(messages), std::move(req.body()), mailbox) ==
        Session::Accepted::kClosed) {
      if (initialize) {
        // Its server died before the initialize reached it: say why, as the
        // answer to that initialize, rather than "not found" for a session
        // the client never had.
        json data = {{"gateway", "mcpgate"}, {"reason", "session_closed"}};
        if (server != nullptr) data["server"] = server->name;
        Reply reply_out = {http::status::ok,
                           jsonrpc::errorResponse(initialize_id, jsonrpc::kUpstreamError,
                                                  session->closeReason(), data),
                           ""};
        co_return co_await write(version, reply_out, keep_alive);
      }
      {
        Reply reply_out =
            refuse(http::status::not_found, jsonrpc::kInvalidRequest,
                   "session not found (it ended or expired); initialize again", "unknown_session");
        co_return co_await write(version, reply_out, keep_alive);
      }
    }
    if (!mailbox) {
      {
        Reply reply_out = {http::status::accepted, "", ""};
        co_return co_await write(version, reply_out, keep_alive);
      }
    }
    const std::string sid = initialize ? session->id() : "";
    // JSON when nothing but responses came (a batch waits for all of them);
    // SSE as soon as the server sends anything else first.
    Mailbox::Batch first = co_await mailbox->next();
    while (accepts_json && !first.finished && !first.has_intermediate) {
      Mailbox::Batch more = co_await mailbox->next();
      first.messages.insert(first.messages.end(), std::make_move_iterator(more.messages.begin()),
                            std::make_move_iterator(more.messages.end()));
      first.has_intermediate = more.has_intermediate;
      first.finished = more.finished;
    }
    if (accepts_json && first.finished && !first.has_intermediate) {
      std::string body;
      if (is_batch) {
        body = "[";
        for (std::size_t i = 0; i < first.messages.size(); ++i) {
          if (i > 0) body += ',';
          body += first.messages[i];
        }
        body += "]";
      } else if (!first.messages.empty()) {
        body = std::move(first.messages.front());
      }
      {
        Reply reply_out = {http::status::ok, std::move(body), sid};
        co_return co_await write(version, reply_out, keep_alive);
      }
    }
    co_return co_await streamEvents(version, keep_alive, sid, *mailbox, std::move(first));
  }

  awaitable<bool> get(Request& req, const config::ServerConfig* server) {
    const unsigned version = req.version();
    const bool keep_alive = req.keep_alive();
    auto accept = req[http::field::accept];
    if (!containsCaseless(std::string_view(accept.data(), accept.size()), "text/event-stream")) {
      {
        Reply reply_out = refuse(http::status::not_acceptable, jsonrpc::kInvalidRequest,
                                 "Accept must include text/event-stream", "not_acceptable");
        co_return co_await write(version, reply_out, keep_alive);
      }
    }
    auto found = sessionOf(req, server);
    if (!found) co_return co_await write(version, found.error(), keep_alive);
    auto mailbox = std::make_shared<Mailbox>(co_await asio::this_coro::executor, true, 0);
    switch ((*found)->openStream(mailbox)) {
      case Session::StreamResult::kClosed: {
        Reply reply_out = refuse(http::status::not_found, jsonrpc::kInvalidRequest,
                                 "session not found (it ended or expired)", "unknown_session");
        co_return co_await write(version, reply_out, keep_alive);
      }
      case Session::StreamResult::kConflict: {
        Reply reply_out = refuse(http::status::conflict, jsonrpc::kInvalidRequest,
                                 "this session already has an open GET stream", "stream_conflict");
        co_return co_await write(version, reply_out, keep_alive);
      }
      case Session::StreamResult::kOk:
        break;
    }
    Mailbox::Batch nothing_yet;
    co_return co_await streamEvents(version, keep_alive, "", *mailbox, std::move(nothing_yet));
  }

  awaitable<bool> del(Request& req, const config::ServerConfig* server) {
    auto found = sessionOf(req, server);
    if (!found) co_return co_await write(req.version(), found.error(), req.keep_alive());
    (*found)->close("the client ended the session (HTTP DELETE)");
    {
      Reply reply_out = {http::status::ok, "", ""};
      co_return co_await write(req.version(), reply_out, req.keep_alive());
    }
  }

  // Sends the mailbox's messages as SSE events until it finishes or the
  // client goes away.
  awaitable<bool> streamEvents(unsigned version, bool keep_alive, const std::string& sid,
                               Mailbox& mailbox, Mailbox::Batch batch) {
    http::response<http::empty_body> res{http::status::ok, version};
    res.set(http::field::server, "mcpgate");
    res.set(http::field::content_type, "text/event-stream");
    res.set(http::field::cache_control, "no-cache");
    if (!sid.empty()) res.set("Mcp-Session-Id", sid);
    res.keep_alive(keep_alive);
    res.chunked(true);
    http::response_serializer<http::empty_body> serializer{res};
    lowest().expires_after(kWriteTimeout);
    metrics::httpReply(metric_server_, 200, std::chrono::steady_clock::now() - request_started_);
    auto [ec, n] = co_await http::async_write_header(stream_, serializer, as_tuple(use_awaitable));
    std::string events;
    while (!ec) {
      events.clear();
      for (const auto& m : batch.messages) {
        if (m.empty()) {
          events += ": keepalive\n\n";
        } else {
          events += "event: message\ndata: ";
          events += m;
          events += "\n\n";
        }
      }
      if (!events.empty()) {
        lowest().expires_after(kWriteTimeout);
        std::tie(ec, n) = co_await asio::async_write(
            stream_, http::make_chunk(asio::buffer(events)), as_tuple(use_awaitable));
        if (ec) break;
      }
      if (batch.finished) {
        lowest().expires_after(kWriteTimeout);
        std::tie(ec, n) =
            co_await asio::async_write(stream_, http::make_chunk_last(), as_tuple(use_awaitable));
        lowest().expires_never();
        co_return !ec && keep_alive;
      }
      lowest().expires_never();
      batch = co_await mailbox.next();
    }
    mailbox.abandon();
    co_return false;
  }

  Stream stream_;
  std::shared_ptr<const CurrentGeneration> current_;
  std::shared_ptr<const Generation> generation_;  // of the request being served
  std::shared_ptr<const config::Config> config_;  // generation_->config
  SessionTable& sessions_;
  std::string client_;  // of the request being handled; empty without auth
  // For /metrics: when the request being answered was read, and its server.
  std::chrono::steady_clock::time_point request_started_;
  std::string metric_server_;
};

void logConnectionFailure(std::exception_ptr e) {
  if (!e) return;
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    log::error("connection failed", {{"error", ex.what()}});
  }
}

}  // namespace

struct HttpServer::Impl {
  IoPool& pool;
  std::shared_ptr<const CurrentGeneration> current;
  SessionTable& sessions;
  tcp::acceptor acceptor{pool.main()};
  // Built once at listen: a reload does not change the certificate.
  std::optional<asio::ssl::context> tls;

  awaitable<void> acceptLoop() {
    for (;;) {
      auto [ec, socket] =
          co_await acceptor.async_accept(asio::make_strand(pool.next()), as_tuple(use_awaitable));
      if (ec) {
        if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
        log::warn("accept failed", {{"error", ec.message()}});
        continue;
      }
      socket.set_option(tcp::no_delay(true), ec);
      auto executor = socket.get_executor();
      if (tls) {
        auto connection =
            std::make_shared<Connection<TlsStream>>(std::move(socket), &*tls, current, sessions);
        asio::co_spawn(
            executor, [connection]() { return connection->run(); }, logConnectionFailure);
      } else {
        auto connection = std::make_shared<Connection<beast::tcp_stream>>(
            std::move(socket), nullptr, current, sessions);
        asio::co_spawn(
            executor, [connection]() { return connection->run(); }, logConnectionFailure);
      }
    }
  }
};

HttpServer::HttpServer(IoPool& pool, std::shared_ptr<const CurrentGeneration> current,
                       SessionTable& sessions)
    : impl_(std::make_unique<Impl>(pool, std::move(current), sessions)) {}

HttpServer::~HttpServer() = default;

namespace {

// TLS 1.2 and up, with the certificate chain and key of the `tls:` section.
std::expected<void, std::string> setUpTls(asio::ssl::context& context,
                                          const config::TlsConfig& tls) {
  SSL_CTX_set_min_proto_version(context.native_handle(), TLS1_2_VERSION);
  context.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                      asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                      asio::ssl::context::no_tlsv1_1 | asio::ssl::context::single_dh_use);
  beast::error_code ec;
  context.use_certificate_chain_file(tls.cert_file, ec);
  if (ec) return std::unexpected("tls.cert_file " + tls.cert_file + ": " + ec.message());
  context.use_private_key_file(tls.key_file, asio::ssl::context::pem, ec);
  if (ec) return std::unexpected("tls.key_file " + tls.key_file + ": " + ec.message());
  if (SSL_CTX_check_private_key(context.native_handle()) != 1) {
    return std::unexpected("tls.key_file " + tls.key_file + " does not match the certificate in " +
                           tls.cert_file);
  }
  return {};
}

}  // namespace

std::expected<tcp::endpoint, std::string> HttpServer::listen(const std::string& host,
                                                             unsigned short port) {
  const config::Config& config = *impl_->current->get()->config;
  if (config.tls.enabled()) {
    impl_->tls.emplace(asio::ssl::context::tls_server);
    if (auto ready = setUpTls(*impl_->tls, config.tls); !ready)
      return std::unexpected(ready.error());
  }
  beast::error_code ec;
  auto address = asio::ip::make_address(host, ec);
  if (ec) return std::unexpected("invalid listen address '" + host + "': " + ec.message());
  tcp::endpoint endpoint(address, port);
  auto& acceptor = impl_->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return std::unexpected("cannot listen on " + host + ":" + std::to_string(port) + ": " +
                           ec.message());
  }
  auto bound = acceptor.local_endpoint(ec);
  asio::co_spawn(
      impl_->pool.main(), [impl = impl_.get()] { return impl->acceptLoop(); }, asio::detached);
  return bound;
}

void HttpServer::stop() {
  asio::post(impl_->pool.main(), [impl = impl_.get()] {
    beast::error_code ignored;
    impl->acceptor.close(ignored);
  });
}

}  // namespace mcpgate::gateway
