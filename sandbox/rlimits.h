#pragma once

// Per-process limits, applied in the server process just before exec. They
// complement the cgroup: RLIMIT_NPROC also holds where no pids controller is
// delegated. No address-space limit: V8 reserves large virtual ranges and
// dies under RLIMIT_AS; memory is capped by the cgroup instead.

#include <expected>

#include "sandbox/error.h"
#include "sandbox/policy.h"

namespace mcpgate::sandbox {

[[nodiscard]] std::expected<void, Error> applyRlimits(const Limits& limits);

}  // namespace mcpgate::sandbox
