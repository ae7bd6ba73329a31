#pragma once

// Supervision of a running server: signals the supervisor forwards, exit
// statuses, and the stop sequence the gateway uses on idle timeout, session
// end or shutdown (SIGTERM, grace period, SIGKILL, reap).

#include <signal.h>
#include <sys/types.h>

#include <chrono>

#include "sandbox/spawn.h"

namespace mcpgate::sandbox {

// The signals a supervisor passes on to the server: termination requests and
// the user signals servers use for reloads.
[[nodiscard]] sigset_t forwardedSignals();

// Blocks `forwarded` and SIGCHLD so they can be waited for with sigwaitinfo;
// returns the previous mask for the server to restore before exec.
[[nodiscard]] sigset_t blockSupervisorSignals();

// Waits for `child`, forwarding every forwarded signal to it. When
// `reap_all` (PID 1 of a namespace) other exited processes are reaped too.
// Returns the child's wait status.
[[nodiscard]] int superviseChild(pid_t child, bool reap_all);

// Shell convention: the exit status, or 128 + the signal that killed it.
[[nodiscard]] int exitCodeOf(int wait_status);

// SIGTERM, up to `grace` for the child to exit, then SIGKILL; reaps it and
// returns its wait status. For a sandboxed child this ends the whole tree.
int terminate(Child& child, std::chrono::milliseconds grace);

}  // namespace mcpgate::sandbox
