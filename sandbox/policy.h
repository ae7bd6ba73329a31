#pragma once

// What a sandbox must enforce for one server. Filled from the `sandbox:`
// section of the gateway config (global defaults, then per-server settings)
// or from `mcpgate sandbox run` options; nothing a client sends reaches it.
//
// Config keys, one to one: on_unavailable -> on_unavailable, network ->
// network, allow -> allow, host_block -> host_block, commands -> commands, limits.{memory,
// processes, open_files, cpu_seconds, cpu, file_size, tmpfs} -> limits.* (cpu in cores, as
// millicores) (sizes through parseSize), servers.<name>.sandbox.binds[{src, dst, ro}] -> binds,
// servers.<name>.env
// -> SpawnSpec::env (policy.env is for variables the operator sets on every
// server), hostname -> hostname (default "mcp-<server>").

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sandbox/error.h"
#include "sandbox/stderr_lines.h"

namespace mcpgate::sandbox {

enum class OnUnavailable {
  kFail,     // refuse the spawn when a requested layer cannot be enforced
  kDegrade,  // run with what the host can enforce, and say what is missing
};

enum class NetworkMode {
  kNone,  // own network namespace with only loopback up
  kHost,  // the host's network namespace
  // Own namespace with only loopback, plus a listening socket on
  // 127.0.0.1:kEgressProxyPort (net.h) inside it that the supervisor hands to
  // the gateway, whose egress proxy decides on every connection. The server's
  // environment names it as HTTP(S)_PROXY.
  kAllowlist,
};

// "none", "host", "allowlist": the config's and the CLI's words.
[[nodiscard]] std::string_view networkName(NetworkMode mode);
[[nodiscard]] std::optional<NetworkMode> parseNetworkMode(std::string_view text);

// Zero means "no limit" for every field.
struct Limits {
  std::uint64_t memory_bytes = 1ULL << 30;      // cgroup memory limit (RLIMIT_AS breaks V8)
  std::uint64_t processes = 256;                // cgroup pids.max and RLIMIT_NPROC
  std::uint64_t open_files = 1024;              // RLIMIT_NOFILE
  std::uint64_t cpu_seconds = 3600;             // RLIMIT_CPU, per process
  // CPU bandwidth of the whole tree through the cgroup CPU controller, in
  // thousandths of a core (1500: one and a half cores).
  std::uint64_t cpu_millicores = 1000;
  std::uint64_t file_size_bytes = 64ULL << 20;  // RLIMIT_FSIZE
  std::uint64_t tmpfs_bytes = 128ULL << 20;     // size of /tmp and of HOME
};

struct Bind {
  std::string src;  // host path: a directory, a file or a unix socket
  std::string dst;  // absolute path inside the sandbox
  bool ro = true;
  // A directory the server may write to without changing it: an overlay whose
  // upper layer is a tmpfs (sized like /tmp) that vanishes with the sandbox.
  // The host directory itself is never written. For caches that tools insist
  // on writing while reading (npm's index), mounted for every spawn.
  bool overlay = false;
};

struct SandboxPolicy {
  OnUnavailable on_unavailable = OnUnavailable::kFail;
  NetworkMode network = NetworkMode::kNone;
  // Command names (looked up in the fixed safe PATH) or absolute paths.
  std::vector<std::string> commands = {"node", "npx", "python3", "uvx"};
  // An argument containing any of these is refused (shell metacharacters,
  // path traversal): servers are exec'd directly, but many wrap a shell.
  std::vector<std::string> arg_deny = {"`", "$(", "${", ";", "|", "&&", "\n", "../"};
  // An argument holding one of these as a whole word (between blanks) is
  // refused: a lone `&` backgrounds a command in a wrapped shell, while `&`
  // inside a word (a URL's query) stays allowed.
  std::vector<std::string> arg_deny_words = {"&"};
  Limits limits;
  std::vector<Bind> binds;
  // Added to the server's environment after its own; the denylist still applies.
  std::vector<std::pair<std::string, std::string>> env;
  // Whether files on /tmp and HOME may be executed (and mapped executable).
  // Closed by default; config opens HOME for uvx, which installs its tools
  // there and runs them (npx runs from the npm cache mcpgate binds).
  bool tmp_exec = false;
  bool home_exec = false;
  // How much of the server's stderr reaches the log (the gateway applies it;
  // the sandbox init never sees it, so it is not part of the spawn spec).
  StderrLimits stderr_limits;
  std::string hostname;  // empty: "mcp-<server name>"
  // network: allowlist: the entries the gateway's proxy allows (egress/allowlist.h
  // syntax, checked by config/). The sandbox builds the way out and never reads them.
  // network: host: the addresses the host block opens (addresses and CIDRs with
  // optional ports), which the supervisor reads.
  std::vector<std::string> allow;
  // network: host: whether the supervisor answers every connect and addressed
  // send of the server itself (socket_notify.h) and refuses the gateway's own
  // ports, cloud metadata and link-local addresses unless `allow` names them
  // (egress::decideHost). false: exactly the host's network.
  bool host_block = true;
  // network: host: the gateway's listening ports, refused on every address of
  // this host. Filled by the gateway (the ports it bound) and `sandbox run --own-port`.
  std::vector<std::uint16_t> own_ports;
  // network: allowlist: a CommonJS file visible inside the sandbox that makes Node's
  // fetch use the proxy variables, loaded through NODE_OPTIONS=--require (which the
  // environment filter refuses from the config). Empty: none.
  std::string node_proxy_preload;
  // Print one JSON line describing the enforced layers on stderr before the
  // server starts (the gateway logs it; `sandbox run` asks for it with --report).
  bool report = false;
};

// Parses "1GiB", "64MiB", "512k", "1000": the size syntax of the config and the CLI.
[[nodiscard]] std::expected<std::uint64_t, Error> parseSize(std::string_view text);

// Parses a number of cores ("1.5", "0.25", "2") into thousandths of a core.
[[nodiscard]] std::expected<std::uint64_t, Error> parseCores(std::string_view text);

// Checks a policy for mistakes an operator can fix (relative bind paths, ...).
[[nodiscard]] std::expected<void, Error> validatePolicy(const SandboxPolicy& policy);

}  // namespace mcpgate::sandbox
