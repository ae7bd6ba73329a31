#pragma once

// Connections to a remote MCP server: the client TLS context (CA bundle,
// client certificate), TCP connect and the TLS handshake with the host name
// checked. Beast is here: only remote_upstream.cc and remote_connection.cc
// include this.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <expected>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "config/config.h"

namespace mcpgate::gateway::remote {

namespace beast = boost::beast;

// One keep-alive connection, plain or TLS.
struct Connection {
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> tls;
  beast::flat_buffer buffer;
  bool reused = false;

  beast::tcp_stream& lowest() { return tls ? beast::get_lowest_layer(*tls) : *plain; }
};

// Why an exchange produced no (complete) answer. `message` is for the client
// and the log: it never holds header values or bodies.
struct Failure {
  std::string message;
  std::string reason;  // data.reason of the JSON-RPC error
  int status = 0;      // HTTP status, when the remote answered
  bool retry = false;  // a reused connection died before any answer: try a fresh one
};

// What the head of an answer says of its body: what to do with it, the
// failure it is (an error status, an unknown content type), and how much of
// it to read.
enum class BodyKind { kDrop, kJson, kSse };
struct Judged {
  BodyKind kind = BodyKind::kDrop;
  std::optional<Failure> failure;
  std::size_t limit = 0;
};
[[nodiscard]] Judged judgeAnswer(int status, std::string_view phrase, std::string_view content_type,
                                 const std::string& who, std::size_t max_message_bytes,
                                 std::size_t max_error_bytes);

// TLS 1.2 and up, peers verified against the CA bundle, with the client
// certificate if the config names one.
[[nodiscard]] std::expected<std::shared_ptr<boost::asio::ssl::context>, std::string> makeTlsContext(
    const config::RemoteConfig& remote);

// Resolves and connects to the remote, then (with `tls`) shakes hands,
// checking the certificate names the host. While it waits the connection is
// in `active`, so that closing everything there ends the wait. `what` starts
// every failure's message.
[[nodiscard]] boost::asio::awaitable<std::expected<std::unique_ptr<Connection>, Failure>> connect(
    const boost::asio::any_io_executor& executor, const config::RemoteConfig& remote,
    boost::asio::ssl::context* tls, const std::string& what, std::set<Connection*>& active);

void closeConnection(Connection& connection);

// Sends `request` on `connection`, reads its answer (a body of at most
// `body_limit` bytes, within `wait`) and drops it, then closes the
// connection: for a request whose answer does not matter, as a session's DELETE.
[[nodiscard]] boost::asio::awaitable<boost::system::error_code> sendAndDrop(
    Connection& connection, beast::http::request<beast::http::string_body>& request,
    std::size_t body_limit, std::chrono::milliseconds wait);

}  // namespace mcpgate::gateway::remote
