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
#include "sandbox/fd.h"

namespace mcpgate::sandbox {

using BpfProgram = std::vector<sock_filter>;

// Which calls the filter hands to the supervisor (seccomp user notification)
// instead of letting them run: `network: host` with its block on.
enum class SocketCalls {
  kRun,     // every call the deny list allows runs
  kNotify,  // connect, sendto with an address, sendmsg and sendmmsg wait for the supervisor
};

// Compiles the filter with libseccomp. Done before any fork, so the process
// that loads it only copies a ready program.
[[nodiscard]] std::expected<BpfProgram, Error> buildSeccompFilter(
    SocketCalls sockets = SocketCalls::kRun);

// Loads the program into the calling thread; needs no_new_privs set first.
[[nodiscard]] std::expected<void, Error> loadSeccompFilter(std::span<const sock_filter> program);

// The same, for a program built with SocketCalls::kNotify: returns the
// listener on which the kernel queues the notifications (close-on-exec).
[[nodiscard]] std::expected<UniqueFd, Error> loadSeccompFilterWithListener(
    std::span<const sock_filter> program);

}  // namespace mcpgate::sandbox
