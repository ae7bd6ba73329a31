// `mcpgate install -c FILE [SERVER]...`: fills the managed package cache of
// npx servers (package_cache.h), each inside its own sandbox with network.
// Single-threaded, like `sandbox run`: the sandbox is built in this process.

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "common/errno_text.h"
#include "config/config.h"
#include "gateway/cli/cli.h"
#include "gateway/upstream/package_cache.h"
#include "sandbox/entry.h"
#include "sandbox/user.h"

namespace mcpgate::gateway {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kUsage =
    "usage: mcpgate install -c FILE [SERVER]...\n"
    "  installs the npm packages of the config's npx servers (all of them, or those named)\n"
    "  into its cache_dir, running npx inside each server's sandbox with network access;\n"
    "  the servers then start from that cache without network\n";

// The folder the sandbox user fills: owned by the host ids it maps to (nobody
// when mcpgate runs as root), readable by everyone, nobody else's to write.
std::expected<void, std::string> prepareDir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return std::unexpected("cannot create " + dir + ": " + ec.message());
  const sandbox::HostIds ids = sandbox::sandboxHostIds();
  if (::chown(dir.c_str(), ids.uid, ids.gid) != 0) {
    return std::unexpected("cannot hand " + dir +
                           " to the sandbox user: " + common::errnoText(errno));
  }
  fs::permissions(dir,
                  fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                      fs::perms::others_read | fs::perms::others_exec,
                  ec);
  if (ec) return std::unexpected("cannot set the permissions of " + dir + ": " + ec.message());
  return {};
}

int install(const config::Config& config, const config::ServerConfig& server) {
  auto spec = installSpec(config, server);
  if (!spec) {
    std::cerr << "install: " << spec.error() << "\n";
    return 2;
  }
  const std::string dir = packageCacheDir(config, server);
  if (auto ready = prepareDir(dir); !ready) {
    std::cerr << "install: " << ready.error() << "\n";
    return 2;
  }
  std::string packages;
  for (const std::string& arg : spec->args) {
    constexpr std::string_view kPackage = "--package=";
    if (arg.starts_with(kPackage)) packages += " " + arg.substr(kPackage.size());
  }
  std::cerr << "install: " << server.name << ":" << packages << " into " << dir << "\n";
  const int status = sandbox::runSpec(*spec, std::cout, std::cerr);
  if (status != 0) {
    std::cerr << "install: " << server.name << ": npx failed with exit status " << status << "\n";
    return 1;
  }
  std::cerr << "install: " << server.name << ": done\n";
  return 0;
}

}  // namespace

int runInstall(Args args) {
  std::string file;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view word = args[i];
    if (word == "-c" || word == "--config") {
      if (i + 1 == args.size()) {
        std::cerr << "install: " << word << " needs a file\n" << kUsage;
        return 2;
      }
      file = args[++i];
    } else if (word == "--help" || word == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (word.starts_with("-")) {
      std::cerr << "install: unknown option '" << word << "'\n" << kUsage;
      return 2;
    } else {
      names.emplace_back(word);
    }
  }
  if (file.empty()) {
    std::cerr << "install: -c FILE is required\n" << kUsage;
    return 2;
  }
  auto loaded = config::loadConfig(file);
  if (!loaded) {
    std::cerr << loaded.error().message << "\n";
    return 2;
  }
  const config::Config& config = **loaded;
  std::vector<const config::ServerConfig*> chosen;
  for (const std::string& name : names) {
    auto found = config.servers.find(name);
    if (found == config.servers.end()) {
      std::cerr << "install: no server '" << name << "' in " << file << "\n";
      return 2;
    }
    chosen.push_back(&found->second);
  }
  if (names.empty()) {
    for (const auto& [name, server] : config.servers) {
      if (usesPackageCache(server)) chosen.push_back(&server);
    }
    if (chosen.empty()) {
      std::cerr << "install: no npx servers in " << file << ": nothing to install\n";
      return 0;
    }
  }
  int worst = 0;
  for (const config::ServerConfig* server : chosen)
    worst = std::max(worst, install(config, *server));
  return worst;
}

}  // namespace mcpgate::gateway
