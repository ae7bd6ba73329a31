#include "config/address.h"

#include <arpa/inet.h>

#include <cstddef>
#include <utility>

namespace mcpgate::config {
namespace {

constexpr std::string_view kForm = "(use HOST:PORT, e.g. 127.0.0.1:8080 or [::1]:8080)";

bool isIpv4(const std::string& host) {
  in_addr addr{};
  return inet_pton(AF_INET, host.c_str(), &addr) == 1;
}

bool isIpv6(const std::string& host) {
  in6_addr addr{};
  return inet_pton(AF_INET6, host.c_str(), &addr) == 1;
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

bool isAlnum(char c) { return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// RFC 1123 host name. A name whose last label is all digits is a mistyped IPv4
// address ("127.1", "300.0.0.1"), not a name a resolver should be asked about.
bool isHostName(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  bool last_label_numeric = true;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find('.', start);
    if (end == std::string_view::npos) end = name.size();
    const std::string_view label = name.substr(start, end - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
      return false;
    }
    last_label_numeric = true;
    for (char c : label) {
      if (!isAlnum(c) && c != '-') return false;
      if (!isDigit(c)) last_label_numeric = false;
    }
    start = end + 1;
  }
  return !last_label_numeric;
}

}  // namespace

std::expected<HostPort, std::string> parseHostPort(std::string_view text) {
  std::string host;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos) {
      return std::unexpected("has an unclosed '[' " + std::string(kForm));
    }
    host = std::string(text.substr(1, close - 1));
    const std::string_view rest = text.substr(close + 1);
    if (rest.empty() || rest.front() != ':') {
      return std::unexpected("has no port " + std::string(kForm));
    }
    port = rest.substr(1);
    if (!isIpv6(host)) {
      return std::unexpected("has an invalid IPv6 address '" + host + "' " + std::string(kForm));
    }
  } else {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) {
      return std::unexpected("has no port " + std::string(kForm));
    }
    host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
    if (host.find(':') != std::string::npos) {
      return std::unexpected("needs brackets around the IPv6 address " + std::string(kForm));
    }
    if (!isIpv4(host) && !isHostName(host)) {
      return std::unexpected("has an invalid host '" + host + "' " + std::string(kForm));
    }
  }
  if (port.empty()) return std::unexpected("has no port " + std::string(kForm));
  unsigned value = 0;
  for (char c : port) {
    if (!isDigit(c) || port.size() > 5) {
      return std::unexpected("has an invalid port '" + std::string(port) +
                             "' (must be a number from 0 to 65535)");
    }
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value > 65535) {
    return std::unexpected("has an invalid port '" + std::string(port) +
                           "' (must be a number from 0 to 65535)");
  }
  return HostPort{std::move(host), static_cast<std::uint16_t>(value)};
}

std::string formatHostPort(std::string_view host, std::uint16_t port) {
  const bool ipv6 = host.find(':') != std::string_view::npos;
  std::string out = ipv6 ? "[" + std::string(host) + "]" : std::string(host);
  return out + ":" + std::to_string(port);
}

}  // namespace mcpgate::config
