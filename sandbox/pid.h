#pragma once

// PID namespace: the sandbox's init is PID 1. The kernel drops signals to a
// PID 1 that has no handler for them, and orphans are reparented to it, so
// it must forward termination requests to the server and reap everything.
// When it exits, the kernel kills whatever is left in the namespace.

#include <sys/types.h>

namespace mcpgate::sandbox {

// Runs as PID 1 until `server` exits, then exits with the server's exit code.
[[noreturn]] void runAsInit(pid_t server);

}  // namespace mcpgate::sandbox
