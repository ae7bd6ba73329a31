#pragma once

// The sandbox, layer by layer, in one fixed order. Runs in a single-threaded
// process (the re-executed `sandbox-init`, or `mcpgate sandbox run`), never
// in the multithreaded gateway.

#include <string_view>

#include "sandbox/seccomp.h"
#include "sandbox/spawn.h"

namespace mcpgate::sandbox {

// Exit codes of the supervisor itself, as in `env`/`timeout`/container tools.
inline constexpr int kExitSandboxFailed = 125;  // the sandbox could not be built
inline constexpr int kExitCannotExec = 126;     // the command exists but could not be run
inline constexpr int kExitNotFound = 127;       // the command is not visible in the sandbox

// Every line the supervisor writes (the layer report, why it refused) starts
// with this. They go to `report_fd`: a channel of their own when the caller
// asked for one (SpawnSpec::report_channel), else stderr (`sandbox run`).
inline constexpr std::string_view kSupervisorLinePrefix = "mcpgate sandbox: ";

// Builds the sandbox described by `spec.sandbox`, runs the command in it with
// this process's stdio, forwards termination signals, and returns the
// command's exit code (128 + signal when killed). Errors go to stderr.
// `seccomp`: the program compiled by spawn()'s caller; empty, it is compiled here.
[[nodiscard]] int runContained(const SpawnSpec& spec, BpfProgram seccomp = {},
                               int report_fd = 2);

}  // namespace mcpgate::sandbox
