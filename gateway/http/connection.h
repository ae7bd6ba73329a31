#pragma once

// One accepted client connection, served until it closes. The transport is
// the only Beast code, and Beast is slow to compile: the plain and the TLS
// connection are compiled in files of their own (connection_plain.cc,
// connection_tls.cc) from the template in connection_impl.h, and this header,
// which the acceptor includes, has no Beast.

#include <boost/asio/ip/tcp.hpp>
#include <memory>

#include "gateway/guard/generation.h"
#include "gateway/session/sessions.h"

namespace boost::asio::ssl {
class context;
}  // namespace boost::asio::ssl

namespace mcpgate::gateway {

// Plain HTTP, on the socket's executor.
// `slot` is held as long as the connection lives (AcceptGuard::claim).
void serveConnection(boost::asio::ip::tcp::socket socket,
                     std::shared_ptr<const CurrentGeneration> current, SessionTable& sessions,
                     std::shared_ptr<void> slot = {});

// HTTPS: the TLS handshake with `tls`, which outlives the connection, then HTTP.
void serveTlsConnection(boost::asio::ip::tcp::socket socket, boost::asio::ssl::context& tls,
                        std::shared_ptr<const CurrentGeneration> current, SessionTable& sessions,
                        std::shared_ptr<void> slot = {});

}  // namespace mcpgate::gateway
