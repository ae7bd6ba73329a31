#pragma once

// The sandbox, layer by layer, in one fixed order. Runs in a single-threaded
// process (the re-executed `sandbox-init`, or `mcpgate sandbox run`), never
// in the multithreaded gateway.

#include "sandbox/spawn.h"

namespace mcpgate::sandbox {

// Exit codes of the supervisor itself, as in `env`/`timeout`/container tools.
inline constexpr int kExitSandboxFailed = 125;  // the sandbox could not be built
inline constexpr int kExitCannotExec = 126;     // the command exists but could not be run
inline constexpr int kExitNotFound = 127;       // the command is not visible in the sandbox

// Builds the sandbox described by `spec.sandbox`, runs the command in it with
// this process's stdio, forwards termination signals, and returns the
// command's exit code (128 + signal when killed). Errors go to stderr.
[[nodiscard]] int runContained(const SpawnSpec& spec);

}  // namespace mcpgate::sandbox
