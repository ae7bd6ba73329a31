#pragma once

// The sandbox, layer by layer, in one fixed order. Runs in a single-threaded
// process (the re-executed `sandbox-init`, or `mcpgate sandbox run`), never
// in the multithreaded gateway.

#include <string_view>

#include "sandbox/seccomp.h"
#include "sandbox/spawn.h"

namespace mcpgate::sandbox {

// The supervisor's exit codes and line prefix are in spawn.h: the gateway
// reads them without including this header.

// Builds the sandbox described by `spec.sandbox`, runs the command in it with
// this process's stdio, forwards termination signals, and returns the
// command's exit code (128 + signal when killed). Errors go to stderr.
// `seccomp`: the program compiled by spawn()'s caller; empty, it is compiled here.
// `egress_fd`: a unix socket to the gateway, for network: allowlist (net.h).
[[nodiscard]] int runContained(const SpawnSpec& spec, BpfProgram seccomp = {},
                               int report_fd = 2, int egress_fd = -1);

}  // namespace mcpgate::sandbox
