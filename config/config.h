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
#include <string_view>
#include <utility>
#include <vector>

#include "gateway/mcp/era.h"
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
  std::string url;   // as written
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

// A server's `pool:` (gateway/session/lanes.h): the processes the gateway
// keeps for each modern (2026-07-28) client, which brings no session.
struct PoolConfig {
  std::uint32_t size = 4;   // processes per client at most
  std::uint32_t start = 1;  // started at a client's first request (the rest on demand)
  // An idle process ends after this; unset: session.idle_timeout.
  std::optional<std::chrono::milliseconds> idle_timeout;
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
  // `protocol: auto | legacy | modern`: the MCP era the server speaks. auto
  // (the default) detects it (stdio: a server/discover probe, then
  // initialize; HTTP: a modern request, then legacy on a 400 without a modern
  // error body) and caches the answer per process or origin; legacy and modern
  // skip the detection.
  gateway::EraChoice protocol = gateway::EraChoice::kAuto;
  PoolConfig pool;
};

struct SessionConfig {
  std::chrono::milliseconds idle_timeout{std::chrono::seconds(300)};
  std::chrono::milliseconds grace{std::chrono::seconds(10)};
  // A request the server has not answered by then gets a JSON-RPC error.
  std::chrono::milliseconds request_timeout{std::chrono::seconds(300)};
  // Live sessions of one client on this gateway: its token's client name with
  // auth, its IP address without. A client that never ends its sessions (the
  // MCP Inspector CLI) would otherwise hold a server per call until the idle
  // timeout. At the limit, an initialize closes the client's least recently
  // used session idle for 5 s or more (its next request gets 404, so its client
  // initializes again); with none, it is admitted. 0: no limit. An aggregate (/mcp)
  // session counts as one, its servers' sessions with it.
  std::uint32_t max_per_client = 16;
};

struct LimitsConfig {
  std::uint64_t max_body_bytes = 4 * 1024 * 1024;   // one HTTP request body
  std::uint32_t max_json_depth = 64;                // nesting of arrays and objects
  std::uint64_t max_line_bytes = 16 * 1024 * 1024;  // one message line from a server
  std::uint32_t max_sessions = 1024;
  // Open connections from one client address; past it a connection is
  // answered 503 and closed (HttpServer).
  std::uint32_t max_connections_per_address = 1024;
  // With auth: open connections that have authenticated as one client (its
  // token), wherever they come from; past it a request is answered 503 and
  // the connection closed. Behind a load balancer every client shares one
  // address, so this is the cap that tells clients apart.
  std::uint32_t max_connections_per_client = 256;
  // Messages queued for clients and not yet sent (SSE streams, responses,
  // the backlog for a GET stream). Over the session's or the gateway's
  // budget the gateway stops reading the server (backpressure); a stream
  // over its own budget whose client takes nothing for stream_stall_timeout
  // is ended with an error.
  std::uint64_t max_stream_queue_bytes = 8 * 1024 * 1024;
  std::uint64_t max_session_queue_bytes = 32 * 1024 * 1024;
  std::uint64_t max_queued_bytes = 512 * 1024 * 1024;
  std::chrono::milliseconds stream_stall_timeout{std::chrono::seconds(10)};
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
  // What a message gets when part of it could not be decoded within the limits below
  // (dlp::Policy::unscanned); unset: block, closed both ways. An operator may let responses
  // through with warn.
  std::optional<dlp::Action> unscanned_request;
  std::optional<dlp::Action> unscanned_response;
  std::uint64_t max_decoded_bytes = 4 << 20;              // per scanned string
  std::uint64_t max_decoded_bytes_per_message = 8 << 20;  // over all strings of one message
};

// The `audit:` section. Without it there is no audit file: findings and policy
// decisions still go to the log on stderr, without the keyed hash.
struct AuditConfig {
  bool enabled = false;  // the file has an `audit:` section
  // Absolute file the JSON lines are appended to, or "-" for stdout.
  // Defaults to <state_dir>/audit.jsonl.
  std::string path;
  // Absolute file holding the HMAC key of the matched-value hashes, created
  // (0600) on first start when missing. Defaults to <state_dir>/audit.key.
  std::string key_file;
};

// The aggregate endpoint /mcp.
struct AggregateConfig {
  // Between a server's name and its tool's or prompt's: `<server>__<tool>`.
  std::string separator = "__";
};

// One entry of `policies:` (config/policy_section.h). Globs use * and ?.
struct PolicyRuleAction {
  std::string target;  // a rule id, or "category:NAME"
  std::optional<dlp::Action> request;
  std::optional<dlp::Action> response;
  int line = 0;
};
struct PolicyRuleRef {
  std::string target;  // a rule id, or "category:NAME"
  int line = 0;
};
// `thresholds: {injection-detector: 150}`: a detector's score threshold for this entry.
struct PolicyThreshold {
  std::string detector;  // a detector's rule id
  int value = 0;         // 1..dlp::kMaxWeight
  int line = 0;
};
struct PolicyConfig {
  int line = 0;  // of the list item, for `policy explain` and errors
  std::string server = "*";
  std::string tool = "*";  // "" (no tool) for messages that name none; "*" matches those too
  std::string client = "*";
  int server_line = 0;
  bool deny = false;  // hides the tool from tools/list and refuses calls to it
  std::vector<PolicyRuleAction> actions;
  std::vector<PolicyRuleRef> disable_rules;
  std::optional<std::uint64_t> max_argument_bytes;  // of params.arguments as JSON
  std::vector<PolicyThreshold> thresholds;
};

// The `pins:` section: tool pinning (rug-pull detection).
struct PinsConfig {
  bool enabled = true;
  enum class OnChange : std::uint8_t { kHide, kWarn };
  OnChange on_change = OnChange::kHide;
};

// One client of the gateway (`auth.clients.NAME`, or "*" for every client
// not listed): the servers it may use and its limits.
struct ClientConfig {
  std::string name;
  std::vector<std::string> servers;  // server names; "*" alone means every server
  std::uint32_t max_sessions = 0;    // 0: only the global limits.max_sessions applies
  double rate_per_second = 0;        // requests per second, token bucket; 0: no limit
  std::uint32_t rate_burst = 0;      // bucket size (default: max(1, rate_per_second))
};

// A static bearer token: the SHA-256 of the token (never the token itself).
struct TokenConfig {
  std::string client;
  std::string sha256_hex;  // 64 lower-case hex digits
  int line = 0;
};

struct JwtConfig {
  std::string jwks_file;  // absolute
  std::string jwks;       // the file's text, checked at load (config/auth_section.cc)
  std::string issuer;
  std::vector<std::string> audiences;  // the token's aud must name one of them
  std::string client_claim = "sub";
  std::chrono::seconds leeway{60};  // clock skew allowed on exp and nbf
};

// The `auth:` section. Auth is on when it lists tokens or a jwt verifier.
struct AuthConfig {
  std::vector<TokenConfig> tokens;
  std::optional<JwtConfig> jwt;
  // For the protected-resource metadata document (RFC 9728) and the 401s.
  std::vector<std::string> authorization_servers;
  // The gateway's public base URL (https://gw.example.com); when empty, the
  // scheme it serves and the request's Host header.
  std::string public_url;
  std::map<std::string, ClientConfig> clients;  // by name; "*" for unlisted clients
  [[nodiscard]] bool enabled() const { return !tokens.empty() || jwt.has_value(); }
};

// The `tls:` section: serve HTTPS (TLS 1.2 and up) instead of HTTP.
struct TlsConfig {
  std::string cert_file;  // PEM chain, absolute
  std::string key_file;   // PEM private key, absolute
  [[nodiscard]] bool enabled() const { return !cert_file.empty(); }
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
  // Host header names the gateway answers to (config::hostAllowed); empty:
  // loopback names only without auth, any plain host name with auth.
  std::vector<std::string> allowed_hosts;
  std::map<std::string, ServerConfig> servers;
  std::string servers_key = "servers";  // the key the file lists them under ("mcpServers")
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
  AuditConfig audit;
  AggregateConfig aggregate;
  std::vector<PolicyConfig> policies;  // in file order
  PinsConfig pins;
  AuthConfig auth;
  // Listening beyond loopback without auth is refused unless this says so.
  bool insecure_no_auth = false;
  TlsConfig tls;
};

// The entry of `client` under auth.clients, else the "*" entry, else null
// (a client with neither may use no server).
[[nodiscard]] const ClientConfig* findClient(const AuthConfig& auth, std::string_view client);

// Loads a YAML config, or a JSON file in the Claude Desktop / Cursor / VS Code
// `{"mcpServers": {...}}` format, and validates it. Never throws; every error
// is "FILE:LINE: message" (or "FILE: message" where no line applies).
// ${secret:NAME} references are resolved from the encrypted store unless
// `resolve_secrets` is false (`mcpgate secret`, which only needs state_dir,
// must work before the secrets a config names exist).
struct LoadOptions {
  bool resolve_secrets = true;
};
[[nodiscard]] std::expected<std::shared_ptr<const Config>, Error> loadConfig(
    const std::string& path, LoadOptions options = {});

// The effective config (defaults filled in) as YAML, for `mcpgate config check`.
// Environment values are shown as "<set>": they often hold secrets.
[[nodiscard]] std::string describeConfig(const Config& config);

}  // namespace mcpgate::config
