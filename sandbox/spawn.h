#pragma once

// The one way mcpgate starts an MCP server process. The gateway only sees
// SpawnSpec in and Child out; how the child is contained is this module's
// business, so sandbox layers can be added without the gateway changing.

#include <sys/types.h>

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sandbox/error.h"
#include "sandbox/fd.h"
#include "sandbox/policy.h"

namespace mcpgate::sandbox {

// Exit codes of the supervisor itself, as in `env`/`timeout`/container tools.
inline constexpr int kExitSandboxFailed = 125;  // the sandbox could not be built
inline constexpr int kExitCannotExec = 126;     // the command exists but could not be run
inline constexpr int kExitNotFound = 127;       // the command is not visible in the sandbox

// Every line the supervisor writes (the layer report, why it refused) starts
// with this. They go to `report_fd`: a channel of their own when the caller
// asked for one (SpawnSpec::report_channel), else stderr (`sandbox run`).
inline constexpr std::string_view kSupervisorLinePrefix = "mcpgate sandbox: ";

struct SpawnSpec {
  std::string name;     // server name: used in logs and reports
  std::string command;  // absolute path, or a name looked up in the fixed safe PATH
  std::vector<std::string> args;
  // Exactly the variables the operator declared; spawn adds only a fixed PATH and HOME.
  std::vector<std::pair<std::string, std::string>> env;
  std::string cwd;  // empty: the gateway's working directory (HOME inside a sandbox)

  // Containment. Without a policy the server runs as a plain child (as before
  // the sandbox existed). With one, spawn() starts `init_binary` in its
  // single-threaded `sandbox-init` mode, which builds the sandbox and execs
  // the server: the multithreaded caller never sets up namespaces itself.
  std::optional<SandboxPolicy> sandbox =
      std::nullopt;  // initialized: positional aggregate init stays warning-free
  // A binary whose main() dispatches sandbox-init; empty: defaultInitBinary().
  std::string init_binary = {};
  // The supervisor's own lines (the layer report, why it refused) go to a
  // pipe of their own, Child::report_fd, instead of the server's stderr, so
  // nothing the server prints can pass for them.
  bool report_channel = false;
};

// The slim init program, installed next to `mcpgate`.
inline constexpr std::string_view kInitBinaryName = "mcpgate-sandbox-init";

// kInitBinaryName in the directory of this process's executable when it is
// there, else "/proc/self/exe" (mcpgate's main() dispatches sandbox-init too,
// at the cost of loading the whole gateway binary at every spawn).
[[nodiscard]] std::string defaultInitBinary();

// A running child. With a sandbox, `pid` is the sandbox supervisor: signals
// sent to it reach the server, and its exit status is the server's. The pipe ends are ours,
// close-on-exec and non-blocking.
struct Child {
  pid_t pid = -1;
  UniqueFd pidfd;  // becomes readable when the child exits
  UniqueFd stdin_fd;
  UniqueFd stdout_fd;
  UniqueFd stderr_fd;
  UniqueFd report_fd;  // with SpawnSpec::report_channel: the supervisor's lines
  // With network: allowlist: a unix socket on which the supervisor sends one
  // descriptor, the socket listening on the sandbox's proxy port (net.h).
  UniqueFd egress_fd;
  // Started through the privileged spawner (spawner_client.h): the spawner is
  // the parent, so signals are requests on this socket and the exit status
  // arrives on it (the pidfd above only shows that the process ended).
  UniqueFd control;
};

[[nodiscard]] std::expected<Child, Error> spawn(const SpawnSpec& spec);

// Sends `sig` through the pidfd (no pid-reuse race), or asks the spawner to.
// False if the child is gone.
bool signalChild(const Child& child, int sig);

// Reaps the child if it has exited: its wait status, or nullopt while it runs.
// Through the spawner: the status it sent (a spawner gone: as SIGKILL, which
// is what its death does to the sandbox).
[[nodiscard]] std::optional<int> tryReap(Child& child);

// The descriptor that becomes readable once tryReap() has a status to give:
// the pidfd, or the spawner's connection.
[[nodiscard]] int exitNoticeFd(const Child& child);

// Describes a wait status for a log line: "exited with status 3", "killed by signal 9".
[[nodiscard]] std::string describeExit(int wait_status);

}  // namespace mcpgate::sandbox
