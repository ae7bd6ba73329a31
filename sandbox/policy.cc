#include "sandbox/policy.h"

#include <charconv>
#include <limits>

#include "egress/allowlist.h"

namespace mcpgate::sandbox {

std::expected<std::uint64_t, Error> parseSize(std::string_view text) {
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end == text.data()) {
    return std::unexpected(
        Error{"invalid size '" + std::string(text) +
              "': expected a number with an optional unit (k, M, G, KiB, MiB, GiB)"});
  }
  std::string_view unit(end, text.data() + text.size() - end);
  std::uint64_t scale = 1;
  if (unit.empty() || unit == "B") {
    scale = 1;
  } else if (unit == "k" || unit == "K" || unit == "KiB" || unit == "KB") {
    scale = 1ULL << 10;
  } else if (unit == "M" || unit == "MiB" || unit == "MB") {
    scale = 1ULL << 20;
  } else if (unit == "G" || unit == "GiB" || unit == "GB") {
    scale = 1ULL << 30;
  } else {
    return std::unexpected(
        Error{"invalid size unit in '" + std::string(text) + "': use k, M, G, KiB, MiB or GiB"});
  }
  if (value > std::numeric_limits<std::uint64_t>::max() / scale) {
    return std::unexpected(Error{"size too large: " + std::string(text)});
  }
  return value * scale;
}

std::expected<std::uint64_t, Error> parseCores(std::string_view text) {
  double cores = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), cores,
                                   std::chars_format::fixed);
  // Below a thousandth of a core the kernel's minimum quota (1 ms per period) is not met.
  if (ec != std::errc{} || end != text.data() + text.size() || cores < 0 || cores > 4096 ||
      (cores != 0 && cores < 0.001)) {
    return std::unexpected(Error{"invalid number of cores '" + std::string(text) +
                                 "': expected a decimal such as 1.5 or 0.25 (0: no limit)"});
  }
  return static_cast<std::uint64_t>(cores * 1000 + 0.5);
}

std::string_view networkName(NetworkMode mode) {
  switch (mode) {
    case NetworkMode::kHost:
      return "host";
    case NetworkMode::kAllowlist:
      return "allowlist";
    case NetworkMode::kNone:
      break;
  }
  return "none";
}

std::optional<NetworkMode> parseNetworkMode(std::string_view text) {
  if (text == "none") return NetworkMode::kNone;
  if (text == "host") return NetworkMode::kHost;
  if (text == "allowlist") return NetworkMode::kAllowlist;
  return std::nullopt;
}

std::expected<void, Error> validatePolicy(const SandboxPolicy& policy) {
  for (const auto& bind : policy.binds) {
    if (bind.src.empty() || bind.src[0] != '/') {
      return std::unexpected(Error{"bind source must be an absolute path: '" + bind.src + "'"});
    }
    if (bind.dst.empty() || bind.dst[0] != '/' || bind.dst == "/") {
      return std::unexpected(
          Error{"bind destination must be an absolute path other than /: '" + bind.dst + "'"});
    }
    if (bind.dst.find("/../") != std::string::npos || bind.dst.ends_with("/..")) {
      return std::unexpected(Error{"bind destination must not contain '..': '" + bind.dst + "'"});
    }
  }
  for (const auto& [key, value] : policy.env) {
    if (key.empty() || key.find('=') != std::string::npos || key.find('\0') != std::string::npos) {
      return std::unexpected(Error{"invalid environment variable name: '" + key + "'"});
    }
  }
  if (policy.hostname.size() > 64) {
    return std::unexpected(Error{"hostname longer than 64 characters: '" + policy.hostname + "'"});
  }
  if (policy.network == NetworkMode::kAllowlist && policy.allow.empty()) {
    return std::unexpected(Error{
        "network: allowlist needs allow: entries (host names, *.domains, addresses or CIDRs, "
        "each with an optional :port); with none, use network: none"});
  }
  if (policy.network == NetworkMode::kNone && !policy.allow.empty()) {
    return std::unexpected(
        Error{"allow: entries apply only with network: allowlist (the proxy enforces them) or host "
              "(addresses the host block opens)"});
  }
  if (policy.network == NetworkMode::kHost && !policy.allow.empty() && !policy.host_block) {
    return std::unexpected(
        Error{"allow: entries open addresses the host block refuses: host_block: false has none"});
  }
  if (policy.network == NetworkMode::kHost) {
    for (const std::string& text : policy.allow) {
      auto entry = egress::parseAllowEntry(text);
      if (!entry) return std::unexpected(Error{"allow: " + entry.error()});
      if (entry->kind != egress::AllowEntry::Kind::kNetwork) {
        return std::unexpected(Error{"allow: '" + text +
                                     "' is a name; with network: host the block decides on the "
                                     "address connected to: write an address or a CIDR"});
      }
    }
  }
  if (policy.limits.tmpfs_bytes != 0 && policy.limits.tmpfs_bytes < 4096) {
    return std::unexpected(Error{"tmpfs size must be at least 4KiB"});
  }
  return {};
}

}  // namespace mcpgate::sandbox
