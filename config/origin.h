#pragma once

// Which browser Origins may call the gateway: the defence against DNS
// rebinding, where a web page on another site reaches a server on localhost.

#include <string_view>

#include "config/config.h"

namespace mcpgate::config {

// With `allowed_origins` unset (empty), only http and https on localhost,
// 127.0.0.1 and [::1] are allowed, on any port. Otherwise the origin must equal
// an entry, ignoring ASCII case; an entry "*" allows every origin. A request
// without an Origin header is not from a browser: the caller does not ask.
[[nodiscard]] bool originAllowed(const Config& config, std::string_view origin);

// What an `allowed_origins` entry may be: "*", or SCHEME://HOST[:PORT] with
// scheme http or https and nothing after the port (an Origin has no path).
[[nodiscard]] bool isValidOriginEntry(std::string_view entry);

// The Host header against `allowed_hosts` (its host part, ignoring case and
// the port; "*" allows every host). Unset: on a loopback listener without
// auth only loopback names (localhost, 127.0.0.0/8, [::1]), so a DNS-rebinding
// page cannot read the gateway through a name of its own; with auth (or a
// listener beyond loopback) any well-formed host. A
// malformed Host (userinfo, a path, odd characters) is never allowed.
[[nodiscard]] bool hostAllowed(const Config& config, std::string_view host);
[[nodiscard]] bool isValidHostEntry(std::string_view entry);

}  // namespace mcpgate::config
