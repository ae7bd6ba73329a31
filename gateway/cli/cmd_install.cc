// `mcpgate install -c FILE [SERVER]...`: fills the managed package cache of
// npx servers (package_cache.h), each inside its own sandbox whose only way
// out is this process's egress proxy, allowing the npm registry alone.
// Single-threaded: one io_context runs the proxy and relays npx's output.

#include <netdb.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <functional>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <cstdio>
#include <memory>

#include "common/errno_text.h"
#include "egress/allowlist.h"
#include "egress/proxy.h"
#include "config/config.h"
#include "gateway/cli/cli.h"
#include "gateway/upstream/package_cache.h"
#include "sandbox/entry.h"
#include "sandbox/net.h"
#include "sandbox/spawn.h"
#include "sandbox/user.h"

namespace mcpgate::gateway {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kUsage =
    "usage: mcpgate install -c FILE [SERVER]...\n"
    "  installs the npm packages of the config's npx servers (all of them, or those named)\n"
    "  into its cache_dir, running npx inside each server's sandbox with none of its env and\n"
    "  no network but the npm registry (npm config get registry), through an egress proxy;\n"
    "  the servers then start from that cache without network\n";

namespace asio = boost::asio;

// The registry npm on this host is configured for (npm_config_registry, .npmrc).
std::string npmRegistry() {
  std::string out;
  if (FILE* pipe = ::popen("npm config get registry 2>/dev/null", "r")) {
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
    ::pclose(pipe);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' '))
    out.pop_back();
  return out.empty() ? "https://registry.npmjs.org/" : out;
}

// Copies what the sandbox writes (npx's stdout and stderr, the supervisor's
// report) to our stderr until the pipe closes, then calls `done`.
void relay(asio::io_context& io, sandbox::UniqueFd fd, std::function<void()> done) {
  auto pipe = std::make_shared<asio::posix::stream_descriptor>(io, fd.release());
  auto buffer = std::make_shared<std::array<char, 4096>>();
  auto step = std::make_shared<std::function<void()>>();
  *step = [pipe, buffer, step, done = std::move(done)] {
    pipe->async_read_some(asio::buffer(*buffer), [pipe, buffer, step, done](
                                                      boost::system::error_code ec, std::size_t n) {
      if (ec) {
        done();
        *step = nullptr;  // ends the cycle of shared pointers
        return;
      }
      (void)!::write(STDERR_FILENO, buffer->data(), n);
      (*step)();
    });
  };
  (*step)();
}

// Single-address entries ("ADDR:PORT") for what the host name of `entry` resolves to now,
// leaving out metadata and link-local addresses; none for an address entry.
std::vector<std::string> registryAddresses(const egress::AllowEntry& entry) {
  std::vector<std::string> out;
  if (entry.kind != egress::AllowEntry::Kind::kHost || !entry.ports) return out;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(entry.host.c_str(), nullptr, &hints, &found) != 0) return out;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const auto address = egress::fromSockaddr(a->ai_addr);
    if (!address) continue;
    const auto cls = egress::classify(*address);
    if (cls == egress::AddressClass::kMetadata || cls == egress::AddressClass::kLinkLocal) continue;
    const std::string ip = egress::formatIp(*address);
    const std::string text = (address->isV4() ? ip : "[" + ip + "]") + ":" +
                             std::to_string(entry.ports->first) + "-" +
                             std::to_string(entry.ports->last);
    if (std::ranges::find(out, text) == out.end()) out.push_back(text);
  }
  ::freeaddrinfo(found);
  return out;
}

// Starts `spec` sandboxed, serves its egress listener with a proxy allowing
// `spec.sandbox->allow`, and waits for it: its exit code.
int runWithProxy(const sandbox::SpawnSpec& spec) {
  auto child = sandbox::spawn(spec);
  if (!child) {
    std::cerr << "install: " << spec.name << ": " << child.error().message << "\n";
    return sandbox::kExitSandboxFailed;
  }
  child->stdin_fd.reset();
  asio::io_context io;
  auto settings = std::make_shared<egress::ProxySettings>();
  settings->server = spec.name;
  settings->session = "install";
  for (const std::string& text : spec.sandbox->allow) {
    auto entry = egress::parseAllowEntry(text);
    if (!entry) continue;
    // The registry is the operator's own choice (npm config), so the addresses its name has
    // now are allowed whatever their range: a mirror on the LAN or behind a reserved address
    // is still the registry. They are pinned here; a name that later resolves elsewhere
    // (rebinding) is refused as usual. Metadata and link-local addresses never are.
    for (const std::string& pinned : registryAddresses(*entry)) {
      if (auto address = egress::parseAllowEntry(pinned)) settings->allow.push_back(*address);
    }
    settings->allow.push_back(std::move(*entry));
  }
  settings->on_decision = [](const egress::ProxyEvent& e) {
    std::cerr << "install: " << e.server << ": egress " << (e.allowed ? "allowed" : "refused")
              << " " << e.host << " (" << (e.address.empty() ? "-" : e.address) << ") port "
              << e.port << (e.allowed ? "" : ": " + e.reason) << "\n";
  };
  std::shared_ptr<egress::Proxy> proxy;
  asio::posix::stream_descriptor egress(io, child->egress_fd.release());
  egress.async_wait(asio::posix::stream_descriptor::wait_read, [&](boost::system::error_code ec) {
    if (ec) return;
    sandbox::UniqueFd listener = sandbox::receiveDescriptor(egress.native_handle());
    if (!listener.valid()) return;  // the sandbox failed; its report says why
    asio::ip::tcp::acceptor acceptor(io);
    boost::system::error_code aec;
    acceptor.assign(asio::ip::tcp::v4(), listener.get(), aec);
    if (aec) return;
    (void)listener.release();
    proxy = egress::Proxy::start(io, std::move(acceptor), settings);
  });
  int open = 3;
  const auto closed = [&] {
    if (--open > 0) return;
    // Everything in the sandbox has gone (its pipes are closed): done.
    if (proxy) proxy->stop();
    io.stop();
  };
  relay(io, std::move(child->stdout_fd), closed);
  relay(io, std::move(child->stderr_fd), closed);
  if (child->report_fd.valid()) {
    relay(io, std::move(child->report_fd), closed);
  } else {
    closed();
  }
  io.run();
  int status = 0;
  ::waitpid(child->pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

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

int install(const config::Config& config, const config::ServerConfig& server,
            const std::string& registry) {
  auto spec = installSpec(config, server, registry);
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
  std::cerr << "install: " << server.name << ":" << packages << " into " << dir << " from "
            << registry << " (the only host it may reach)\n";
  const int status = runWithProxy(*spec);
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
  const std::string registry = npmRegistry();
  int worst = 0;
  for (const config::ServerConfig* server : chosen)
    worst = std::max(worst, install(config, *server, registry));
  return worst;
}

}  // namespace mcpgate::gateway
