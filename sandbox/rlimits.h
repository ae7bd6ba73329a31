#pragma once

// Per-process limits, applied in the server process just before exec. They
// complement the cgroup: RLIMIT_NPROC also holds where no pids controller is
// delegated. No address-space limit: V8 reserves large virtual ranges and
// dies under RLIMIT_AS; memory is capped by the cgroup instead.

#include <cstdint>
#include <expected>

#include "sandbox/error.h"
#include "sandbox/policy.h"

namespace mcpgate::sandbox {

[[nodiscard]] std::expected<void, Error> applyRlimits(const Limits& limits);

// The memory cap where no memory cgroup can be had (on_unavailable: degrade):
// RLIMIT_DATA counts a process's writable private mappings (heap, malloc'd
// and mmap'd anonymous memory, thread stacks) but not V8's PROT_NONE
// reservations, so Node starts under it (RLIMIT_AS would kill it). Per
// process, not per tree: weaker than the cgroup, and reported so.
[[nodiscard]] std::expected<void, Error> applyDataLimit(std::uint64_t bytes);

}  // namespace mcpgate::sandbox
