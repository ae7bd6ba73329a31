#include "egress/allowlist.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "egress/address.h"

namespace mcpgate::egress {
namespace {

bool portIn(const std::optional<PortRange>& ports, std::uint16_t port) {
  return !ports || (port >= ports->first && port <= ports->last);
}

std::expected<PortRange, std::string> parsePorts(std::string_view text) {
  const std::size_t dash = text.find('-');
  auto first = parsePort(text.substr(0, dash));
  auto last = dash == std::string_view::npos ? first : parsePort(text.substr(dash + 1));
  if (!first || !last || *last < *first) {
    return std::unexpected("'" + std::string(text) +
                           "' is not a port or a port range (1-65535, e.g. 443 or 8000-8100)");
  }
  return PortRange{*first, *last};
}

bool validHostName(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  std::size_t label = 0;
  for (char c : host) {
    if (c == '.') {
      if (label == 0) return false;
      label = 0;
      continue;
    }
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    if (!ok || ++label > 63) return false;
  }
  return label != 0;
}

bool hasHostBits(const IpAddress& network, unsigned prefix) {
  for (unsigned i = 0; i < 16; ++i) {
    const unsigned bit = i * 8;
    const unsigned keep = prefix > bit ? std::min(8u, prefix - bit) : 0;
    if ((network.bytes[i] & ~(0xff00u >> keep) & 0xffu) != 0) return true;
  }
  return false;
}

bool matchesName(const AllowEntry& e, const std::string& host) {
  if (e.kind == AllowEntry::Kind::kHost) return host == e.host;
  if (e.kind == AllowEntry::Kind::kWildcard) {
    return host.size() > e.host.size() && host.ends_with(e.host);
  }
  return false;
}

bool covers(const AllowEntry& e, const IpAddress& address) {
  return e.kind == AllowEntry::Kind::kNetwork && contains(e.network, e.prefix, address);
}

}  // namespace

std::string normalizeHost(std::string_view host) {
  std::string out(host);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (!out.empty() && out.back() == '.') out.pop_back();
  return out;
}

std::expected<AllowEntry, std::string> parseAllowEntry(std::string_view text) {
  AllowEntry entry;
  entry.text = std::string(text);
  std::string_view target = text;
  std::string_view ports;
  if (text.starts_with('[')) {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos) return std::unexpected(std::string("missing ']'"));
    target = text.substr(1, close - 1);
    const std::string_view after = text.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return std::unexpected(std::string("expected ':PORT' after ']'"));
      ports = after.substr(1);
      if (ports.empty()) return std::unexpected(std::string("empty port after ':'"));
    }
  } else if (std::count(text.begin(), text.end(), ':') == 1) {
    const std::size_t colon = text.find(':');
    target = text.substr(0, colon);
    ports = text.substr(colon + 1);
    if (ports.empty()) return std::unexpected(std::string("empty port after ':'"));
  }
  if (!ports.empty()) {
    auto range = parsePorts(ports);
    if (!range) return std::unexpected(range.error());
    entry.ports = *range;
  }
  if (target.empty()) return std::unexpected(std::string("empty entry"));
  const std::size_t slash = target.find('/');
  const std::string_view ip_text = target.substr(0, slash);
  if (auto ip = parseIp(ip_text)) {
    entry.kind = AllowEntry::Kind::kNetwork;
    entry.network = *ip;
    const unsigned offset = ip->isV4() ? 96 : 0;
    entry.prefix = 128;
    if (slash != std::string_view::npos) {
      unsigned bits = 0;
      const std::string_view p = target.substr(slash + 1);
      const auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), bits);
      if (p.empty() || ec != std::errc() || end != p.data() + p.size() || bits > 128 - offset) {
        return std::unexpected("'/" + std::string(p) + "' is not a prefix length for " +
                               std::string(ip_text));
      }
      entry.prefix = offset + bits;
      if (hasHostBits(entry.network, entry.prefix)) {
        return std::unexpected("'" + std::string(target) +
                               "' has host bits set: write the network address");
      }
    }
    return entry;
  }
  if (slash != std::string_view::npos) {
    return std::unexpected("'" + std::string(target) + "' is not an address/prefix");
  }
  std::string host = normalizeHost(target);
  if (host.starts_with("*.")) {
    entry.kind = AllowEntry::Kind::kWildcard;
    host.erase(0, 1);
    if (!validHostName(host.substr(1))) {
      return std::unexpected("'" + std::string(target) + "' is not a host name pattern");
    }
  } else if (!validHostName(host)) {
    return std::unexpected("'" + std::string(target) +
                           "' is not a host name, an IP address or a CIDR (wildcards only as a "
                           "leading '*.')");
  }
  entry.host = std::move(host);
  return entry;
}

bool OwnEndpoints::reaches(const IpAddress& address, std::uint16_t port) const {
  for (const Endpoint& l : listeners) {
    if (l.port != port) continue;
    if (!l.any_address && l.address == address) return true;
    if (l.any_address) {
      if (classify(address) == AddressClass::kLoopback) return true;
      if (std::ranges::find(local_addresses, address) != local_addresses.end()) return true;
    }
  }
  return false;
}

bool nameListed(const std::vector<AllowEntry>& entries, std::string_view host, std::uint16_t port) {
  const std::string name = normalizeHost(host);
  return std::ranges::any_of(
      entries, [&](const AllowEntry& e) { return matchesName(e, name) && portIn(e.ports, port); });
}

Decision decide(const std::vector<AllowEntry>& entries, std::string_view host,
                const IpAddress& address, std::uint16_t port, const OwnEndpoints& own) {
  Decision d;
  d.address_class = classify(address);
  const std::string where = formatIp(address) + " port " + std::to_string(port);
  auto allow = [&](const AllowEntry& e) {
    d.allowed = true;
    d.entry = e.text;
    return d;
  };
  auto refuse = [&](std::string reason) {
    d.reason = std::move(reason);
    return d;
  };
  if (own.reaches(address, port)) {
    for (const AllowEntry& e : entries) {
      if (e.singleAddress() && e.network == address && e.ports && portIn(e.ports, port)) {
        return allow(e);
      }
    }
    return refuse(where +
                  " is one of the gateway's own listeners; only an entry naming that "
                  "address and port opens it");
  }
  if (d.address_class == AddressClass::kMetadata) {
    for (const AllowEntry& e : entries) {
      if (e.singleAddress() && e.network == address && portIn(e.ports, port)) return allow(e);
    }
    return refuse(where +
                  " is a cloud metadata address; only an entry naming that address "
                  "opens it");
  }
  for (const AllowEntry& e : entries) {
    if (covers(e, address) && portIn(e.ports, port)) return allow(e);
  }
  if (d.address_class != AddressClass::kPublic) {
    return refuse(where + " is a " + std::string(className(d.address_class)) +
                  " address; only an address or CIDR entry covering it opens it" +
                  (parseIp(host) ? "" : " (the name '" + std::string(host) + "' resolved there)"));
  }
  const std::string name = normalizeHost(host);
  if (!parseIp(host)) {
    for (const AllowEntry& e : entries) {
      if (matchesName(e, name) && portIn(e.ports, port)) return allow(e);
    }
  }
  return refuse(std::string(host) + " port " + std::to_string(port) + " (" + formatIp(address) +
                ") matches no allow entry");
}

Decision decideHost(const std::vector<AllowEntry>& entries, const IpAddress& address,
                    std::uint16_t port, const OwnEndpoints& own) {
  const AddressClass c = classify(address);
  if (own.reaches(address, port) || c == AddressClass::kMetadata || c == AddressClass::kLinkLocal) {
    // The address as the host: decide() then matches no name entry.
    return decide(entries, formatIp(address), address, port, own);
  }
  Decision d;
  d.allowed = true;
  d.address_class = c;
  d.entry = "network: host";
  return d;
}

}  // namespace mcpgate::egress
