#pragma once

// Connections to a remote MCP server: the client TLS context (CA bundle,
// client certificate), TCP connect and the TLS handshake with the host name
// checked. Beast is here: only remote_upstream.cc and remote_connection.cc
// include this.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
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

}  // namespace mcpgate::gateway::remote
