#pragma once

// How spawn() hands a SpawnSpec and its SandboxPolicy to the re-executed
// sandbox-init process: a text blob in a sealed memfd, not argv, so the
// server's environment never shows up in /proc/<pid>/cmdline.

#include <expected>
#include <span>
#include <string>
#include <string_view>

#include "sandbox/error.h"
#include "sandbox/fd.h"
#include "sandbox/seccomp.h"
#include "sandbox/spawn.h"

namespace mcpgate::sandbox {

// A spec as the sandbox-init reads it, with the seccomp program the caller of
// spawn() compiled once for all its sandboxes (empty: the init compiles it).
struct DecodedSpec : SpawnSpec {
  BpfProgram seccomp;
};

// One "key value" line per field, lists as repeated keys; values escaped.
[[nodiscard]] std::string encodeSpec(const SpawnSpec& spec,
                                     std::span<const sock_filter> seccomp = {});
[[nodiscard]] std::expected<DecodedSpec, Error> decodeSpec(std::string_view text);

// A read-only, sealed memfd holding `text`, positioned at offset 0.
[[nodiscard]] std::expected<UniqueFd, Error> makeSpecFd(const std::string& text);
[[nodiscard]] std::expected<std::string, Error> readSpecFd(int fd);

}  // namespace mcpgate::sandbox
