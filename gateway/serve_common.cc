#include "gateway/serve_common.h"

#include <boost/asio/ip/address.hpp>
#include <iostream>

#include "gateway/log.h"
#include "gateway/package_cache.h"

namespace mcpgate::gateway {

std::expected<std::shared_ptr<const config::Config>, std::string> loadForServing(
    const std::string& path) {
  auto config = config::loadConfig(path);
  if (!config) {
    std::cerr << config.error().message << "\n";
    return std::unexpected(config.error().message);
  }
  (void)log::setLevel((*config)->log_level);
  // Not an error: install may run after the config is written. Said once here
  // rather than only to the first client that asks for the server.
  for (const auto& [name, server] : (*config)->servers) {
    sandbox::SpawnSpec probe{name, server.command, {}, {}, {}, sandbox::SandboxPolicy{}};
    if (auto cached = addPackageCache(**config, server, probe); !cached) {
      log::warn("server cannot start yet", {{"server", name}, {"reason", cached.error()}});
    }
  }
  return *config;
}

bool isLoopbackHost(const std::string& host) {
  if (host == "localhost") return true;
  boost::system::error_code ec;
  auto address = boost::asio::ip::make_address(host, ec);
  return !ec && address.is_loopback();
}

std::expected<sandbox::SpawnSpec, std::string> spawnSpecFor(const config::Config& config,
                                                            const config::ServerConfig& server) {
  std::string cwd;
  for (const sandbox::Bind& bind : server.sandbox.binds) {
    if (server.cwd == bind.dst || server.cwd.starts_with(bind.dst + "/")) cwd = server.cwd;
  }
  sandbox::SpawnSpec spec{server.name, server.command, server.args, server.env, cwd};
  spec.sandbox = server.sandbox;
  // One JSON line of enforced and degraded layers per spawn, for the log.
  spec.sandbox->report = true;
  if (auto cached = addPackageCache(config, server, spec); !cached) {
    return std::unexpected(cached.error());
  }
  return spec;
}

}  // namespace mcpgate::gateway
