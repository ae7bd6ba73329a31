#pragma once

// Whether a host name or address is loopback: "localhost" in any case, 127.0.0.0/8, ::1.
// The one check behind "listen beyond loopback only with auth" and "plain http only to
// loopback".

#include <string_view>

namespace mcpgate::common {

[[nodiscard]] bool isLoopbackHost(std::string_view host);

}  // namespace mcpgate::common
