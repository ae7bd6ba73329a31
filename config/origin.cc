#include "config/origin.h"

#include <arpa/inet.h>

#include <algorithm>
#include <optional>
#include <string>

#include "common/loopback.h"

namespace mcpgate::config {
namespace {

struct Origin {
  std::string scheme;  // lower case
  std::string host;    // lower case; IPv6 keeps its brackets
  std::string_view port;
};

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string toLower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), lower);
  return out;
}

bool isHostChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

// Splits host [":" port] (of an origin, or a Host header) into `origin`.
bool parseAuthority(std::string_view rest, Origin& origin) {
  std::string_view host;
  if (!rest.empty() && rest.front() == '[') {
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos) return false;
    const std::string inner(rest.substr(1, close - 1));
    in6_addr addr{};
    if (inet_pton(AF_INET6, inner.c_str(), &addr) != 1) return false;
    host = rest.substr(0, close + 1);
    rest = rest.substr(close + 1);
  } else {
    const std::size_t colon = rest.find(':');
    host = rest.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon);
    if (host.empty()) return false;
    for (char c : host) {
      if (!isHostChar(lower(c))) return false;
    }
  }
  origin.host = toLower(host);
  if (!rest.empty()) {
    if (rest.front() != ':') return false;
    origin.port = rest.substr(1);
    if (origin.port.empty() || origin.port.size() > 5) return false;
    unsigned value = 0;
    for (char c : origin.port) {
      if (c < '0' || c > '9') return false;
      value = value * 10 + static_cast<unsigned>(c - '0');
    }
    if (value > 65535) return false;
  }
  return true;
}

// Splits a serialized origin (RFC 6454): scheme "://" host [":" port], nothing
// more. Anything unusual (userinfo, path, empty port) fails rather than being
// guessed at, so a crafted header cannot look like localhost.
std::optional<Origin> parseOrigin(std::string_view text) {
  const std::size_t sep = text.find("://");
  if (sep == std::string_view::npos) return std::nullopt;
  Origin origin;
  origin.scheme = toLower(text.substr(0, sep));
  if (origin.scheme != "http" && origin.scheme != "https") return std::nullopt;
  if (!parseAuthority(text.substr(sep + 3), origin)) return std::nullopt;
  return origin;
}

// The host part of a Host header (lower case; IPv6 keeps its brackets):
// parsed as the host of an origin, so the same strictness applies.
std::optional<std::string> hostOf(std::string_view header) {
  Origin parsed;
  if (!parseAuthority(header, parsed)) return std::nullopt;
  return std::move(parsed.host);
}

}  // namespace

bool isValidHostEntry(std::string_view entry) {
  return entry == "*" ||
         (entry.find(':') == std::string_view::npos
              ? hostOf(entry).has_value()
              : entry.starts_with('[') && entry.ends_with(']') && hostOf(entry).has_value());
}

bool hostAllowed(const Config& config, std::string_view host) {
  const std::optional<std::string> name = hostOf(host);
  if (!name) return false;
  if (config.allowed_hosts.empty()) {
    // Reached by names the gateway cannot know: with auth, or listening
    // beyond loopback (insecure_no_auth), every well-formed host.
    if (config.auth.enabled() || !common::isLoopbackHost(config.listen_host)) return true;
    return common::isLoopbackHost(*name == "[::1]" ? std::string_view("::1") : *name);
  }
  return std::any_of(
      config.allowed_hosts.begin(), config.allowed_hosts.end(),
      [&](const std::string& entry) { return entry == "*" || toLower(entry) == *name; });
}

bool isValidOriginEntry(std::string_view entry) {
  return entry == "*" || parseOrigin(entry).has_value();
}

bool originAllowed(const Config& config, std::string_view origin) {
  if (config.allowed_origins.empty()) {
    const std::optional<Origin> parsed = parseOrigin(origin);
    if (!parsed) return false;
    return parsed->host == "localhost" || parsed->host == "127.0.0.1" || parsed->host == "[::1]";
  }
  const std::string wanted = toLower(origin);
  return std::any_of(
      config.allowed_origins.begin(), config.allowed_origins.end(),
      [&](const std::string& entry) { return entry == "*" || toLower(entry) == wanted; });
}

}  // namespace mcpgate::config
