#pragma once

// The seccomp deny list: calls a contained MCP server has no business making
// (other processes' memory, kernel keyrings, namespaces, mounts, modules,
// clocks, TIOCSTI, exotic sockets), answered with an errno so runtimes
// degrade instead of dying; foreign architectures are killed. Node.js and
// Python keep working: clone3 answers ENOSYS (glibc and libuv fall back to
// clone), io_uring_* an errno, and mprotect(PROT_EXEC)/memfd_create stay open.

#include <linux/filter.h>

#include <expected>
#include <span>
#include <vector>

#include "sandbox/error.h"

namespace mcpgate::sandbox {

using BpfProgram = std::vector<sock_filter>;

// Compiles the filter with libseccomp. Done before any fork, so the process
// that loads it only copies a ready program.
[[nodiscard]] std::expected<BpfProgram, Error> buildSeccompFilter();

// Loads the program into the calling thread; needs no_new_privs set first.
[[nodiscard]] std::expected<void, Error> loadSeccompFilter(std::span<const sock_filter> program);

}  // namespace mcpgate::sandbox
