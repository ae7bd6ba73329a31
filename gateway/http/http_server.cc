#include "gateway/http/http_server.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <optional>

#include "gateway/http/endpoint.h"
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

namespace {

constexpr auto kIdleConnectionTimeout = std::chrono::seconds(60);
constexpr auto kWriteTimeout = std::chrono::seconds(60);
constexpr auto kHandshakeTimeout = std::chrono::seconds(10);
constexpr auto kTlsShutdownTimeout = std::chrono::seconds(5);

using TlsStream = beast::ssl_stream<beast::tcp_stream>;
using Request = http::request<http::string_body>;

std::string_view view(beast::string_view s) { return {s.data(), s.size()}; }

// The endpoint's view of a Beast request; the body moves, the rest points into `req`.
HttpRequest endpointRequest(Request& req) {
  HttpRequest in;
  switch (req.method()) {
    case http::verb::post:
      in.method = HttpRequest::Method::kPost;
      break;
    case http::verb::get:
      in.method = HttpRequest::Method::kGet;
      break;
    case http::verb::delete_:
      in.method = HttpRequest::Method::kDelete;
      break;
    default:
      in.method = HttpRequest::Method::kOther;
  }
  in.target = view(req.target());
  in.target = in.target.substr(0, in.target.find('?'));
  in.host = view(req[http::field::host]);
  in.accept = view(req[http::field::accept]);
  in.content_type = view(req[http::field::content_type]);
  in.authorization = view(req[http::field::authorization]);
  in.origin = view(req[http::field::origin]);
  in.protocol_version = view(req["MCP-Protocol-Version"]);
  in.session_id = view(req["Mcp-Session-Id"]);
  in.body = std::move(req.body());
  return in;
}

// One request read and answered, to be sent.
struct Exchange {
  Answer answer;
  unsigned version = 11;
  bool keep_alive = false;
  bool close_quietly = false;  // the peer went away or idled out: nothing to send
};

// One client connection, plain (beast::tcp_stream) or TLS (TlsStream): only
// the bytes. What to answer is the Endpoint's.
template <typename Stream>
class Connection {
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

 public:
  Connection(tcp::socket socket, asio::ssl::context* tls,
             std::shared_ptr<const CurrentGeneration> current, SessionTable& sessions)
      : stream_(makeStream(std::move(socket), tls)),
        current_(current),
        endpoint_(std::move(current), sessions, kTls) {}

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
      Exchange exchange = co_await readAndAnswer(buffer);
      if (exchange.close_quietly) break;
      const bool again = co_await send(exchange);
      if (!again) break;
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

  awaitable<Exchange> readAndAnswer(beast::flat_buffer& buffer) {
    // Taken before reading, so the body limit and the request agree.
    const std::size_t body_limit = current_->get()->config->limits.max_body_bytes;
    http::request_parser<http::string_body> parser;
    parser.body_limit(body_limit);
    lowest().expires_after(kIdleConnectionTimeout);
    auto [ec, n] = co_await http::async_read(stream_, buffer, parser, as_tuple(use_awaitable));
    request_started_ = std::chrono::steady_clock::now();
    if (ec == http::error::body_limit) {
      co_return Exchange{
          {refuse(HttpStatus::payload_too_large, jsonrpc::kInvalidRequest,
                  "request body exceeds the limit of " + std::to_string(body_limit) + " bytes",
                  "max_body_bytes"),
           {}},
          parser.get().version(),
          /*keep_alive=*/false};
    }
    if (ec == http::error::end_of_stream || ec == asio::error::eof || ec == beast::error::timeout ||
        ec == asio::error::connection_reset || ec == asio::ssl::error::stream_truncated) {
      co_return Exchange{Answer{}, 11, /*keep_alive=*/false, /*close_quietly=*/true};
    }
    if (ec) {
      co_return Exchange{{refuse(HttpStatus::bad_request, jsonrpc::kInvalidRequest,
                                 "malformed HTTP request: " + ec.message(), "bad_http"),
                          {}},
                         11,
                         /*keep_alive=*/false};
    }
    lowest().expires_never();
    Request req = parser.release();
    HttpRequest in = endpointRequest(req);
    Answer answer = co_await endpoint_.handle(in);
    co_return Exchange{std::move(answer), req.version(), req.keep_alive()};
  }

  // The one place an answer leaves: whole, or as an event stream.
  awaitable<bool> send(Exchange& exchange) {
    if (auto* reply = std::get_if<Reply>(&exchange.answer.plan)) {
      const bool again = co_await write(exchange, *reply);
      co_return again;
    }
    const bool again = co_await streamEvents(exchange, std::get<EventStream>(exchange.answer.plan));
    co_return again;
  }

  // The body is moved into the response, not copied.
  awaitable<bool> write(const Exchange& exchange, Reply& reply) {
    http::response<http::string_body> res{reply.status, exchange.version};
    res.set(http::field::server, "mcpgate");
    if (!reply.body.empty()) res.set(http::field::content_type, reply.content_type);
    if (!reply.session_id.empty()) res.set("Mcp-Session-Id", reply.session_id);
    for (const auto& [name, value] : reply.headers) res.set(name, value);
    res.body() = std::move(reply.body);
    res.keep_alive(exchange.keep_alive);
    res.prepare_payload();
    metrics::httpReply(exchange.answer.metric_server, static_cast<unsigned>(reply.status),
                       std::chrono::steady_clock::now() - request_started_);
    lowest().expires_after(kWriteTimeout);
    auto [ec, n] = co_await http::async_write(stream_, res, as_tuple(use_awaitable));
    lowest().expires_never();
    co_return !ec && exchange.keep_alive;
  }

  // Sends the mailbox's messages as SSE events until it finishes or the
  // client goes away.
  awaitable<bool> streamEvents(const Exchange& exchange, EventStream& stream) {
    http::response<http::empty_body> res{http::status::ok, exchange.version};
    res.set(http::field::server, "mcpgate");
    res.set(http::field::content_type, "text/event-stream");
    res.set(http::field::cache_control, "no-cache");
    if (!stream.session_id.empty()) res.set("Mcp-Session-Id", stream.session_id);
    res.keep_alive(exchange.keep_alive);
    res.chunked(true);
    http::response_serializer<http::empty_body> serializer{res};
    lowest().expires_after(kWriteTimeout);
    metrics::httpReply(exchange.answer.metric_server, 200,
                       std::chrono::steady_clock::now() - request_started_);
    auto [ec, n] = co_await http::async_write_header(stream_, serializer, as_tuple(use_awaitable));
    Mailbox::Batch& batch = stream.first;
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
        co_return !ec && exchange.keep_alive;
      }
      lowest().expires_never();
      batch = co_await stream.mailbox->next();
    }
    stream.mailbox->abandon();
    co_return false;
  }

  Stream stream_;
  std::shared_ptr<const CurrentGeneration> current_;
  Endpoint endpoint_;
  // For /metrics: when the request being answered was read.
  std::chrono::steady_clock::time_point request_started_;
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
