#pragma once

// The gateway's configuration: loaded once from a file, validated, then shared
// read-only (shared_ptr<const Config>) by everything that serves requests.

#include <chrono>
#include <cstdint>
#include <expected>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sandbox/policy.h"

namespace mcpgate::dlp {
// dlp/rule.h, declared here so that this header (included by the HTTP server)
// does not pull in the rule model.
enum class Action : std::uint8_t;
}  // namespace mcpgate::dlp

namespace mcpgate::config {

struct Error {
  std::string message;  // "file:line: what is wrong" wherever a line is known
};

// /var/cache/mcpgate for root, else $XDG_CACHE_HOME/mcpgate or ~/.cache/mcpgate.
[[nodiscard]] std::string defaultCacheDir();
// /var/lib/mcpgate for root, else $XDG_STATE_HOME/mcpgate or ~/.local/state/mcpgate.
[[nodiscard]] std::string defaultStateDir();

// A server reached over Streamable HTTP (`url:`) instead of started from a
// command. Filled by config/remote_section.cc.
struct RemoteConfig {
  std::string url;  // as written
  bool tls = false;  // https
  std::string host;  // host name or IP address (IPv6 without brackets)
  std::uint16_t port = 0;
  std::string target;  // path and query; at least "/"
  // Sent with every request, in file order, ${VAR} already expanded. Often
  // credentials: never logged, shown as "<set>".
  std::vector<std::pair<std::string, std::string>> headers;
  std::string ca_file;    // PEM CA bundle to verify the server; empty: the system's
  std::string cert_file;  // client certificate chain (PEM), set together with key_file
  std::string key_file;
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(10)};
  // Plain http is refused to any host but a loopback one unless this is set.
  bool allow_insecure_http = false;
};

struct ServerConfig {
  std::string name;  // key under `servers:`; served at /mcp/<name>
  // Set for a remote server; command, args, env, cwd and sandbox then do not apply.
  std::optional<RemoteConfig> remote;
  std::string command;
  std::vector<std::string> args;
  // In file order, ${VAR} already expanded from the gateway's environment.
  std::vector<std::pair<std::string, std::string>> env;
  std::string cwd;  // absolute, an existing directory; defaults to the config file's directory
  // The effective policy: the global `sandbox:` section with this server's own
  // `sandbox:` settings applied on top (network, limits, hostname replace;
  // binds replace a global bind with the same dst, env a global variable with
  // the same name, otherwise they add). commands and on_unavailable are global.
  sandbox::SandboxPolicy sandbox;
};

struct SessionConfig {
  std::chrono::milliseconds idle_timeout{std::chrono::seconds(300)};
  std::chrono::milliseconds grace{std::chrono::seconds(10)};
  // A request the server has not answered by then gets a JSON-RPC error.
  std::chrono::milliseconds request_timeout{std::chrono::seconds(300)};
};

struct LimitsConfig {
  std::uint64_t max_body_bytes = 4 * 1024 * 1024;   // one HTTP request body
  std::uint32_t max_json_depth = 64;                // nesting of arrays and objects
  std::uint64_t max_line_bytes = 16 * 1024 * 1024;  // one message line from a server
  std::uint32_t max_sessions = 1024;
};

// The `dlp:` section. Closed by default: DLP is on with the shipped rule packs.
struct DlpConfig {
  bool enabled = true;
  // Rule files or directories, absolute. The loader fills in the shipped packs
  // (dlp::defaultRulePaths()) when the file names none.
  std::vector<std::string> rules;
  // When set, the action of every rule in that direction, instead of its own.
  std::optional<dlp::Action> request_action;
  std::optional<dlp::Action> response_action;
};

struct Config {
  std::string source;                     // path of the file it was loaded from
  std::string listen_host = "127.0.0.1";  // IPv6 without brackets ("::1")
  std::uint16_t listen_port = 8080;
  // Browser Origins allowed to call the gateway (DNS-rebinding defence). A
  // request without an Origin header is not from a browser and is allowed.
  // Empty means the default: http(s)://localhost, 127.0.0.1 and [::1] on any
  // port (the loader refuses an explicit empty list). Check with originAllowed
  // in config/origin.h rather than reading this directly.
  std::vector<std::string> allowed_origins;
  std::map<std::string, ServerConfig> servers;
  SessionConfig session;
  LimitsConfig limits;
  std::string log_level = "info";  // debug, info, warn, error
  // Where `mcpgate install` puts the packages of npx servers (one folder per
  // server), shown to them at run time. Absolute; defaultCacheDir() unless set.
  std::string cache_dir = defaultCacheDir();
  // What the gateway keeps across restarts and must not lose with a cache
  // (tool pins, the audit hash key). Absolute; defaultStateDir() unless set.
  std::string state_dir = defaultStateDir();
  // The global `sandbox:` section (SandboxPolicy's defaults where it is absent).
  sandbox::SandboxPolicy sandbox;
  DlpConfig dlp;
};

// Loads a YAML config, or a JSON file in the Claude Desktop / Cursor / VS Code
// `{"mcpServers": {...}}` format, and validates it. Never throws; every error
// is "FILE:LINE: message" (or "FILE: message" where no line applies).
[[nodiscard]] std::expected<std::shared_ptr<const Config>, Error> loadConfig(
    const std::string& path);

// The effective config (defaults filled in) as YAML, for `mcpgate config check`.
// Environment values are shown as "<set>": they often hold secrets.
[[nodiscard]] std::string describeConfig(const Config& config);

}  // namespace mcpgate::config
