#pragma once

// The server's environment: only what the operator declared, plus a fixed
// PATH, HOME and TMPDIR; variables that make a runtime load foreign code are
// dropped whatever the config says.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcpgate::sandbox {

inline constexpr const char* kSafePath =
    "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";
inline constexpr const char* kSandboxHome = "/home/mcp";

// True for names on the case-insensitive denylist (LD_*, NODE_OPTIONS, ...).
[[nodiscard]] bool isDeniedEnvName(std::string_view name);

struct SandboxEnv {
  std::vector<std::string> entries;  // "KEY=VALUE", ready for execve
  std::vector<std::string> dropped;  // names refused by the denylist, for the report
};

// `declared` in order (later wins); PATH, HOME and TMPDIR are fixed.
[[nodiscard]] SandboxEnv buildSandboxEnv(
    const std::vector<std::pair<std::string, std::string>>& declared);

// network: allowlist: the variables that send HTTP clients to the egress proxy
// at `proxy_url` (both spellings: curl reads only lower-case http_proxy, Go
// and Python either), an empty NO_PROXY (loopback of the sandbox is not the
// target of anything useful), and, when `node_preload` is set, NODE_OPTIONS
// requiring it. They replace what the config set under those names.
void addProxyEnv(SandboxEnv& env, const std::string& proxy_url, const std::string& node_preload);

}  // namespace mcpgate::sandbox
