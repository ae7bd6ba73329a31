#pragma once

// The sandbox module's two program entry points, for any executable whose
// main() dispatches to them (mcpgate, tests/sandbox/sandbox_runner):
//
//   <exe> sandbox-init --spec-fd N    hidden: what spawn() re-executes
//   <exe> sandbox run [options] -- CMD ARGS
//   <exe> sandbox probe

#include <ostream>
#include <span>

namespace mcpgate::sandbox {

// `args` are the words after "sandbox-init". Reads the SpawnSpec from the fd,
// builds the sandbox, runs the server; returns the server's exit code.
int sandboxInitMain(std::span<char* const> args);

// `args` are the words after "sandbox" ("run ...", "probe").
int sandboxCommandMain(std::span<char* const> args, std::ostream& out, std::ostream& err);

}  // namespace mcpgate::sandbox
