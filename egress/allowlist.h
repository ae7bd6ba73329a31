#pragma once

// The egress allowlist and its decision: pure functions over names and
// resolved addresses, so every refusal can be tested without a packet.
//
// Entries: "api.example.com", "*.example.com" (any subdomain, not the apex),
// "203.0.113.7", "10.1.0.0/16", "[2001:db8::1]", "[2001:db8::/32]", each
// optionally followed by ":PORT" or ":FIRST-LAST" (without it: any port).

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "egress/address.h"

namespace mcpgate::egress {

struct PortRange {
  std::uint16_t first = 1;
  std::uint16_t last = 65535;
};

struct AllowEntry {
  enum class Kind { kHost, kWildcard, kNetwork };
  Kind kind = Kind::kHost;
  std::string text;     // as written, for logs
  std::string host;     // kHost: the name; kWildcard: the suffix with its dot (".example.com")
  IpAddress network;    // kNetwork
  unsigned prefix = 0;  // kNetwork, on the 128-bit form (IPv4 /24 -> 120)
  std::optional<PortRange> ports;  // none: any port
  // One address (/32, /128): the only form that can open a metadata address or
  // one of the gateway's own listeners.
  [[nodiscard]] bool singleAddress() const { return kind == Kind::kNetwork && prefix == 128; }
};

[[nodiscard]] std::expected<AllowEntry, std::string> parseAllowEntry(std::string_view text);

// Host names compare case-insensitively without a trailing dot.
[[nodiscard]] std::string normalizeHost(std::string_view host);

// The gateway's own listening sockets. A wildcard listener (0.0.0.0, ::) is
// reached through loopback and through every address of the host, which the
// caller lists in `local_addresses`.
struct OwnEndpoints {
  struct Endpoint {
    IpAddress address;
    std::uint16_t port = 0;
    bool any_address = false;
  };
  std::vector<Endpoint> listeners;
  std::vector<IpAddress> local_addresses;
  [[nodiscard]] bool reaches(const IpAddress& address, std::uint16_t port) const;
};

struct Decision {
  bool allowed = false;
  AddressClass address_class = AddressClass::kPublic;
  std::string entry;   // the entry that allowed it
  std::string reason;  // why it was refused, for the log and the client
};

// May `host` (a name, not an address) be resolved at all? Only names an
// entry lists are looked up: the gateway's resolver is not a channel for
// arbitrary names (DNS exfiltration), and a refusal needs no lookup.
[[nodiscard]] bool nameListed(const std::vector<AllowEntry>& entries, std::string_view host,
                              std::uint16_t port);

// The decision on the address actually connected to. `host` is what the
// client asked for (a name or an address literal). Rules, in order:
//  - one of the gateway's own listeners: only an entry naming that single
//    address with an explicit port that covers it;
//  - a metadata address: only an entry naming that single address;
//  - loopback, link-local, private, reserved: only an address or CIDR entry
//    covering it (a listed name resolving there is refused: DNS rebinding);
//  - public: a listed name, or an address or CIDR entry covering it.
[[nodiscard]] Decision decide(const std::vector<AllowEntry>& entries, std::string_view host,
                              const IpAddress& address, std::uint16_t port,
                              const OwnEndpoints& own);

// `network: host`: the decision the sandbox's supervisor makes on every
// connect and addressed send of a host-network server, on the address it
// copied. Everything is allowed except, each opened only as decide() opens it:
//  - the gateway's own listeners (an entry naming the address and the port);
//  - cloud metadata addresses (an entry naming that address);
//  - link-local addresses, 169.254.0.0/16 and fe80::/10 (an address or CIDR
//    entry covering it).
// Loopback, private and public addresses stay open: that is what `host` is for.
// Entries are addresses or CIDRs; a name never matches here.
[[nodiscard]] Decision decideHost(const std::vector<AllowEntry>& entries, const IpAddress& address,
                                  std::uint16_t port, const OwnEndpoints& own);

}  // namespace mcpgate::egress
