#pragma once

// Mount namespace: a fresh tmpfs root with read-only /usr (and the usrmerge
// symlinks), the few /etc files a runtime needs, a minimal /dev, a fresh
// /proc, size-limited tmpfs /tmp and HOME, and the operator's binds. The
// host's root is detached afterwards; nothing else of it is reachable.

#include <expected>
#include <vector>

#include "sandbox/bind_source.h"
#include "sandbox/error.h"
#include "sandbox/fd.h"
#include "sandbox/policy.h"

namespace mcpgate::sandbox {

// The operator's bind sources, opened (O_PATH, one per policy.binds entry)
// before the init switches to the sandbox user: the operator chose them, so
// they are looked up with the caller's own file-system ids. As root, the
// sandbox user is nobody, who could not even pass a 0700 directory such as
// /root on the way to a source that is itself world-readable. `resolved`
// holds resolveBindSource() of each (see bind_source.h): no symlink is
// followed here.
[[nodiscard]] std::expected<std::vector<UniqueFd>, Error> openBindSources(
    const SandboxPolicy& policy, const std::vector<ResolvedSource>& resolved);

// Runs in the sandbox's init, inside new user, mount and pid namespaces,
// with namespace capabilities. On success the process's root and cwd are the
// new root. `sources` come from openBindSources(policy).
[[nodiscard]] std::expected<void, Error> buildRoot(const SandboxPolicy& policy,
                                                   const std::vector<UniqueFd>& sources);

}  // namespace mcpgate::sandbox
