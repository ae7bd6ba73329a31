#include "gateway/upstream/remote_connection.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "config/units.h"

namespace mcpgate::gateway::remote {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace ssl = asio::ssl;
using asio::as_tuple;
using asio::use_awaitable;
using tcp = asio::ip::tcp;

namespace {

std::string opensslError() {
  std::string text;
  while (unsigned long code = ERR_get_error()) {
    char buffer[256];
    ERR_error_string_n(code, buffer, sizeof buffer);
    text = buffer;  // the last one is the outermost
  }
  return text;
}

}  // namespace

std::expected<std::shared_ptr<ssl::context>, std::string> makeTlsContext(
    const config::RemoteConfig& remote) {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_client);
  SSL_CTX* native = context->native_handle();
  ERR_clear_error();
  if (SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION) != 1) {
    return std::unexpected("cannot require TLS 1.2: " + opensslError());
  }
  SSL_CTX_set_verify(native, SSL_VERIFY_PEER, nullptr);
  const int loaded = remote.ca_file.empty()
                         ? SSL_CTX_set_default_verify_paths(native)
                         : SSL_CTX_load_verify_locations(native, remote.ca_file.c_str(), nullptr);
  if (loaded != 1) {
    return std::unexpected(
        "cannot load the CA bundle " +
        (remote.ca_file.empty() ? std::string("of the system") : remote.ca_file) + ": " +
        opensslError());
  }
  if (!remote.cert_file.empty()) {
    if (SSL_CTX_use_certificate_chain_file(native, remote.cert_file.c_str()) != 1) {
      return std::unexpected("cannot load the client certificate " + remote.cert_file + ": " +
                             opensslError());
    }
    if (SSL_CTX_use_PrivateKey_file(native, remote.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
      return std::unexpected("cannot load the client key " + remote.key_file + ": " +
                             opensslError());
    }
    if (SSL_CTX_check_private_key(native) != 1) {
      return std::unexpected("the client key " + remote.key_file +
                             " does not match the certificate " + remote.cert_file);
    }
  }
  return context;
}

asio::awaitable<std::expected<std::unique_ptr<Connection>, Failure>> connect(
    const asio::any_io_executor& executor, const config::RemoteConfig& remote, ssl::context* tls,
    const std::string& what, std::set<Connection*>& active) {
  tcp::resolver resolver(executor);
  const std::string port = std::to_string(remote.port);
  auto [resolve_ec, endpoints] =
      co_await resolver.async_resolve(remote.host, port, as_tuple(use_awaitable));
  if (resolve_ec)
    co_return std::unexpected(Failure{what + ": " + resolve_ec.message(), "upstream_unreachable"});
  auto connection = std::make_unique<Connection>();
  if (tls) {
    connection->tls.emplace(executor, *tls);
  } else {
    connection->plain.emplace(executor);
  }
  beast::tcp_stream& stream = connection->lowest();
  stream.expires_after(remote.connect_timeout);
  active.insert(connection.get());
  auto [connect_ec, endpoint] = co_await stream.async_connect(endpoints, as_tuple(use_awaitable));
  active.erase(connection.get());
  (void)endpoint;
  if (connect_ec) {
    std::string why = connect_ec == beast::error::timeout
                          ? "no connection within " + config::formatDuration(remote.connect_timeout)
                          : connect_ec.message();
    co_return std::unexpected(Failure{what + ": " + why, "upstream_unreachable"});
  }
  if (!connection->tls) co_return std::move(connection);

  SSL* ssl = connection->tls->native_handle();
  boost::system::error_code address_ec;
  const auto address = asio::ip::make_address(remote.host, address_ec);
  // SNI for names only (RFC 6066 forbids addresses); the certificate must
  // name the host either way.
  const bool name_set =
      address_ec ? SSL_set_tlsext_host_name(ssl, remote.host.c_str()) == 1 &&
                       SSL_set1_host(ssl, remote.host.c_str()) == 1
                 : X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), remote.host.c_str()) == 1;
  if (!name_set) {
    co_return std::unexpected(
        Failure{what + ": cannot set the TLS host name to check", "upstream_tls_failed"});
  }
  (void)address;
  stream.expires_after(remote.connect_timeout);
  active.insert(connection.get());
  auto [handshake_ec] =
      co_await connection->tls->async_handshake(ssl::stream_base::client, as_tuple(use_awaitable));
  active.erase(connection.get());
  if (handshake_ec) {
    const long verify = SSL_get_verify_result(ssl);
    std::string why;
    if (verify != X509_V_OK) {
      why = "its TLS certificate was not accepted: " +
            std::string(X509_verify_cert_error_string(verify));
    } else if (handshake_ec == beast::error::timeout) {
      why = "no TLS handshake within " + config::formatDuration(remote.connect_timeout);
    } else {
      why = "TLS handshake failed: " + handshake_ec.message();
    }
    co_return std::unexpected(Failure{what + ": " + why, "upstream_tls_failed"});
  }
  co_return std::move(connection);
}

Judged judgeAnswer(int status, std::string_view phrase, std::string_view content_type,
                   const std::string& who, std::size_t max_message_bytes,
                   std::size_t max_error_bytes) {
  if (status >= 200 && status < 300 && status != 200) {
    return {BodyKind::kDrop, std::nullopt, max_error_bytes};  // 202 Accepted, 204: nothing
  }
  if (status != 200) {
    const std::string hint = status == 401 || status == 403 ? " (check the server's headers)" : "";
    return {BodyKind::kDrop,
            Failure{who + " answered HTTP " + std::to_string(status) +
                        (phrase.empty() ? "" : " " + std::string(phrase)) + hint,
                    "upstream_http_error", status},
            max_error_bytes};
  }
  if (content_type.starts_with("text/event-stream")) return {BodyKind::kSse, {}, max_message_bytes};
  if (content_type.starts_with("application/json")) return {BodyKind::kJson, {}, max_message_bytes};
  return {BodyKind::kDrop,
          Failure{who + " answered with content type '" + std::string(content_type.substr(0, 100)) +
                      "', not JSON or an event stream",
                  "upstream_bad_response", status},
          max_error_bytes};
}

void closeConnection(Connection& connection) {
  boost::system::error_code ignored;
  connection.lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
  connection.lowest().close();
}

namespace {

template <class Stream>
asio::awaitable<boost::system::error_code> sendAndDropOn(
    Stream& stream, Connection& connection, beast::http::request<beast::http::string_body>& request,
    std::size_t body_limit) {
  auto [ec, n] = co_await beast::http::async_write(stream, request, as_tuple(use_awaitable));
  (void)n;
  if (ec) co_return ec;
  beast::http::response_parser<beast::http::string_body> parser;
  parser.body_limit(body_limit);
  auto [read_ec, read_n] = co_await beast::http::async_read(stream, connection.buffer, parser,
                                                            as_tuple(use_awaitable));
  (void)read_n;
  co_return read_ec;
}

}  // namespace

asio::awaitable<boost::system::error_code> sendAndDrop(
    Connection& connection, beast::http::request<beast::http::string_body>& request,
    std::size_t body_limit, std::chrono::milliseconds wait) {
  connection.lowest().expires_after(wait);
  boost::system::error_code ec;
  if (connection.tls) {
    ec = co_await sendAndDropOn(*connection.tls, connection, request, body_limit);
  } else {
    ec = co_await sendAndDropOn(*connection.plain, connection, request, body_limit);
  }
  closeConnection(connection);
  co_return ec;
}

}  // namespace mcpgate::gateway::remote
