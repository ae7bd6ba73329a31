#pragma once

// Host paths a server is given (its command, its args) that its sandbox does
// not show it: a desktop config written for an unsandboxed client names
// /home/me/projects, and the server exits at once with "no such file".
// `mcpgate config check` warns about them; `mcpgate import` adds the binds.

#include <string>
#include <vector>

#include "config/config.h"

namespace mcpgate::config {

struct HiddenPath {
  std::string server;  // the server's name
  std::string where;   // "command" or "args[N]"
  std::string path;    // as written in the config
  std::string bind;    // the host path to bind at the same place inside (path, or its parent)
  bool exists = true;  // false: not on this host either (bind is its nearest existing parent)
};

// In server-name order, args in order. Remote servers have no sandbox and none.
[[nodiscard]] std::vector<HiddenPath> hiddenPaths(const Config& config);

// "servers.NAME.args[2]: /home/me/p is not visible inside the sandbox; add
// sandbox: {binds: [{src: /home/me/p, dst: /home/me/p}]} (ro: false to let it write)"
[[nodiscard]] std::string describe(const HiddenPath& hidden, const std::string& section);

}  // namespace mcpgate::config
