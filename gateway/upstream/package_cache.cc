#include "gateway/upstream/package_cache.h"

#include <filesystem>
#include <utility>

namespace mcpgate::gateway {

namespace {

namespace fs = std::filesystem;

// npm settings for both steps: nothing but the packages is fetched or kept.
void addNpmSettings(sandbox::SpawnSpec& spec, bool offline) {
  spec.env.emplace_back("npm_config_cache", std::string(kNpmCacheInside));
  spec.env.emplace_back("npm_config_update_notifier", "false");
  spec.env.emplace_back("npm_config_fund", "false");
  spec.env.emplace_back("npm_config_audit", "false");
  spec.env.emplace_back("npm_config_logs_max", "0");
  if (offline) spec.env.emplace_back("npm_config_offline", "true");
}

bool startsWith(const std::string& word, std::string_view prefix) {
  return word.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

bool usesPackageCache(const config::ServerConfig& server) { return server.command == "npx"; }

std::string packageCacheDir(const config::Config& config, const config::ServerConfig& server) {
  return config.cache_dir + "/npm/" + server.name;
}

std::expected<std::vector<std::string>, std::string> npxPackages(
    const std::vector<std::string>& args) {
  std::vector<std::string> packages;
  std::string first_word;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") {
      if (i + 1 < args.size()) first_word = args[i + 1];
      break;
    }
    if (word == "-p" || word == "--package") {
      if (i + 1 == args.size()) return std::unexpected(word + " needs a package");
      packages.push_back(args[++i]);
    } else if (startsWith(word, "--package=")) {
      packages.push_back(word.substr(std::string_view("--package=").size()));
    } else if (word == "-c" || word == "--call" || startsWith(word, "--call=")) {
      return std::unexpected("npx " + word +
                             " runs a shell command: name the packages with --package");
    } else if (!startsWith(word, "-")) {
      first_word = word;
      break;
    }
    // Other options (-y, --yes, -q, ...) say nothing about packages.
  }
  if (packages.empty() && !first_word.empty()) packages.push_back(first_word);
  if (packages.empty()) return std::unexpected("npx's args name no package");
  return packages;
}

std::expected<void, std::string> checkPackagesInstalled(const config::Config& config,
                                                        const config::ServerConfig& server) {
  std::error_code ec;
  if (usesPackageCache(server) &&
      !fs::is_directory(packageCacheDir(config, server) + "/_npx", ec)) {
    return std::unexpected(
        "its npm packages are not installed (the operator runs `mcpgate install -c " +
        config.source + " " + server.name + "`)");
  }
  return {};
}

std::expected<void, std::string> addPackageCache(const config::Config& config,
                                                 const config::ServerConfig& server,
                                                 sandbox::SpawnSpec& spec) {
  if (!usesPackageCache(server)) return {};
  if (auto installed = checkPackagesInstalled(config, server); !installed) return installed;
  const std::string dir = packageCacheDir(config, server);
  spec.sandbox->binds.push_back(
      sandbox::Bind{dir, std::string(kNpmCacheInside), /*ro=*/true, /*overlay=*/true});
  addNpmSettings(spec, /*offline=*/true);
  return {};
}

std::expected<std::string, std::string> registryAllowEntry(const std::string& registry) {
  std::string_view rest = registry;
  std::string port;
  if (rest.starts_with("https://")) {
    rest.remove_prefix(8);
    port = "443";
  } else if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
    port = "80";
  } else {
    return std::unexpected("the npm registry '" + registry + "' is not an http(s) URL");
  }
  std::string_view authority = rest.substr(0, rest.find('/'));
  if (authority.find('@') != std::string_view::npos) authority.remove_prefix(authority.find('@') + 1);
  std::string_view host = authority;
  if (const auto close = authority.rfind(']'); authority.starts_with('[')) {
    host = authority.substr(0, close + 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':')
      port = std::string(authority.substr(close + 2));
  } else if (const auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = std::string(authority.substr(colon + 1));
  }
  if (host.empty() || port.empty()) {
    return std::unexpected("the npm registry '" + registry + "' names no host");
  }
  return std::string(host) + ":" + port;
}

std::expected<sandbox::SpawnSpec, std::string> installSpec(const config::Config& config,
                                                           const config::ServerConfig& server,
                                                           const std::string& registry) {
  if (!usesPackageCache(server)) {
    return std::unexpected("nothing to install for '" + server.name + "': its command is " +
                           server.command + " (only npx servers have managed packages)");
  }
  auto packages = npxPackages(server.args);
  if (!packages) return std::unexpected(server.name + ": " + packages.error());
  // None of the server's env: an install script runs with the package's
  // privileges, and the server's API keys are not its business.
  sandbox::SpawnSpec spec{server.name, "npx", {"--yes"}, {}, {}};
  for (const std::string& package : *packages) spec.args.push_back("--package=" + package);
  // npx keys its install by the package list, so the server's own `npx -y
  // PKG ...` later finds exactly this install.
  spec.args.insert(spec.args.end(), {"--", "node", "-e", "0"});
  spec.sandbox = server.sandbox;
  // The registry and nothing else, through the egress proxy of `mcpgate
  // install`: an install script cannot reach the metadata service, the LAN or
  // loopback services.
  auto entry = registryAllowEntry(registry);
  if (!entry) return std::unexpected(entry.error());
  spec.sandbox->network = sandbox::NetworkMode::kAllowlist;
  spec.sandbox->allow = {*entry};
  spec.sandbox->node_proxy_preload.clear();
  spec.sandbox->report = false;
  spec.sandbox->env.clear();  // operator variables may hold ${secret:...} values too
  spec.sandbox->binds.push_back(
      sandbox::Bind{packageCacheDir(config, server), std::string(kNpmCacheInside), /*ro=*/false});
  addNpmSettings(spec, /*offline=*/false);
  spec.env.emplace_back("npm_config_registry", registry);
  return spec;
}

}  // namespace mcpgate::gateway
