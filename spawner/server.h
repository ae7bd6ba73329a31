#pragma once

// mcpgate-spawner: the one privileged process of a gateway that runs
// unprivileged. It starts configured servers by name, under the sandbox
// policy of the config it loaded itself, for one uid only (the gateway's),
// and nothing else: no HTTP, no JSON-RPC, no DLP. The wire protocol is in
// sandbox/spawner_client.h.

#include <sys/types.h>

#include <string>

namespace mcpgate::spawner {

struct Options {
  std::string config_path;
  std::string socket_path;
  uid_t gateway_uid = 0;
  gid_t gateway_gid = 0;
};

// Serves until SIGTERM or SIGINT (SIGHUP reloads the config; a config that
// fails to load keeps the old one). Returns the process's exit code.
[[nodiscard]] int serve(const Options& options);

}  // namespace mcpgate::spawner
