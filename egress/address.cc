#include "egress/address.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <charconv>
#include <cstring>

namespace mcpgate::egress {
namespace {

constexpr std::array<std::uint8_t, 12> kMappedPrefix = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

IpAddress v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  IpAddress out;
  std::copy(kMappedPrefix.begin(), kMappedPrefix.end(), out.bytes.begin());
  out.bytes[12] = a;
  out.bytes[13] = b;
  out.bytes[14] = c;
  out.bytes[15] = d;
  return out;
}

IpAddress v6(std::string_view text) { return *parseIp(text); }

struct Range {
  IpAddress network;
  unsigned prefix;  // on the 128-bit form
  AddressClass kind;
};

// Metadata first: its addresses sit inside the link-local and private ranges.
const std::array<Range, 32>& ranges() {
  static const std::array<Range, 32> table = {{
      {v4(169, 254, 169, 254), 128, AddressClass::kMetadata},  // AWS, GCP, Azure, OCI, ...
      {v4(169, 254, 170, 2), 128, AddressClass::kMetadata},    // AWS ECS task metadata
      {v4(169, 254, 169, 123), 128, AddressClass::kMetadata},  // AWS time sync
      {v4(100, 100, 100, 200), 128, AddressClass::kMetadata},  // Alibaba Cloud
      {v4(168, 63, 129, 16), 128, AddressClass::kMetadata},    // Azure WireServer (public range)
      {v4(192, 0, 0, 192), 128, AddressClass::kMetadata},      // Oracle Cloud (classic)
      {v6("fd00:ec2::254"), 128, AddressClass::kMetadata},     // AWS over IPv6
      {v6("fd00:ec2::23"), 128, AddressClass::kMetadata},      // AWS DNS over IPv6
      {v4(0, 0, 0, 0), 104, AddressClass::kLoopback},          // 0.0.0.0/8: "this host"
      {v4(127, 0, 0, 0), 104, AddressClass::kLoopback},
      {v6("::1"), 128, AddressClass::kLoopback},
      {v6("::"), 128, AddressClass::kLoopback},
      {v4(169, 254, 0, 0), 112, AddressClass::kLinkLocal},
      {v6("fe80::"), 10, AddressClass::kLinkLocal},
      {v4(10, 0, 0, 0), 104, AddressClass::kPrivate},
      {v4(172, 16, 0, 0), 108, AddressClass::kPrivate},
      {v4(192, 168, 0, 0), 112, AddressClass::kPrivate},
      {v4(100, 64, 0, 0), 106, AddressClass::kPrivate},  // CGNAT, RFC 6598
      {v6("fc00::"), 7, AddressClass::kPrivate},         // unique local
      {v6("fec0::"), 10, AddressClass::kPrivate},        // site-local (deprecated)
      {v4(192, 0, 0, 0), 120, AddressClass::kReserved},  // IETF protocol assignments
      {v4(192, 0, 2, 0), 120, AddressClass::kReserved},  // documentation
      {v4(198, 51, 100, 0), 120, AddressClass::kReserved},
      {v4(203, 0, 113, 0), 120, AddressClass::kReserved},
      {v4(198, 18, 0, 0), 111, AddressClass::kReserved},   // benchmarking
      {v4(192, 88, 99, 0), 120, AddressClass::kReserved},  // 6to4 relay anycast
      {v4(224, 0, 0, 0), 100, AddressClass::kReserved},    // multicast
      {v4(240, 0, 0, 0), 100, AddressClass::kReserved},    // reserved and broadcast
      {v6("ff00::"), 8, AddressClass::kReserved},          // multicast
      {v6("2001:db8::"), 32, AddressClass::kReserved},     // documentation
      {v6("100::"), 64, AddressClass::kReserved},          // discard
      {v6("2001::"), 23, AddressClass::kReserved},         // IETF protocol assignments (Teredo ...)
  }};
  return table;
}

AddressClass classifyDirect(const IpAddress& address) {
  for (const Range& r : ranges()) {
    if (contains(r.network, r.prefix, address)) return r.kind;
  }
  return AddressClass::kPublic;
}

}  // namespace

bool IpAddress::isV4() const {
  return std::equal(kMappedPrefix.begin(), kMappedPrefix.end(), bytes.begin());
}

std::optional<IpAddress> parseIp(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  const std::string s(text);
  IpAddress out;
  in_addr a4{};
  if (::inet_pton(AF_INET, s.c_str(), &a4) == 1) {
    std::copy(kMappedPrefix.begin(), kMappedPrefix.end(), out.bytes.begin());
    std::memcpy(out.bytes.data() + 12, &a4, 4);
    return out;
  }
  in6_addr a6{};
  if (::inet_pton(AF_INET6, s.c_str(), &a6) == 1) {
    std::memcpy(out.bytes.data(), &a6, 16);
    return out;
  }
  return std::nullopt;
}

std::optional<IpAddress> fromSockaddr(const sockaddr* address) {
  IpAddress out;
  if (address->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(address);
    std::copy(kMappedPrefix.begin(), kMappedPrefix.end(), out.bytes.begin());
    std::memcpy(out.bytes.data() + 12, &in->sin_addr, 4);
    return out;
  }
  if (address->sa_family == AF_INET6) {
    const auto* in = reinterpret_cast<const sockaddr_in6*>(address);
    std::memcpy(out.bytes.data(), &in->sin6_addr, 16);
    return out;
  }
  return std::nullopt;
}

std::string formatIp(const IpAddress& address) {
  char text[INET6_ADDRSTRLEN] = {};
  if (address.isV4()) {
    ::inet_ntop(AF_INET, address.bytes.data() + 12, text, sizeof text);
  } else {
    ::inet_ntop(AF_INET6, address.bytes.data(), text, sizeof text);
  }
  return text;
}

bool contains(const IpAddress& network, unsigned prefix, const IpAddress& address) {
  prefix = std::min(prefix, 128u);
  const unsigned whole = prefix / 8, rest = prefix % 8;
  if (!std::equal(network.bytes.begin(), network.bytes.begin() + whole, address.bytes.begin())) {
    return false;
  }
  if (rest == 0) return true;
  const auto mask = static_cast<std::uint8_t>(0xff << (8 - rest));
  return (network.bytes[whole] & mask) == (address.bytes[whole] & mask);
}

AddressClass classify(const IpAddress& address) {
  const AddressClass direct = classifyDirect(address);
  if (direct != AddressClass::kPublic) return direct;
  // IPv6 forms with an IPv4 address inside: judged by that address.
  std::optional<IpAddress> inner;
  const auto& b = address.bytes;
  const bool compatible =
      std::all_of(b.begin(), b.begin() + 12, [](std::uint8_t x) { return x == 0; });
  static const IpAddress kNat64 = v6("64:ff9b::");
  static const IpAddress kNat64Local = v6("64:ff9b:1::");
  static const IpAddress k6to4 = v6("2002::");
  if (compatible || contains(kNat64, 96, address)) {
    inner = v4(b[12], b[13], b[14], b[15]);
  } else if (contains(kNat64Local, 48, address)) {
    return AddressClass::kPrivate;  // RFC 8215 local-use translation
  } else if (contains(k6to4, 16, address)) {
    inner = v4(b[2], b[3], b[4], b[5]);
  }
  if (inner) {
    const AddressClass c = classifyDirect(*inner);
    if (c != AddressClass::kPublic) return c;
  }
  return AddressClass::kPublic;
}

std::string_view className(AddressClass c) {
  switch (c) {
    case AddressClass::kPublic:
      return "public";
    case AddressClass::kMetadata:
      return "cloud metadata";
    case AddressClass::kLinkLocal:
      return "link-local";
    case AddressClass::kLoopback:
      return "loopback";
    case AddressClass::kPrivate:
      return "private";
    case AddressClass::kReserved:
      return "reserved";
  }
  return "unknown";
}

std::optional<std::uint16_t> parsePort(std::string_view text) {
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value == 0 || value > 65535) {
    return std::nullopt;
  }
  return static_cast<std::uint16_t>(value);
}

std::vector<IpAddress> hostAddresses() {
  std::vector<IpAddress> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr) continue;
    if (auto ip = fromSockaddr(a->ifa_addr)) out.push_back(*ip);
  }
  ::freeifaddrs(list);
  return out;
}

}  // namespace mcpgate::egress
