#include "gateway/upstream/spawn_spec.h"

#include <algorithm>

#include "gateway/upstream/egress_link.h"
#include "gateway/upstream/package_cache.h"

namespace mcpgate::gateway {

std::expected<sandbox::SpawnSpec, std::string> spawnSpecFor(const config::Config& config,
                                                            const config::ServerConfig& server) {
  if (server.remote) {
    return std::unexpected("it is a remote server (url:), not a command the gateway starts");
  }
  std::string cwd;
  for (const sandbox::Bind& bind : server.sandbox.binds) {
    if (server.cwd == bind.dst || server.cwd.starts_with(bind.dst + "/")) cwd = server.cwd;
  }
  sandbox::SpawnSpec spec{server.name, server.command, server.args, server.env, cwd};
  spec.sandbox = server.sandbox;
  // One JSON line of enforced and degraded layers per spawn, for the log, on a
  // channel of its own: nothing the server prints can pass for it.
  spec.sandbox->report = true;
  spec.report_channel = true;
  if (spec.sandbox->network == sandbox::NetworkMode::kAllowlist) {
    // Node 20's fetch ignores the proxy variables unless this preload says so.
    if (const std::string dir = nodeProxyDir(); !dir.empty()) {
      spec.sandbox->binds.push_back({dir, kNodeProxyInside, true});
      spec.sandbox->node_proxy_preload = std::string(kNodeProxyInside) + "/env-proxy.cjs";
    }
  }
  if (spec.sandbox->network == sandbox::NetworkMode::kHost) {
    // The ports this gateway bound (--listen, port 0) beside the configured one.
    for (std::uint16_t port : ownListenerPorts()) {
      if (std::ranges::find(spec.sandbox->own_ports, port) == spec.sandbox->own_ports.end())
        spec.sandbox->own_ports.push_back(port);
    }
  }
  if (auto cached = addPackageCache(config, server, spec); !cached) {
    return std::unexpected(cached.error());
  }
  return spec;
}

}  // namespace mcpgate::gateway
