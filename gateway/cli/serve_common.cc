#include "gateway/cli/serve_common.h"

#include <algorithm>
#include <iostream>

#include "common/loopback.h"
#include "gateway/observe/log.h"
#include "gateway/upstream/package_cache.h"
#include "gateway/upstream/upstream.h"
#include "sandbox/probe.h"

namespace mcpgate::gateway {

std::expected<std::shared_ptr<const config::Config>, std::string> loadForServing(
    const std::string& path, config::LoadOptions options) {
  auto config = config::loadConfig(path, options);
  if (!config) {
    std::cerr << config.error().message << "\n";
    return std::unexpected(config.error().message);
  }
  (void)log::setLevel((*config)->log_level);
  announceServers(**config);
  return *config;
}

void announceServers(const config::Config& config) {
  // Not an error: install may run after the config is written. Said once here
  // rather than only to the first client that asks for the server.
  for (const auto& [name, server] : config.servers) {
    if (auto installed = checkPackagesInstalled(config, server); !installed) {
      log::warn("server cannot start yet", {{"server", name}, {"reason", installed.error()}});
    }
  }
  // With a spawner, what the sandbox can enforce is the spawner's to say (it
  // does at startup): this process's lack of privilege is not the servers'.
  if (!startsServersThroughSpawner()) warnAboutUnenforceableLayers(config);
}

// Said once at startup, so an operator learns before the first client does
// that spawns will be refused (or run with less) on this host.
void warnAboutUnenforceableLayers(const config::Config& config) {
  const bool refusing = std::ranges::any_of(config.servers, [](const auto& named) {
    return named.second.sandbox.on_unavailable == sandbox::OnUnavailable::kFail;
  });
  for (const sandbox::LayerStatus& layer : sandbox::probeHost()) {
    if (layer.available) continue;
    log::write(refusing ? log::Level::kError : log::Level::kWarn,
               refusing ? "sandbox layer cannot be enforced on this host: servers with "
                          "on_unavailable: fail that need it will be refused"
                        : "sandbox layer cannot be enforced on this host: servers run without it",
               {{"layer", layer.layer}, {"why", layer.detail}});
  }
}

std::expected<void, std::string> checkListenerAuth(const std::string& host,
                                                   const config::Config& config) {
  if (common::isLoopbackHost(host) || config.auth.enabled() || config.insecure_no_auth) return {};
  return std::unexpected(
      "refusing to listen on " + host +
      ": without authentication (auth.tokens or auth.jwt) the gateway listens on loopback only "
      "(127.0.0.1, ::1 or localhost); set insecure_no_auth: true to serve anyone who can reach "
      "the port");
}

}  // namespace mcpgate::gateway
