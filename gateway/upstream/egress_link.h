#pragma once

// The gateway's side of `network: allowlist`: the proxy settings for one
// session's server (its allow entries, the gateway's own listeners, where
// decisions go), and the Node preload the sandbox is given.

#include <boost/asio/ip/tcp.hpp>
#include <memory>
#include <string>
#include <vector>

#include "egress/proxy.h"
#include "sandbox/policy.h"

namespace mcpgate::gateway {

// The gateway's listening sockets, once bound (the port may be 0 in the
// config): a proxy refuses them unless an entry names the address and port.
void setOwnListeners(const std::vector<boost::asio::ip::tcp::endpoint>& endpoints);

// The ports of those listeners: network: host refuses them on every address
// of this host (sandbox/socket_notify.h).
[[nodiscard]] std::vector<std::uint16_t> ownListenerPorts();

// Settings for the proxy of `server`'s sandbox in `session`: every allowed or
// refused connection is a log line and an audit record ("egress").
[[nodiscard]] std::shared_ptr<const egress::ProxySettings> egressSettings(
    const sandbox::SandboxPolicy& policy, const std::string& server, const std::string& session);

// <exe dir>/../share/mcpgate/egress-node when it holds env-proxy.cjs and its
// undici (built or installed with mcpgate); empty when it does not.
[[nodiscard]] std::string nodeProxyDir();

// Where nodeProxyDir() is bound inside the sandbox.
inline constexpr const char* kNodeProxyInside = "/opt/mcpgate/egress-node";

}  // namespace mcpgate::gateway
