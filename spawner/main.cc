// mcpgate-spawner --config FILE --socket PATH --gateway-user USER|UID[:GID]
//
// Run as root beside `mcpgate serve --spawner PATH` running as USER with no
// capabilities (README: "No root on the network path").

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include "sandbox/entry.h"
#include "sandbox/user.h"
#include "spawner/server.h"

namespace {

constexpr std::string_view kUsage =
    "usage: mcpgate-spawner --config FILE --socket PATH --gateway-user USER|UID[:GID]\n";

std::optional<unsigned> number(std::string_view text) {
  unsigned n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return n;
}

// "mcpgate", "64000" or "64000:64000": the user and group the gateway runs as.
bool parseUser(std::string_view text, mcpgate::spawner::Options& options) {
  const std::size_t colon = text.find(':');
  std::string_view user = text.substr(0, colon);
  if (auto uid = number(user)) {
    options.gateway_uid = *uid;
    options.gateway_gid = *uid;
  } else {
    const passwd* pw = ::getpwnam(std::string(user).c_str());
    if (pw == nullptr) return false;
    options.gateway_uid = pw->pw_uid;
    options.gateway_gid = pw->pw_gid;
  }
  if (colon != std::string_view::npos) {
    auto gid = number(text.substr(colon + 1));
    if (!gid) return false;
    options.gateway_gid = *gid;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::span<char* const> args(argv + 1, static_cast<std::size_t>(argc - 1));
  // The sandbox's init is this binary re-executed when mcpgate-sandbox-init
  // is not installed beside it.
  if (!args.empty() && std::strcmp(args[0], "sandbox-init") == 0) {
    return mcpgate::sandbox::sandboxInitMain(args.subspan(1));
  }
  mcpgate::spawner::Options options;
  bool have_user = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view a = args[i];
    const bool more = i + 1 < args.size();
    if ((a == "--config" || a == "-c") && more) {
      options.config_path = args[++i];
    } else if (a == "--socket" && more) {
      options.socket_path = args[++i];
    } else if (a == "--gateway-user" && more) {
      if (!parseUser(args[++i], options)) {
        std::cerr << "mcpgate-spawner: unknown user " << args[i] << "\n";
        return 2;
      }
      have_user = true;
    } else {
      std::cerr << kUsage;
      return 2;
    }
  }
  if (options.config_path.empty() || options.socket_path.empty() || !have_user) {
    std::cerr << kUsage;
    return 2;
  }
  // Root would make the spawner pointless, and nobody is the uid sandboxed
  // servers run as: a server must never pass for the gateway.
  if (options.gateway_uid == 0 || options.gateway_uid == mcpgate::sandbox::kNobody) {
    std::cerr << "mcpgate-spawner: the gateway needs a user of its own (not root, not nobody: "
                 "sandboxed servers run as nobody)\n";
    return 2;
  }
  return mcpgate::spawner::serve(options);
}
