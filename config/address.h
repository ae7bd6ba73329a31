#pragma once

// The `listen:` address: HOST:PORT with IPv6 hosts in brackets ("[::1]:8080").

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

namespace mcpgate::config {

struct HostPort {
  std::string host;  // IPv4 address, host name, or IPv6 address without brackets
  std::uint16_t port = 0;
};

// Port 0 is accepted: tests bind an ephemeral port. The error is a phrase that
// follows the offending value ("'localhost' has no port (...)").
[[nodiscard]] std::expected<HostPort, std::string> parseHostPort(std::string_view text);

// The inverse of parseHostPort: brackets IPv6 hosts again.
[[nodiscard]] std::string formatHostPort(std::string_view host, std::uint16_t port);

}  // namespace mcpgate::config
