#pragma once

// The one way mcpgate starts an MCP server process. The gateway only sees
// SpawnSpec in and Child out; how the child is contained is this module's
// business, so sandbox layers can be added without the gateway changing.

#include <sys/types.h>

#include <expected>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sandbox/fd.h"

namespace mcpgate::sandbox {

struct Error {
  std::string message;
};

struct SpawnSpec {
  std::string name;  // server name: used in logs and reports
  std::string command;  // absolute path, or a name looked up in the fixed safe PATH
  std::vector<std::string> args;
  // Exactly the variables the operator declared; spawn adds only a fixed PATH and HOME.
  std::vector<std::pair<std::string, std::string>> env;
  std::string cwd;  // empty: the gateway's working directory
};

// A running child. The pipe ends are ours, close-on-exec and non-blocking.
struct Child {
  pid_t pid = -1;
  UniqueFd pidfd;  // becomes readable when the child exits
  UniqueFd stdin_fd;
  UniqueFd stdout_fd;
  UniqueFd stderr_fd;
};

[[nodiscard]] std::expected<Child, Error> spawn(const SpawnSpec& spec);

// Sends `sig` through the pidfd (no pid-reuse race). False if the child is gone.
bool signalChild(const Child& child, int sig);

// Reaps the child if it has exited: its wait status, or nullopt while it runs.
[[nodiscard]] std::optional<int> tryReap(Child& child);

// Describes a wait status for a log line: "exited with status 3", "killed by signal 9".
[[nodiscard]] std::string describeExit(int wait_status);

}  // namespace mcpgate::sandbox
