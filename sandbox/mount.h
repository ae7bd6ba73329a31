#pragma once

// Mount namespace: a fresh tmpfs root with read-only /usr (and the usrmerge
// symlinks), the few /etc files a runtime needs, a minimal /dev, a fresh
// /proc, size-limited tmpfs /tmp and HOME, and the operator's binds. The
// host's root is detached afterwards; nothing else of it is reachable.

#include <expected>

#include "sandbox/error.h"
#include "sandbox/policy.h"

namespace mcpgate::sandbox {

// Runs in the sandbox's init, inside new user, mount and pid namespaces,
// with namespace capabilities. On success the process's root and cwd are the
// new root.
[[nodiscard]] std::expected<void, Error> buildRoot(const SandboxPolicy& policy);

}  // namespace mcpgate::sandbox
