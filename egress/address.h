#pragma once

// IP addresses as the egress decision sees them: one 16-byte form for both
// families (IPv4 as ::ffff:a.b.c.d), classified by what they reach. One home
// for "is this address loopback / private / metadata".

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct sockaddr;

namespace mcpgate::egress {

struct IpAddress {
  std::array<std::uint8_t, 16> bytes{};  // IPv4 in the IPv4-mapped form
  [[nodiscard]] bool isV4() const;
  friend bool operator==(const IpAddress&, const IpAddress&) = default;
};

// "192.0.2.1", "2001:db8::1", "::ffff:192.0.2.1" (brackets not accepted here).
[[nodiscard]] std::optional<IpAddress> parseIp(std::string_view text);
[[nodiscard]] std::optional<IpAddress> fromSockaddr(const sockaddr* address);
// Dotted quad for IPv4 (mapped forms included), RFC 5952 text for IPv6.
[[nodiscard]] std::string formatIp(const IpAddress& address);
// Every address of this host's interfaces (getifaddrs): a wildcard listener
// is reached through each. Empty when the list cannot be read.
[[nodiscard]] std::vector<IpAddress> hostAddresses();
// A port number 1-65535 written in decimal and nothing else; nullopt otherwise.
[[nodiscard]] std::optional<std::uint16_t> parsePort(std::string_view text);

// True when `address` lies in `network`/`prefix` (prefix counted on the
// 128-bit form: an IPv4 /24 is prefix 120).
[[nodiscard]] bool contains(const IpAddress& network, unsigned prefix, const IpAddress& address);

enum class AddressClass {
  kPublic,
  kMetadata,   // cloud instance metadata (169.254.169.254, fd00:ec2::254, 100.100.100.200, ...)
  kLinkLocal,  // 169.254.0.0/16, fe80::/10
  kLoopback,   // 127.0.0.0/8, ::1, and the unspecified addresses, which reach this host
  kPrivate,    // RFC 1918, CGNAT 100.64.0.0/10, ULA fc00::/7, site-local fec0::/10
  kReserved,   // documentation, benchmarking, multicast, broadcast, 240/4, ...
};

// What `address` reaches. IPv6 forms that carry an IPv4 address (mapped
// ::ffff:0:0/96, compatible ::/96, NAT64 64:ff9b::/96, 6to4 2002::/16) are
// classified by the IPv4 address inside when that is not public.
[[nodiscard]] AddressClass classify(const IpAddress& address);
[[nodiscard]] std::string_view className(AddressClass c);

}  // namespace mcpgate::egress
