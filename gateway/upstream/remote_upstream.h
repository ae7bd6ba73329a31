#pragma once

// A remote MCP server over Streamable HTTP, as an Upstream: each message the
// session sends becomes a POST; the messages of each response (JSON, a JSON
// batch, or an SSE stream) come back through on_message in order. TLS with
// certificate and host name verification through OpenSSL. Errors (refused
// connection, TLS failure, HTTP status, malformed body, timeout) reach the
// waiting request as a JSON-RPC error from the gateway.
//
// Beast stays in remote_upstream.cc and remote_connection.cc: it is slow to compile.

#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <expected>
#include <memory>
#include <string>

#include "config/config.h"
#include "gateway/upstream/upstream.h"

namespace mcpgate::gateway {

// Builds the TLS context (CA bundle, client certificate) and returns at once:
// nothing is connected before the first message. `request_timeout` bounds one
// exchange, connect and TLS handshake included.
[[nodiscard]] std::expected<std::shared_ptr<Upstream>, std::string> startRemoteUpstream(
    boost::asio::any_io_executor executor, const config::RemoteConfig& remote,
    std::chrono::milliseconds request_timeout, Upstream::Options options,
    Upstream::Callbacks callbacks);

// The endpoint's URL as the gateway reaches it (scheme, host, port, target):
// the key under which a remote's era is kept.
[[nodiscard]] std::string remoteEndpoint(const config::RemoteConfig& remote);

}  // namespace mcpgate::gateway
