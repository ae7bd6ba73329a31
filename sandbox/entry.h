#pragma once

// The sandbox module's two program entry points, for any executable whose
// main() dispatches to them (mcpgate, tests/sandbox/sandbox_runner):
//
//   <exe> sandbox-init --spec-fd N    hidden: what spawn() re-executes
//   <exe> sandbox run [options] -- CMD ARGS
//   <exe> sandbox probe

#include <ostream>
#include <span>

#include "sandbox/spawn.h"

namespace mcpgate::sandbox {

// `args` are the words after "sandbox-init". Reads the SpawnSpec from the fd,
// builds the sandbox, runs the server; returns the server's exit code.
int sandboxInitMain(std::span<char* const> args);

// `args` are the words after "sandbox" ("run ...", "probe").
int sandboxCommandMain(std::span<char* const> args, std::ostream& out, std::ostream& err);

// What `sandbox run` does once it has a spec: runs it under `spec.sandbox`
// with this process's stdio and returns the exit status `sandbox run`
// documents (the command's, 128+N, or 125/126/127). For callers that build the
// spec from elsewhere, such as a server in the gateway config; unlike the
// options of `sandbox run`, the policy's command allowlist and argument checks
// apply as given.
[[nodiscard]] int runSpec(const SpawnSpec& spec, std::ostream& out, std::ostream& err);

}  // namespace mcpgate::sandbox
