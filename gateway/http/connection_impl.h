#pragma once

// The transport's template: one client connection, plain or TLS. Beast is
// here, so only the connection_*.cc files include this. The member functions
// are defined in connection_read.h, connection_write.h and connection_events.h:
// connection_plain.cc instantiates them all for plain TCP, and the TLS ones,
// the slowest to compile, are instantiated one header per file
// (connection_tls.cc, connection_tls_write.cc, connection_tls_events.cc).
// Everything else is the Endpoint's.

#include <sys/socket.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cerrno>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "gateway/http/connection.h"
#include "gateway/http/endpoint.h"
#include "gateway/http/request_checks.h"
#include "gateway/mcp/jsonrpc.h"
#include "gateway/observe/log.h"
#include "gateway/observe/metrics.h"

// g++ 12 misreads Asio's coroutine frame allocator (awaitable_frame_base's
// own operator new and delete) in large coroutines as a mismatched pair.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace mcpgate::gateway::transport {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::as_tuple;
using asio::awaitable;
using asio::use_awaitable;
using asio::ip::tcp;

constexpr auto kIdleConnectionTimeout = std::chrono::seconds(60);
constexpr auto kWriteTimeout = std::chrono::seconds(60);
constexpr auto kHandshakeTimeout = std::chrono::seconds(10);
constexpr auto kTlsShutdownTimeout = std::chrono::seconds(5);

using Request = http::request<http::string_body>;

inline std::string_view view(beast::string_view s) { return {s.data(), s.size()}; }

// The endpoint's view of a Beast request; the body moves, the rest points into `req`.
inline HttpRequest endpointRequest(Request& req) {
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
  // One pass over the fields. Of a repeated field, the first is read (as
  // req[name] reads it), but Mcp-Method and Mcp-Name, the last.
  bool host = false, accept = false, content_type = false, authorization = false, origin = false,
       protocol_version = false, session_id = false;
  auto first = [](bool& seen, std::string_view& into, beast::string_view value) {
    if (!seen) into = view(value);
    seen = true;
  };
  for (const auto& field : req) {
    switch (field.name()) {
      case http::field::host:
        first(host, in.host, field.value());
        continue;
      case http::field::accept:
        first(accept, in.accept, field.value());
        continue;
      case http::field::content_type:
        first(content_type, in.content_type, field.value());
        continue;
      case http::field::authorization:
        first(authorization, in.authorization, field.value());
        continue;
      case http::field::origin:
        first(origin, in.origin, field.value());
        continue;
      case http::field::unknown:
        break;
      default:
        continue;
    }
    const beast::string_view name = field.name_string();
    constexpr std::size_t kParam = sizeof("Mcp-Param-") - 1;
    if (beast::iequals(name, "MCP-Protocol-Version")) {
      first(protocol_version, in.protocol_version, field.value());
    } else if (beast::iequals(name, "Mcp-Session-Id")) {
      first(session_id, in.session_id, field.value());
    } else if (beast::iequals(name, "Mcp-Method")) {
      in.mcp_method = view(field.value());
    } else if (beast::iequals(name, "Mcp-Name")) {
      in.mcp_name = view(field.value());
    } else if (name.size() > kParam && beast::iequals(name.substr(0, kParam), "Mcp-Param-")) {
      in.mcp_params.emplace_back(view(name.substr(kParam)), view(field.value()));
    }
  }
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

// One client connection, plain (beast::tcp_stream) or TLS
// (beast::ssl_stream<beast::tcp_stream>): only the bytes. What to answer is
// the Endpoint's. Only the connection_tls*.cc files instantiate the TLS one,
// so only they include the TLS headers.
template <typename Stream>
class Connection final : public PeerWatch {
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

 public:
  Connection(tcp::socket socket, asio::ssl::context* tls,
             std::shared_ptr<const CurrentGeneration> current, SessionTable& sessions)
      : stream_(makeStream(std::move(socket), tls)),
        current_(current),
        endpoint_(std::move(current), sessions, kTls, peerAddress(lowest().socket())) {}

  awaitable<void> run();

  // Waits for the socket to turn readable while the answer is awaited or streamed; a peer that
  // closed (EOF, a reset, a TLS alert) abandons the mailbox. Data (a pipelined request) ends
  // the watch: it is read with the next request. Handlers run on the socket's strand, as the
  // connection's coroutine does.
  void abandonOnClose(std::weak_ptr<Mailbox> mailbox) override {
    watched_ = std::move(mailbox);
    armWatch();
  }

 private:
  void armWatch() {
    lowest().socket().async_wait(
        tcp::socket::wait_read,
        asio::bind_cancellation_slot(
            watch_cancel_.slot(),
            [this, alive = std::weak_ptr<char>(alive_)](const boost::system::error_code& ec) {
              if (ec || alive.expired() || watched_.expired()) return;
              char first = 0;
              const ssize_t n =
                  ::recv(lowest().socket().native_handle(), &first, 1, MSG_PEEK | MSG_DONTWAIT);
              if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
                armWatch();
                return;
              }
              // 0x15: a TLS alert record (close_notify, or a fatal alert): the client is done.
              const bool closed = n <= 0 || (kTls && first == 0x15);
              if (!closed) return;
              if (auto mailbox = watched_.lock()) mailbox->abandon();
              watched_.reset();
            }));
  }
  // Always emitted: the mailbox may be gone while the wait is still pending (a JSON answer's
  // mailbox usually is by now); with no wait pending, emit() does nothing.
  void stopWatch() {
    watched_.reset();
    watch_cancel_.emit(asio::cancellation_type::terminal);
  }

  static Stream makeStream(tcp::socket socket, asio::ssl::context* tls) {
    if constexpr (kTls) {
      return Stream(beast::tcp_stream(std::move(socket)), *tls);
    } else {
      (void)tls;
      return Stream(std::move(socket));
    }
  }

  beast::tcp_stream& lowest() { return beast::get_lowest_layer(stream_); }

  static std::string peerAddress(const tcp::socket& socket) {
    beast::error_code ec;
    const auto remote = socket.remote_endpoint(ec);
    return ec ? std::string() : remote.address().to_string();
  }

  awaitable<Exchange> readAndAnswer(beast::flat_buffer& buffer);
  // Reads until `buffer` holds a whole header section (or more than any
  // header may be: the parser then refuses it). The error ends the connection
  // quietly; the string says why the header is refused (folded lines, which
  // Beast would join silently).
  awaitable<std::pair<beast::error_code, std::optional<std::string>>> readHeaderSection(
      beast::flat_buffer& buffer);

  // The one place an answer leaves: whole, or as an event stream.
  awaitable<bool> send(Exchange& exchange);

  // The body is moved into the response, not copied.
  awaitable<bool> write(const Exchange& exchange, Reply& reply);

  // Sends the mailbox's messages as SSE events until it finishes or the
  // client goes away.
  awaitable<bool> streamEvents(const Exchange& exchange, EventStream& stream);

  Stream stream_;
  std::shared_ptr<const CurrentGeneration> current_;
  Endpoint endpoint_;
  // For /metrics: when the request being answered was read.
  std::chrono::steady_clock::time_point request_started_;
  // abandonOnClose(): the mailbox watched, the wait's cancellation, and what the wait's
  // handler checks first (the connection may have ended before it runs).
  std::weak_ptr<Mailbox> watched_;
  asio::cancellation_signal watch_cancel_;
  std::shared_ptr<char> alive_ = std::make_shared<char>();
};

inline void logConnectionFailure(std::exception_ptr e) {
  if (!e) return;
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    log::error("connection failed", {{"error", ex.what()}});
  }
}

// Runs a connection on its socket's executor; it lives as long as its coroutine.
// `slot` (the address's connection count, see AcceptGuard) is held as long.
template <typename Stream>
void spawnConnection(tcp::socket socket, asio::ssl::context* tls,
                     std::shared_ptr<const CurrentGeneration> current, SessionTable& sessions,
                     std::shared_ptr<void> slot) {
  auto executor = socket.get_executor();
  auto connection =
      std::make_shared<Connection<Stream>>(std::move(socket), tls, std::move(current), sessions);
  asio::co_spawn(
      executor, [connection, slot = std::move(slot)]() { return connection->run(); },
      logConnectionFailure);
}

}  // namespace mcpgate::gateway::transport
