#pragma once

// Bind sources, resolved so that nobody but root and the gateway's own user can redirect them.
//
// A bind source that lies under a directory some other user (or a sandboxed server, through a
// writable bind) can write could be swapped for a symlink to the host's / or /proc, which the next
// sandbox would then bind. So a source is walked one component at a time without following
// symlinks (O_PATH | O_NOFOLLOW, each step relative to the last, so nothing can be swapped between
// a check and its use), and every directory on the way must be owned by root or the gateway's uid
// and writable by nobody else (a sticky directory such as /tmp only if the entry in it is owned
// by root or the gateway's uid too). Symlinks are followed only where they sit in such a
// directory: the operator's own, or the system's (/lib -> usr/lib).
//
// The walk runs twice: at config load (a clear error with the file and line) and in the sandbox
// supervisor before the namespaces exist (host uids are still visible there); the init then opens
// the symlink-free path it produced and checks it is still the same file.

#include <sys/types.h>

#include <expected>
#include <string>

#include "sandbox/error.h"
#include "sandbox/fd.h"

namespace mcpgate::sandbox {

struct ResolvedSource {
  std::string path;  // absolute, no symlink and no '..' in it
  dev_t dev = 0;
  ino_t ino = 0;
};

// Resolves `src` (absolute) as described above; the error names the source, the directory or
// link at fault and why.
[[nodiscard]] std::expected<ResolvedSource, Error> resolveBindSource(const std::string& src);

// Opens (O_PATH) what resolveBindSource() found, following no symlink at all (openat2 with
// RESOLVE_NO_SYMLINKS, or a component-wise O_NOFOLLOW walk where the kernel lacks it), and
// refuses it if it is no longer the same file.
[[nodiscard]] std::expected<UniqueFd, Error> openResolvedSource(const std::string& src,
                                                                const ResolvedSource& resolved);

}  // namespace mcpgate::sandbox
