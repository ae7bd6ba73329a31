#include "gateway/http/http_server.h"

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <optional>

#include "gateway/http/accept_guard.h"
#include "gateway/http/connection.h"
#include "gateway/observe/log.h"

namespace mcpgate::gateway {

namespace asio = boost::asio;
using asio::as_tuple;
using asio::awaitable;
using asio::use_awaitable;
using asio::ip::tcp;

namespace {
constexpr auto kMinAcceptBackoff = std::chrono::milliseconds(10);
constexpr auto kMaxAcceptBackoff = std::chrono::milliseconds(1000);
}  // namespace

struct HttpServer::Impl {
  IoPool& pool;
  std::shared_ptr<const CurrentGeneration> current;
  SessionTable& sessions;
  tcp::acceptor acceptor{pool.main()};
  // Built once at listen: a reload does not change the certificate.
  std::optional<asio::ssl::context> tls;

  AcceptGuard guard;

  awaitable<void> acceptLoop() {
    std::chrono::milliseconds backoff = kMinAcceptBackoff;
    for (;;) {
      auto [ec, socket] =
          co_await acceptor.async_accept(asio::make_strand(pool.next()), as_tuple(use_awaitable));
      if (ec) {
        if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
        // Out of descriptors (or memory): shed one pending connection through
        // the reserve descriptor, and wait before trying again rather than spin.
        const bool out_of_fds = ec == asio::error::no_descriptors || ec.value() == ENFILE;
        const bool shed = out_of_fds && guard.shedOne(acceptor.native_handle());
        static log::Limiter limiter;
        limiter.warn("accept failed; backing off",
                     {{"error", ec.message()}, {"backoff_ms", backoff.count()}, {"shed", shed}});
        asio::steady_timer wait(pool.main());
        wait.expires_after(backoff);
        co_await wait.async_wait(as_tuple(use_awaitable));
        backoff = std::min(backoff * 2, kMaxAcceptBackoff);
        continue;
      }
      backoff = kMinAcceptBackoff;
      // One address may hold its share of the connections only.
      const std::uint32_t cap = current->get()->config->limits.max_connections_per_address;
      auto remote = socket.remote_endpoint(ec);
      std::shared_ptr<void> slot = ec ? nullptr : guard.claim(remote.address().to_string(), cap);
      if (!slot) {
        if (!ec) {
          static log::Limiter limiter;
          limiter.warn("connection refused: too many from one address",
                       {{"address", remote.address().to_string()}, {"limit", cap}});
          AcceptGuard::refuseOverShare(socket.native_handle(), cap);
        }
        socket.close(ec);
        continue;
      }
      socket.set_option(tcp::no_delay(true), ec);
      if (tls) {
        serveTlsConnection(std::move(socket), *tls, current, sessions, std::move(slot));
      } else {
        serveConnection(std::move(socket), current, sessions, std::move(slot));
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
  boost::system::error_code ec;
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
  boost::system::error_code ec;
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
    boost::system::error_code ignored;
    impl->acceptor.close(ignored);
  });
}

}  // namespace mcpgate::gateway
