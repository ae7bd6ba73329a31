#include "gateway/http_server.h"

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cctype>

#include "config/origin.h"
#include "gateway/jsonrpc.h"
#include "gateway/log.h"
#include "gateway/metrics.h"

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
constexpr std::string_view kMcpPrefix = "/mcp/";
constexpr std::string_view kAggregatePath = "/mcp";  // every server the client may use

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
};

// An HTTP-level refusal, with a JSON-RPC error body that says what to fix.
Reply refuse(http::status status, int code, std::string message, std::string_view reason,
             json id = nullptr) {
  json data = {{"gateway", "mcpgate"}, {"reason", reason}};
  return {status, jsonrpc::errorResponse(id, code, message, data), ""};
}

class Connection {
 public:
  Connection(tcp::socket socket, std::shared_ptr<const CurrentGeneration> current,
             SessionTable& sessions)
      : stream_(std::move(socket)), current_(std::move(current)), sessions_(sessions) {}

  awaitable<void> run() {
    beast::flat_buffer buffer;
    for (;;) {
      // Taken before reading, so the body limit and the request agree.
      generation_ = current_->get();
      config_ = generation_->config;
      http::request_parser<http::string_body> parser;
      parser.body_limit(config_->limits.max_body_bytes);
      stream_.expires_after(kIdleConnectionTimeout);
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
            ec != beast::error::timeout && ec != asio::error::connection_reset) {
          Reply r = refuse(http::status::bad_request, jsonrpc::kInvalidRequest,
                           "malformed HTTP request: " + ec.message(), "bad_http");
          co_await write(11, r, false);
        }
        break;
      }
      stream_.expires_never();
      Request req = parser.release();
      bool keep_alive = co_await handle(req);
      if (!keep_alive || !req.keep_alive()) break;
    }
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
  }

 private:
  // Callers pass a named Reply, never a temporary: g++ 12 destroys
  // temporaries of a co_await full-expression twice.
  awaitable<bool> write(unsigned version, const Reply& reply, bool keep_alive) {
    http::response<http::string_body> res{reply.status, version};
    res.set(http::field::server, "mcpgate");
    if (!reply.body.empty()) res.set(http::field::content_type, reply.content_type);
    if (!reply.session_id.empty()) res.set("Mcp-Session-Id", reply.session_id);
    if (reply.status == http::status::method_not_allowed)
      res.set(http::field::allow, "GET, POST, DELETE");
    res.body() = reply.body;
    res.keep_alive(keep_alive);
    res.prepare_payload();
    metrics::httpReply(metric_server_, static_cast<unsigned>(reply.status),
                       std::chrono::steady_clock::now() - request_started_);
    stream_.expires_after(kWriteTimeout);
    auto [ec, n] = co_await http::async_write(stream_, res, as_tuple(use_awaitable));
    stream_.expires_never();
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
      Reply reply_out = {http::status::ok, metrics::render(), "", metrics::kContentType};
      co_return co_await write(version, reply_out, keep_alive);
    }
    const config::ServerConfig* server = nullptr;
    if (target.starts_with(kMcpPrefix)) {
      auto it = config_->servers.find(std::string(target.substr(kMcpPrefix.size())));
      if (it != config_->servers.end()) server = &it->second;
    }
    if (server != nullptr) metric_server_ = server->name;
    const bool aggregate = target == kAggregatePath;
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

  // The session named by Mcp-Session-Id on this path (`server`, or null for
  // the aggregate endpoint), or the reply that refuses the request.
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
    auto parsed = jsonrpc::parse(req.body(), config_->limits.max_json_depth);
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
        auto one = sessions_.create(generation_, *server);
        if (one) {
          created = *one;
        } else {
          created = std::unexpected(one.error());
        }
      } else {
        std::vector<std::string> all;
        for (const auto& [name, s] : config_->servers) all.push_back(name);
        created = sessions_.createAggregate(generation_, std::move(all));
      }
      if (!created) {
        bool too_many = created.error().kind == SessionTable::CreateError::kTooMany;
        {
          Reply reply_out =
              refuse(too_many ? http::status::service_unavailable : http::status::bad_gateway,
                     jsonrpc::kUpstreamError, created.error().message,
                     too_many ? "max_sessions" : "spawn_failed", messages[0]["id"]);
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
    if (session->fromClient(std::move(messages), std::move(req.body()), mailbox) ==
        Session::Accepted::kClosed) {
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
    stream_.expires_after(kWriteTimeout);
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
        stream_.expires_after(kWriteTimeout);
        std::tie(ec, n) = co_await asio::async_write(
            stream_, http::make_chunk(asio::buffer(events)), as_tuple(use_awaitable));
        if (ec) break;
      }
      if (batch.finished) {
        stream_.expires_after(kWriteTimeout);
        std::tie(ec, n) =
            co_await asio::async_write(stream_, http::make_chunk_last(), as_tuple(use_awaitable));
        stream_.expires_never();
        co_return !ec && keep_alive;
      }
      stream_.expires_never();
      batch = co_await mailbox.next();
    }
    mailbox.abandon();
    co_return false;
  }

  beast::tcp_stream stream_;
  std::shared_ptr<const CurrentGeneration> current_;
  std::shared_ptr<const Generation> generation_;  // of the request being served
  std::shared_ptr<const config::Config> config_;  // generation_->config
  SessionTable& sessions_;
  // For /metrics: when the request being answered was read, and its server.
  std::chrono::steady_clock::time_point request_started_;
  std::string metric_server_;
};

}  // namespace

struct HttpServer::Impl {
  asio::io_context& io;
  std::shared_ptr<const CurrentGeneration> current;
  SessionTable& sessions;
  tcp::acceptor acceptor{io};

  awaitable<void> acceptLoop() {
    for (;;) {
      auto [ec, socket] =
          co_await acceptor.async_accept(asio::make_strand(io), as_tuple(use_awaitable));
      if (ec) {
        if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
        log::warn("accept failed", {{"error", ec.message()}});
        continue;
      }
      socket.set_option(tcp::no_delay(true), ec);
      auto executor = socket.get_executor();
      auto connection = std::make_shared<Connection>(std::move(socket), current, sessions);
      asio::co_spawn(
          executor, [connection]() { return connection->run(); },
          [](std::exception_ptr e) {
            if (!e) return;
            try {
              std::rethrow_exception(e);
            } catch (const std::exception& ex) {
              log::error("connection failed", {{"error", ex.what()}});
            }
          });
    }
  }
};

HttpServer::HttpServer(asio::io_context& io, std::shared_ptr<const CurrentGeneration> current,
                       SessionTable& sessions)
    : impl_(std::make_unique<Impl>(Impl{io, std::move(current), sessions})) {}

HttpServer::~HttpServer() = default;

std::expected<tcp::endpoint, std::string> HttpServer::listen(const std::string& host,
                                                             unsigned short port) {
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
      impl_->io, [impl = impl_.get()] { return impl->acceptLoop(); }, asio::detached);
  return bound;
}

void HttpServer::stop() {
  asio::post(impl_->io, [impl = impl_.get()] {
    beast::error_code ignored;
    impl->acceptor.close(ignored);
  });
}

}  // namespace mcpgate::gateway
