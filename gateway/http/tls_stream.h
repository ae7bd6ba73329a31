#pragma once

// The TLS stream of the transport; only the connection_tls*.cc files include it.

#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl.hpp>

namespace mcpgate::gateway::transport {

using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

}  // namespace mcpgate::gateway::transport
