#include "config/visibility.h"

#include <array>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace mcpgate::config {
namespace {

namespace fs = std::filesystem;

// What every sandbox shows of the host, read-only (sandbox/mount.cc): /usr and
// the usrmerge links into it, /proc and /dev of its own. /etc holds only a
// few name-service files and /tmp and HOME are empty tmpfs, so host paths
// there are not visible.
constexpr std::array<std::string_view, 9> kSystemDirs = {
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/dev"};

bool isUnder(const fs::path& path, const fs::path& dir) {
  const fs::path rel = path.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

bool visibleInside(const fs::path& path, const ServerConfig& server) {
  for (std::string_view dir : kSystemDirs) {
    if (isUnder(path, dir)) return true;
  }
  for (const auto& bind : server.sandbox.binds) {
    if (isUnder(path, fs::path(bind.dst).lexically_normal())) return true;
  }
  return false;
}

void check(const std::string& server_name, const ServerConfig& server, const std::string& where,
           const std::string& text, std::vector<HiddenPath>& out) {
  // A flag such as --root=/home/me carries its path after the '='.
  std::string_view value = text;
  if (value.starts_with("-")) {
    const auto eq = value.find('=');
    if (eq == std::string_view::npos) return;
    value.remove_prefix(eq + 1);
  }
  if (!value.starts_with("/")) return;
  const fs::path path = fs::path(value).lexically_normal();
  if (visibleInside(path, server)) return;
  HiddenPath hidden{server_name, where, std::string(value), path.string(), true};
  std::error_code ec;
  fs::path existing = path;
  while (!fs::exists(existing, ec) && existing.has_relative_path()) {
    hidden.exists = false;
    existing = existing.parent_path();
  }
  // Nothing of it on this host (a config from another machine): bind the path
  // as written, which the operator must create or correct.
  hidden.bind = existing == existing.root_path() ? path.string() : existing.string();
  out.push_back(std::move(hidden));
}

}  // namespace

std::vector<HiddenPath> hiddenPaths(const Config& config) {
  std::vector<HiddenPath> out;
  for (const auto& [name, server] : config.servers) {
    if (server.remote) continue;
    check(name, server, "command", server.command, out);
    for (std::size_t i = 0; i < server.args.size(); ++i) {
      check(name, server, "args[" + std::to_string(i) + "]", server.args[i], out);
    }
  }
  return out;
}

std::string describe(const HiddenPath& hidden, const std::string& section) {
  std::string text = section + "." + hidden.server + "." + hidden.where + ": " + hidden.path +
                     " is not visible inside the server's sandbox";
  if (!hidden.exists) text += " (and does not exist on this host)";
  text += "; to show it, add under the server: sandbox: {binds: [{src: " + hidden.bind +
          ", dst: " + hidden.bind + "}]}  (read-only; add ro: false if the server must write there)";
  return text;
}

}  // namespace mcpgate::config
