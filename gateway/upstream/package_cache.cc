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

std::expected<sandbox::SpawnSpec, std::string> installSpec(const config::Config& config,
                                                           const config::ServerConfig& server) {
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
  spec.sandbox->network = sandbox::NetworkMode::kHost;
  spec.sandbox->report = false;
  spec.sandbox->env.clear();  // operator variables may hold ${secret:...} values too
  spec.sandbox->binds.push_back(
      sandbox::Bind{packageCacheDir(config, server), std::string(kNpmCacheInside), /*ro=*/false});
  addNpmSettings(spec, /*offline=*/false);
  return spec;
}

}  // namespace mcpgate::gateway
