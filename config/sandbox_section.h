#pragma once

// The `sandbox:` section of the config file, at top level and per server: the
// policy each server runs under, and the check that its command can run there
// (config/ only).

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <expected>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"
#include "config/yaml_support.h"
#include "sandbox/policy.h"

namespace mcpgate::config {

// What one `sandbox:` section sets; unset fields keep what is below it (the
// defaults under the global section, the global policy under a server's).
struct SandboxSettings {
  int line = 0;  // of the `sandbox` key
  std::optional<sandbox::OnUnavailable> on_unavailable;
  std::optional<sandbox::NetworkMode> network;
  std::optional<std::vector<std::string>> allow;  // egress entries, checked by egress/
  std::optional<std::vector<std::string>> commands;
  std::optional<std::uint64_t> memory_bytes;
  std::optional<std::uint64_t> processes;
  std::optional<std::uint64_t> open_files;
  std::optional<std::uint64_t> cpu_seconds;
  std::optional<std::uint64_t> cpu_millicores;
  std::optional<std::uint64_t> file_size_bytes;
  std::optional<std::uint64_t> tmpfs_bytes;
  std::vector<sandbox::Bind> binds;
  std::vector<std::pair<std::string, std::string>> env;
  std::optional<std::string> hostname;
  std::optional<sandbox::StderrLimits> stderr_limits;
  std::optional<bool> tmp_exec;
  std::optional<bool> home_exec;
  std::optional<bool>
      host_block;  // network: host: the supervisor's block (sandbox/socket_notify.h)
};

// What the loader keeps about a server beyond ServerConfig until the whole
// file is read (the global `sandbox:` section may come after `servers:`).
struct ServerExtra {
  std::string path;  // "servers.NAME" or "mcpServers.NAME"
  int command_line = 0;
  std::optional<SandboxSettings> sandbox;
};

// Reads one section: the top-level one (`global`, path "sandbox") or a
// server's (path "servers.NAME.sandbox"), which may set fewer keys.
[[nodiscard]] std::expected<SandboxSettings, Error> loadSandboxSection(const detail::Reader& reader,
                                                                       const detail::Entry& e,
                                                                       const std::string& path,
                                                                       bool global);

// Every server's effective policy, and the allowlist check, once the whole
// file is read: the defaults, then the global section, then the server's.
[[nodiscard]] std::expected<void, Error> resolveSandboxes(
    const detail::Reader& reader, const std::optional<SandboxSettings>& global,
    const std::map<std::string, ServerExtra>& extras, Config& config);

// The effective sections, for `mcpgate config check`.
void emitGlobalSandbox(YAML::Emitter& out, const sandbox::SandboxPolicy& policy);
void emitServerSandbox(YAML::Emitter& out, const std::string& name,
                       const sandbox::SandboxPolicy& policy);

}  // namespace mcpgate::config
