#pragma once

// The managed package cache of npx servers. Installing a server's packages
// needs the network; running it should not. `mcpgate install` runs npx inside
// the server's sandbox with network `host` and fills <cache_dir>/npm/<server>;
// every spawn afterwards sees that folder as npm's cache (an overlay: npm
// writes to its index while reading, the host copy never changes) with npm
// offline, so the server starts under network `none`.

#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "sandbox/spawn.h"

namespace mcpgate::gateway {

// Where the server sees its cache.
inline constexpr std::string_view kNpmCacheInside = "/opt/mcpgate/npm";

// Whether the server's packages come from the cache (its command is npx).
[[nodiscard]] bool usesPackageCache(const config::ServerConfig& server);

// <cache_dir>/npm/<server>: one folder per server, so no server reads what
// another one's install put there.
[[nodiscard]] std::string packageCacheDir(const config::Config& config,
                                          const config::ServerConfig& server);

// The packages npx would install for these args: the --package values, else
// the first word that is not an option. An error when npx's args do not say
// (`-c CMD`, no package at all).
[[nodiscard]] std::expected<std::vector<std::string>, std::string> npxPackages(
    const std::vector<std::string>& args);

// Whether the server can start as far as its packages go: an error naming the
// command to run when it uses the cache and nothing is installed yet.
[[nodiscard]] std::expected<void, std::string> checkPackagesInstalled(
    const config::Config& config, const config::ServerConfig& server);

// Adds the cache to a spawn of the server: the overlay bind and npm's offline
// settings. The error of checkPackagesInstalled when nothing is installed yet.
[[nodiscard]] std::expected<void, std::string> addPackageCache(const config::Config& config,
                                                               const config::ServerConfig& server,
                                                               sandbox::SpawnSpec& spec);

// What `mcpgate install` runs for the server: npx in the server's sandbox with
// the cache writable, installing the packages and running `node -e 0` instead
// of the server. Its network is an allowlist of `registry` (a URL, as `npm
// config get registry` prints it) alone, through the caller's egress proxy.
[[nodiscard]] std::expected<sandbox::SpawnSpec, std::string> installSpec(
    const config::Config& config, const config::ServerConfig& server,
    const std::string& registry = "https://registry.npmjs.org/");

// The allow entry ("host:port") of a registry URL; an error for anything but
// http(s)://host[:port][/path].
[[nodiscard]] std::expected<std::string, std::string> registryAllowEntry(
    const std::string& registry);

}  // namespace mcpgate::gateway
