#pragma once

// User namespace: the server runs as uid/gid 1000 ("mcp") inside, mapped to
// the caller's own ids outside, or to nobody (65534) when the caller is
// root, so a server never runs as host root.

#include <sys/types.h>

#include <expected>

#include "sandbox/error.h"

namespace mcpgate::sandbox {

inline constexpr uid_t kSandboxUid = 1000;
inline constexpr gid_t kSandboxGid = 1000;
inline constexpr uid_t kNobody = 65534;

struct HostIds {
  uid_t uid;
  gid_t gid;
};

// The host ids the sandbox's user maps to.
[[nodiscard]] HostIds sandboxHostIds();

// Root's supplementary groups (0, ...) would follow the server into the
// namespace, where setgroups is then denied: drop them before cloning.
[[nodiscard]] std::expected<void, Error> dropSupplementaryGroupsIfRoot();

// Run by the parent once the child is in its new user namespace.
[[nodiscard]] std::expected<void, Error> writeIdMaps(pid_t child, HostIds host);

// Run in the child after the maps exist: switches to the sandbox ids while
// keeping the namespace capabilities the rest of the setup needs.
[[nodiscard]] std::expected<void, Error> becomeSandboxUser();

}  // namespace mcpgate::sandbox
