// loadConfig and describeConfig: the config file's schema and its validation.
//
// yaml-cpp parses both YAML and the JSON `mcpServers` files (YAML is a superset
// of JSON), which gives line numbers for JSON errors too. Every yaml-cpp
// exception stops at loadConfig; callers only ever see config::Error.

#include <fcntl.h>
#include <unistd.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "config/address.h"
#include "config/config.h"
#include "config/dlp_section.h"
#include "config/expand.h"
#include "config/origin.h"
#include "config/units.h"
#include "config/yaml_support.h"
#include "sandbox/command.h"
#include "sandbox/policy.h"
#include "sandbox/uts.h"

namespace mcpgate::config {

namespace detail {

int lineOf(const YAML::Node& node) { return node.Mark().is_null() ? 0 : node.Mark().line + 1; }

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string unknownKeyMessage(std::string_view key, std::string_view where,
                              std::initializer_list<std::string_view> known) {
  std::string message = "unknown key '" + std::string(key) + "' " + std::string(where);
  std::string_view best;
  std::size_t best_distance = 3;  // more than two edits apart is a different word
  for (std::string_view candidate : known) {
    const std::size_t distance = editDistance(key, candidate);
    if (distance < best_distance && distance < key.size()) {
      best = candidate;
      best_distance = distance;
    }
  }
  if (!best.empty()) message += " (did you mean '" + std::string(best) + "'?)";
  return message;
}

}  // namespace detail

namespace {

using detail::lineOf;

namespace fs = std::filesystem;

// A config is a few KiB. Refusing big files keeps a wrong path (a log, a
// device) from being slurped into memory and parsed.
constexpr std::size_t kMaxFileBytes = 1024 * 1024;

constexpr std::uint32_t kMaxJsonDepth = 10000;
constexpr std::uint32_t kMaxSessions = 1000000;

// Keys that JSON client configs (Claude Desktop, Cursor, Cline, ...) carry for
// the client's own use; they mean nothing to the gateway. Keys that would change
// what the server can do (a tool filter, say) are deliberately not here: they
// are errors, so nobody believes a restriction is enforced when it is not.
constexpr std::array<std::string_view, 4> kIgnoredClientKeys = {"autoApprove", "alwaysAllow",
                                                                "timeout", "description"};

constexpr std::string_view kRemoteUnsupported =
    "remote servers are not supported yet (only stdio servers started with 'command')";

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_;
};

std::string errnoMessage(int error) { return std::generic_category().message(error); }

std::expected<std::string, Error> readFile(const std::string& path) {
  const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return std::unexpected(Error{path + ": cannot read: " + errnoMessage(errno)});
  std::string text;
  char buffer[16384];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::unexpected(Error{path + ": cannot read: " + errnoMessage(errno)});
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxFileBytes) {
      return std::unexpected(Error{path + ": cannot read: larger than " +
                                   formatSize(kMaxFileBytes) +
                                   ", which is far more than any config needs"});
    }
  }
  return text;
}

// What the sandbox would refuse at spawn time, refused at load instead: the
// command resolved in the sandbox's fixed PATH (names at startup, not per
// spawn) and checked against the allowlist and argument deny patterns with
// the sandbox's own functions, and an absolute command that would not be
// visible inside the sandbox (only /usr and the binds are).
std::expected<void, std::string> checkRunnable(const ServerConfig& server) {
  auto resolved = sandbox::resolveCommand(server.command);
  if (!resolved) return std::unexpected(resolved.error().message);
  if (auto allowed = sandbox::checkCommand(server.sandbox, server.command, *resolved, server.args);
      !allowed) {
    return std::unexpected(allowed.error().message);
  }
  const auto under = [&](const std::string& dir) {
    return resolved->starts_with(dir.ends_with('/') ? dir : dir + "/");
  };
  if (under("/usr") || std::ranges::any_of(server.sandbox.binds, [&](const sandbox::Bind& bind) {
        return under(bind.dst);
      })) {
    return {};
  }
  return std::unexpected("'" + *resolved +
                         "' is not visible inside the sandbox, which shows only /usr and the "
                         "server's binds: bind its directory (sandbox.binds) or install it "
                         "under /usr");
}

// What one `sandbox:` section sets; unset fields keep what is below it (the
// defaults under the global section, the global policy under a server's).
struct SandboxSettings {
  int line = 0;  // of the `sandbox` key
  std::optional<sandbox::OnUnavailable> on_unavailable;
  std::optional<sandbox::NetworkMode> network;
  std::optional<std::vector<std::string>> commands;
  std::optional<std::uint64_t> memory_bytes;
  std::optional<std::uint64_t> processes;
  std::optional<std::uint64_t> open_files;
  std::optional<std::uint64_t> cpu_seconds;
  std::optional<std::uint64_t> file_size_bytes;
  std::optional<std::uint64_t> tmpfs_bytes;
  std::vector<sandbox::Bind> binds;
  std::vector<std::pair<std::string, std::string>> env;
  std::optional<std::string> hostname;
};

void applySettings(const SandboxSettings& settings, sandbox::SandboxPolicy& policy) {
  if (settings.on_unavailable) policy.on_unavailable = *settings.on_unavailable;
  if (settings.network) policy.network = *settings.network;
  if (settings.commands) policy.commands = *settings.commands;
  const auto set = [](const std::optional<std::uint64_t>& from, std::uint64_t& to) {
    if (from) to = *from;
  };
  set(settings.memory_bytes, policy.limits.memory_bytes);
  set(settings.processes, policy.limits.processes);
  set(settings.open_files, policy.limits.open_files);
  set(settings.cpu_seconds, policy.limits.cpu_seconds);
  set(settings.file_size_bytes, policy.limits.file_size_bytes);
  set(settings.tmpfs_bytes, policy.limits.tmpfs_bytes);
  if (settings.hostname) policy.hostname = *settings.hostname;
  // A server's bind or variable replaces the global one it names, so a server
  // can narrow a global rw bind to ro; anything else is added.
  for (const sandbox::Bind& bind : settings.binds) {
    auto same = std::ranges::find(policy.binds, bind.dst, &sandbox::Bind::dst);
    if (same != policy.binds.end()) {
      *same = bind;
    } else {
      policy.binds.push_back(bind);
    }
  }
  for (const auto& [name, value] : settings.env) {
    auto same = std::ranges::find(policy.env, name, &std::pair<std::string, std::string>::first);
    if (same != policy.env.end()) {
      same->second = value;
    } else {
      policy.env.emplace_back(name, value);
    }
  }
}

// What the loader keeps about a server beyond ServerConfig until the whole
// file is read (the global `sandbox:` section may come after `servers:`).
struct ServerExtra {
  std::string path;  // "servers.NAME" or "mcpServers.NAME"
  int command_line = 0;
  std::optional<SandboxSettings> sandbox;
};

// One key: value pair of a map, with the key's position kept for messages.
struct Entry {
  std::string key;
  YAML::Node key_node;
  YAML::Node value;

  // An empty value's mark is that of the next token, often on a later line;
  // the key's line is where the reader looks.
  [[nodiscard]] int line() const { return value.IsNull() ? lineOf(key_node) : lineOf(value); }
};

class Loader {
 public:
  Loader(std::string file, fs::path dir) : file_(std::move(file)), dir_(std::move(dir)) {}

  [[nodiscard]] std::expected<void, Error> load(const YAML::Node& root, Config& config) const {
    auto top = entries(root, "at top level");
    if (!top) return std::unexpected(top.error());
    const Entry* servers = nullptr;
    std::optional<SandboxSettings> global_sandbox;
    std::map<std::string, ServerExtra> extras;
    for (const Entry& e : *top) {
      std::expected<void, Error> done;
      if (e.key == "listen") {
        done = loadListen(e, config);
      } else if (e.key == "allowed_origins") {
        done = loadOrigins(e, config);
      } else if (e.key == "log_level") {
        done = loadLogLevel(e, config);
      } else if (e.key == "cache_dir") {
        done = loadCacheDir(e, config);
      } else if (e.key == "session") {
        done = loadSession(e, config.session);
      } else if (e.key == "limits") {
        done = loadLimits(e, config.limits);
      } else if (e.key == "servers" || e.key == "mcpServers") {
        if (servers != nullptr) {
          return fail(lineOf(e.key_node), "use either 'servers' or 'mcpServers', not both");
        }
        servers = &e;
        done = loadServers(e, config.servers, extras);
      } else if (e.key == "sandbox") {
        auto settings = loadSandbox(e, "sandbox", /*global=*/true);
        if (settings) {
          global_sandbox = std::move(*settings);
        } else {
          done = std::unexpected(settings.error());
        }
      } else if (e.key == "dlp") {
        done = loadDlpSection(e.key_node, e.value, file_, dir_, config.dlp);
      } else {
        done = unknownKey(e, "at top level",
                          {"listen", "allowed_origins", "log_level", "cache_dir", "servers",
                           "mcpServers", "session", "limits", "sandbox", "dlp"});
      }
      if (!done) return done;
    }
    if (servers == nullptr) return std::unexpected(Error{file_ + ": no servers configured"});
    return resolveSandboxes(global_sandbox, extras, config);
  }

 private:
  [[nodiscard]] Error error(int line, std::string_view message) const {
    return Error{file_ + ":" + std::to_string(line) + ": " + std::string(message)};
  }

  [[nodiscard]] std::unexpected<Error> fail(int line, std::string_view message) const {
    return std::unexpected(error(line, message));
  }

  // The pairs of a map in file order. yaml-cpp keeps both pairs of a duplicated
  // key; a second value silently winning would hide a mistake, so it is an error.
  [[nodiscard]] std::expected<std::vector<Entry>, Error> entries(const YAML::Node& map,
                                                                 std::string_view where) const {
    std::vector<Entry> out;
    if (map.IsNull()) return out;
    std::map<std::string, int, std::less<>> first_line;
    for (auto it = map.begin(); it != map.end(); ++it) {
      if (!it->first.IsScalar()) {
        return fail(lineOf(it->first), "keys " + std::string(where) + " must be strings");
      }
      Entry e{it->first.Scalar(), it->first, it->second};
      const auto [seen, inserted] = first_line.emplace(e.key, lineOf(e.key_node));
      if (!inserted) {
        return fail(lineOf(e.key_node), "duplicate key '" + e.key + "' " + std::string(where) +
                                            " (first on line " + std::to_string(seen->second) +
                                            ")");
      }
      out.push_back(std::move(e));
    }
    return out;
  }

  [[nodiscard]] std::unexpected<Error> unknownKey(
      const Entry& e, std::string_view where, std::initializer_list<std::string_view> known) const {
    return fail(lineOf(e.key_node), detail::unknownKeyMessage(e.key, where, known));
  }

  // A scalar value as written ("3" stays "3"). NUL bytes (from a "\0" escape)
  // are refused: exec and getenv would silently cut the string there.
  [[nodiscard]] std::expected<std::string, Error> scalar(const YAML::Node& node, int line,
                                                         const std::string& path,
                                                         std::string_view kind) const {
    if (!node.IsScalar()) return fail(line, path + " must be " + std::string(kind));
    if (node.Scalar().find('\0') != std::string::npos) {
      return fail(line, path + " must not contain a NUL byte");
    }
    return node.Scalar();
  }

  [[nodiscard]] std::expected<std::string, Error> scalar(const Entry& e, const std::string& path,
                                                         std::string_view kind) const {
    return scalar(e.value, e.line(), path, kind);
  }

  [[nodiscard]] std::expected<void, Error> loadListen(const Entry& e, Config& config) const {
    auto text = scalar(e, "listen", "a string such as 127.0.0.1:8080");
    if (!text) return std::unexpected(text.error());
    auto address = parseHostPort(*text);
    if (!address) return fail(e.line(), "listen '" + *text + "' " + address.error());
    config.listen_host = std::move(address->host);
    config.listen_port = address->port;
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadOrigins(const Entry& e, Config& config) const {
    constexpr std::string_view kKind = "a list of origins such as http://localhost:3000";
    if (!e.value.IsSequence())
      return fail(e.line(), "allowed_origins must be " + std::string(kKind));
    if (e.value.size() == 0) {
      // Empty means "the localhost default" inside Config; an explicit [] most
      // likely meant "no browser at all", so make the author say what they want.
      return fail(e.line(),
                  "allowed_origins is empty: remove it for the default (http and https on "
                  "localhost, 127.0.0.1 and [::1]) or list the allowed origins");
    }
    for (const YAML::Node& item : e.value) {
      auto origin = scalar(item, lineOf(item), "allowed_origins", kKind);
      if (!origin) return std::unexpected(origin.error());
      if (!isValidOriginEntry(*origin)) {
        return fail(lineOf(item), "allowed_origins entry '" + *origin +
                                      "' must be '*' or SCHEME://HOST[:PORT] with scheme http or "
                                      "https and no path");
      }
      config.allowed_origins.push_back(std::move(*origin));
    }
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadLogLevel(const Entry& e, Config& config) const {
    constexpr std::string_view kKind = "one of debug, info, warn, error";
    auto level = scalar(e, "log_level", kKind);
    if (!level) return std::unexpected(level.error());
    if (*level != "debug" && *level != "info" && *level != "warn" && *level != "error") {
      return fail(e.line(), "log_level '" + *level + "' must be " + std::string(kKind));
    }
    config.log_level = std::move(*level);
    return {};
  }

  // Need not exist yet: `mcpgate install` creates it.
  [[nodiscard]] std::expected<void, Error> loadCacheDir(const Entry& e, Config& config) const {
    auto text = scalar(e, "cache_dir", "a directory path");
    if (!text) return std::unexpected(text.error());
    if (text->empty()) return fail(e.line(), "cache_dir must not be empty");
    const fs::path written(*text);
    std::string resolved = (written.is_absolute() ? written : dir_ / written).lexically_normal();
    if (resolved.size() > 1 && resolved.ends_with('/')) resolved.pop_back();
    config.cache_dir = std::move(resolved);
    return {};
  }

  // A map section whose empty value (`session:` alone) means "all defaults".
  [[nodiscard]] std::expected<std::vector<Entry>, Error> section(const Entry& e) const {
    if (!e.value.IsMap() && !e.value.IsNull()) return fail(e.line(), e.key + " must be a map");
    return entries(e.value, "in " + e.key);
  }

  [[nodiscard]] std::expected<std::chrono::milliseconds, Error> duration(
      const Entry& e, const std::string& path) const {
    auto text = scalar(e, path, "a duration such as 10s");
    if (!text) return std::unexpected(text.error());
    auto value = parseDuration(*text);
    if (!value) return fail(e.line(), path + " '" + *text + "' " + value.error());
    if (value->count() == 0) return fail(e.line(), path + " must be greater than 0");
    return *value;
  }

  [[nodiscard]] std::expected<std::uint64_t, Error> size(const Entry& e,
                                                         const std::string& path) const {
    auto text = scalar(e, path, "a size such as 4MiB");
    if (!text) return std::unexpected(text.error());
    auto value = parseSize(*text);
    if (!value) return fail(e.line(), path + " '" + *text + "' " + value.error());
    if (*value == 0) return fail(e.line(), path + " must be greater than 0");
    return *value;
  }

  // A decimal integer in [min, max]; `range` says so in the error.
  [[nodiscard]] std::expected<std::uint64_t, Error> integerInRange(const Entry& e,
                                                                   const std::string& path,
                                                                   std::uint64_t min,
                                                                   std::uint64_t max,
                                                                   const std::string& range) const {
    auto text = scalar(e, path, range);
    if (!text) return std::unexpected(text.error());
    std::uint64_t value = 0;
    bool valid = !text->empty() && text->size() <= 10;
    for (char c : *text) {
      valid = valid && c >= '0' && c <= '9';
      if (valid) value = value * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (!valid || value < min || value > max) {
      return fail(e.line(), path + " '" + *text + "' must be " + range);
    }
    return value;
  }

  [[nodiscard]] std::expected<std::uint32_t, Error> count(const Entry& e, const std::string& path,
                                                          std::uint32_t max) const {
    auto value = integerInRange(e, path, 1, max, "an integer from 1 to " + std::to_string(max));
    if (!value) return std::unexpected(value.error());
    return static_cast<std::uint32_t>(*value);
  }

  [[nodiscard]] std::expected<void, Error> loadSession(const Entry& e,
                                                       SessionConfig& session) const {
    auto items = section(e);
    if (!items) return std::unexpected(items.error());
    for (const Entry& item : *items) {
      std::chrono::milliseconds* target = nullptr;
      if (item.key == "idle_timeout") {
        target = &session.idle_timeout;
      } else if (item.key == "grace") {
        target = &session.grace;
      } else if (item.key == "request_timeout") {
        target = &session.request_timeout;
      } else {
        return unknownKey(item, "in session", {"idle_timeout", "grace", "request_timeout"});
      }
      auto value = duration(item, "session." + item.key);
      if (!value) return std::unexpected(value.error());
      *target = *value;
    }
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadLimits(const Entry& e, LimitsConfig& limits) const {
    auto items = section(e);
    if (!items) return std::unexpected(items.error());
    for (const Entry& item : *items) {
      const std::string path = "limits." + item.key;
      if (item.key == "max_body_bytes" || item.key == "max_line_bytes") {
        auto value = size(item, path);
        if (!value) return std::unexpected(value.error());
        (item.key == "max_body_bytes" ? limits.max_body_bytes : limits.max_line_bytes) = *value;
      } else if (item.key == "max_json_depth") {
        auto value = count(item, path, kMaxJsonDepth);
        if (!value) return std::unexpected(value.error());
        limits.max_json_depth = *value;
      } else if (item.key == "max_sessions") {
        auto value = count(item, path, kMaxSessions);
        if (!value) return std::unexpected(value.error());
        limits.max_sessions = *value;
      } else {
        return unknownKey(item, "in limits",
                          {"max_body_bytes", "max_json_depth", "max_line_bytes", "max_sessions"});
      }
    }
    return {};
  }

  // Every server's effective policy, and the allowlist check, once the whole
  // file is read.
  [[nodiscard]] std::expected<void, Error> resolveSandboxes(
      const std::optional<SandboxSettings>& global,
      const std::map<std::string, ServerExtra>& extras, Config& config) const {
    if (global) applySettings(*global, config.sandbox);
    for (auto& [name, server] : config.servers) {
      const ServerExtra& extra = extras.at(name);
      server.sandbox = config.sandbox;
      if (extra.sandbox) applySettings(*extra.sandbox, server.sandbox);
      if (auto runnable = checkRunnable(server); !runnable) {
        return fail(extra.command_line, extra.path + ".command: " + runnable.error());
      }
      // The checks above cover what validatePolicy knows today; this keeps a
      // check added there from being skipped by configs.
      if (auto valid = sandbox::validatePolicy(server.sandbox); !valid) {
        const int line = extra.sandbox ? extra.sandbox->line : (global ? global->line : 0);
        return fail(line, extra.path + ".sandbox: " + valid.error().message);
      }
    }
    return {};
  }

  [[nodiscard]] std::expected<SandboxSettings, Error> loadSandbox(const Entry& e,
                                                                  const std::string& path,
                                                                  bool global) const {
    if (!e.value.IsMap() && !e.value.IsNull()) return fail(e.line(), path + " must be a map");
    auto items = entries(e.value, "in " + path);
    if (!items) return std::unexpected(items.error());
    SandboxSettings settings;
    settings.line = lineOf(e.key_node);
    for (const Entry& item : *items) {
      const std::string item_path = path + "." + item.key;
      std::expected<void, Error> done;
      if (global && item.key == "on_unavailable") {
        done = loadChoice(item, item_path, {"fail", "degrade"}, [&](std::string_view v) {
          settings.on_unavailable =
              v == "fail" ? sandbox::OnUnavailable::kFail : sandbox::OnUnavailable::kDegrade;
        });
      } else if (item.key == "network") {
        done = loadChoice(item, item_path, {"none", "host"}, [&](std::string_view v) {
          settings.network =
              v == "none" ? sandbox::NetworkMode::kNone : sandbox::NetworkMode::kHost;
        });
      } else if (global && item.key == "commands") {
        done = loadCommands(item, item_path, settings);
      } else if (item.key == "limits") {
        done = loadSandboxLimits(item, item_path, settings);
      } else if (item.key == "binds") {
        done = loadBinds(item, item_path, settings);
      } else if (item.key == "env") {
        done = loadEnv(item, item_path, settings.env);
      } else if (!global && item.key == "hostname") {
        done = loadHostname(item, item_path, settings);
      } else if (!global && (item.key == "commands" || item.key == "on_unavailable")) {
        done = fail(lineOf(item.key_node),
                    item_path + " can only be set in the top-level sandbox section (sandbox." +
                        item.key + "), which applies to every server");
      } else if (global && item.key == "hostname") {
        done = fail(lineOf(item.key_node),
                    "sandbox.hostname can only be set per server "
                    "(servers.NAME.sandbox.hostname; the default is mcp-NAME)");
      } else if (global) {
        done = unknownKey(item, "in " + path,
                          {"on_unavailable", "network", "commands", "limits", "binds", "env"});
      } else {
        done = unknownKey(item, "in " + path, {"network", "limits", "binds", "env", "hostname"});
      }
      if (!done) return std::unexpected(done.error());
    }
    return settings;
  }

  template <typename Apply>
  [[nodiscard]] std::expected<void, Error> loadChoice(
      const Entry& e, const std::string& path, std::initializer_list<std::string_view> choices,
      Apply apply) const {
    std::string alternatives;
    for (std::string_view choice : choices) {
      alternatives += std::string(alternatives.empty() ? "" : " or ") + std::string(choice);
    }
    auto text = scalar(e, path, alternatives);
    if (!text) return std::unexpected(text.error());
    if (std::ranges::find(choices, std::string_view(*text)) == choices.end()) {
      return fail(e.line(), path + " '" + *text + "' must be " + alternatives);
    }
    apply(std::string_view(*text));
    return {};
  }

  [[nodiscard]] static bool isAllowlistEntry(const std::string& entry) {
    if (entry.empty() || entry == "." || entry == "..") return false;
    if (entry.find('/') == std::string::npos) return true;
    // Compared exactly with the resolved path at spawn time: only a normal
    // absolute path can ever match.
    return entry.front() == '/' && entry.back() != '/' &&
           fs::path(entry).lexically_normal().string() == entry;
  }

  [[nodiscard]] std::expected<void, Error> loadCommands(const Entry& e, const std::string& path,
                                                        SandboxSettings& settings) const {
    constexpr std::string_view kKind = "a list of command names or absolute paths";
    if (!e.value.IsSequence()) return fail(e.line(), path + " must be " + std::string(kKind));
    std::vector<std::string> commands;
    for (const YAML::Node& item : e.value) {
      auto command = scalar(item, lineOf(item), path, kKind);
      if (!command) return std::unexpected(command.error());
      if (!isAllowlistEntry(*command)) {
        return fail(lineOf(item), path + " entry '" + *command +
                                      "' must be a command name (looked up in the sandbox's "
                                      "fixed PATH) or a normalized absolute path");
      }
      commands.push_back(std::move(*command));
    }
    settings.commands = std::move(commands);
    return {};
  }

  // Zero is "no limit" for every sandbox limit, as in SandboxPolicy.
  [[nodiscard]] std::expected<void, Error> loadSandboxLimits(const Entry& e,
                                                             const std::string& path,
                                                             SandboxSettings& settings) const {
    if (!e.value.IsMap() && !e.value.IsNull()) return fail(e.line(), path + " must be a map");
    auto items = entries(e.value, "in " + path);
    if (!items) return std::unexpected(items.error());
    for (const Entry& item : *items) {
      const std::string item_path = path + "." + item.key;
      std::optional<std::uint64_t>* target = nullptr;
      const bool is_size = item.key == "memory" || item.key == "file_size" || item.key == "tmpfs";
      if (item.key == "memory") {
        target = &settings.memory_bytes;
      } else if (item.key == "file_size") {
        target = &settings.file_size_bytes;
      } else if (item.key == "tmpfs") {
        target = &settings.tmpfs_bytes;
      } else if (item.key == "processes") {
        target = &settings.processes;
      } else if (item.key == "open_files") {
        target = &settings.open_files;
      } else if (item.key == "cpu_seconds") {
        target = &settings.cpu_seconds;
      } else {
        return unknownKey(
            item, "in " + path,
            {"memory", "processes", "open_files", "cpu_seconds", "file_size", "tmpfs"});
      }
      auto value = is_size ? sandboxSize(item, item_path) : sandboxCount(item, item_path);
      if (!value) return std::unexpected(value.error());
      if (item.key == "tmpfs" && *value != 0 && *value < 4096) {
        return fail(item.line(), item_path + " '" + item.value.Scalar() +
                                     "' must be 0 (no limit) or at least 4KiB");
      }
      *target = *value;
    }
    return {};
  }

  [[nodiscard]] std::expected<std::uint64_t, Error> sandboxSize(const Entry& e,
                                                                const std::string& path) const {
    auto text = scalar(e, path, "a size such as 64MiB (0 for no limit)");
    if (!text) return std::unexpected(text.error());
    auto value = parseSize(*text);
    if (!value) return fail(e.line(), path + " '" + *text + "' " + value.error());
    return *value;
  }

  [[nodiscard]] std::expected<std::uint64_t, Error> sandboxCount(const Entry& e,
                                                                 const std::string& path) const {
    constexpr std::uint64_t kMax = 1000000000;
    return integerInRange(e, path, 0, kMax,
                          "an integer from 0 (no limit) to " + std::to_string(kMax));
  }

  [[nodiscard]] static bool hasDotDot(const std::string& path) {
    return path == ".." || path.starts_with("../") || path.find("/../") != std::string::npos ||
           path.ends_with("/..");
  }

  [[nodiscard]] std::expected<void, Error> loadBinds(const Entry& e, const std::string& path,
                                                     SandboxSettings& settings) const {
    constexpr std::string_view kKind = "a list of {src, dst, ro} maps";
    if (e.value.IsNull()) return {};
    if (!e.value.IsSequence()) return fail(e.line(), path + " must be " + std::string(kKind));
    std::map<std::string, std::size_t> dsts;
    for (std::size_t i = 0; i < e.value.size(); ++i) {
      const YAML::Node item = e.value[i];
      const std::string bind_path = path + "[" + std::to_string(i) + "]";
      if (!item.IsMap()) {
        return fail(lineOf(item), bind_path + " must be a map with src, dst and optionally ro");
      }
      auto fields = entries(item, "in " + bind_path);
      if (!fields) return std::unexpected(fields.error());
      sandbox::Bind bind;
      const Entry* src = nullptr;
      const Entry* dst = nullptr;
      for (const Entry& field : *fields) {
        const std::string field_path = bind_path + "." + field.key;
        if (field.key == "src" || field.key == "dst") {
          auto text = scalar(field, field_path, "an absolute path");
          if (!text) return std::unexpected(text.error());
          (field.key == "src" ? bind.src : bind.dst) = std::move(*text);
          (field.key == "src" ? src : dst) = &field;
        } else if (field.key == "ro") {
          auto flag = scalar(field, field_path, "true or false");
          if (!flag) return std::unexpected(flag.error());
          if (*flag != "true" && *flag != "false") {
            return fail(field.line(), field_path + " must be true or false");
          }
          bind.ro = *flag == "true";
        } else {
          return unknownKey(field, "in " + bind_path, {"src", "dst", "ro"});
        }
      }
      for (const char* key : {"src", "dst"}) {
        if ((key[0] == 's' ? src : dst) == nullptr) {
          return fail(lineOf(item), bind_path + ": missing required key '" + key + "'");
        }
      }
      std::string src_path = bind_path + ".src '" + bind.src + "'";
      const std::string dst_path = bind_path + ".dst '" + bind.dst + "'";
      // Like cwd, a relative src is relative to the config file's directory,
      // so a config can travel with the files it binds.
      if (bind.src.empty()) return fail(src->line(), src_path + " must not be empty");
      bind.src = (dir_ / bind.src).lexically_normal().string();
      if (bind.src.size() > 1 && bind.src.ends_with('/')) bind.src.pop_back();
      if (!src_path.ends_with("'" + bind.src + "'")) src_path += " (" + bind.src + ")";
      if (bind.dst.empty() || bind.dst.front() != '/' || bind.dst == "/") {
        return fail(dst->line(), dst_path + " must be an absolute path other than /");
      }
      if (hasDotDot(bind.dst)) return fail(dst->line(), dst_path + " must not contain '..'");
      std::error_code ec;
      const fs::file_status status = fs::status(bind.src, ec);
      if (status.type() == fs::file_type::not_found) {
        return fail(src->line(), src_path + " does not exist on this host");
      }
      if (ec) return fail(src->line(), src_path + " cannot be checked: " + ec.message());
      const auto [first, inserted] = dsts.emplace(bind.dst, i);
      if (!inserted) {
        return fail(dst->line(), dst_path + " is already the dst of " + path + "[" +
                                     std::to_string(first->second) + "]");
      }
      settings.binds.push_back(std::move(bind));
    }
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadHostname(const Entry& e, const std::string& path,
                                                        SandboxSettings& settings) const {
    auto text = scalar(e, path, "a hostname");
    if (!text) return std::unexpected(text.error());
    const bool valid =
        !text->empty() && text->size() <= 64 && std::ranges::all_of(*text, [](char c) {
          return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '.';
        });
    if (!valid) {
      return fail(e.line(), path + " '" + *text + "' must be 1 to 64 of A-Z a-z 0-9 - .");
    }
    settings.hostname = std::move(*text);
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadServers(
      const Entry& e, std::map<std::string, ServerConfig>& servers,
      std::map<std::string, ServerExtra>& extras) const {
    if (!e.value.IsMap() && !e.value.IsNull()) {
      return fail(e.line(), e.key + " must be a map from server names to servers");
    }
    auto items = entries(e.value, "in " + e.key);
    if (!items) return std::unexpected(items.error());
    // `mcpServers` is the clients' JSON format, with their extra keys.
    const bool client_format = e.key == "mcpServers";
    for (const Entry& item : *items) {
      if (!isValidServerName(item.key)) {
        return fail(lineOf(item.key_node),
                    "server name '" + item.key +
                        "' must be 1 to 64 of A-Z a-z 0-9 _ . - and not '.' or '..' (it is the "
                        "URL path /mcp/NAME)");
      }
      ServerExtra extra{e.key + "." + item.key, 0, std::nullopt};
      auto server = loadServer(item, extra.path, client_format, extra);
      if (!server) return std::unexpected(server.error());
      if (*server) {
        servers.emplace(item.key, std::move(**server));
        extras.emplace(item.key, std::move(extra));
      }
    }
    if (servers.empty()) {
      return fail(lineOf(e.key_node), items->empty() ? "no servers configured"
                                                     : "no servers configured (all are disabled)");
    }
    return {};
  }

  [[nodiscard]] static bool isValidServerName(std::string_view name) {
    if (name.empty() || name.size() > 64 || name == "." || name == "..") return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
      return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
             c == '_' || c == '.' || c == '-';
    });
  }

  // Returns nullopt for a server the client format marks "disabled": true.
  [[nodiscard]] std::expected<std::optional<ServerConfig>, Error> loadServer(
      const Entry& e, const std::string& path, bool client_format, ServerExtra& extra) const {
    if (!e.value.IsMap() && !e.value.IsNull()) return fail(e.line(), path + " must be a map");
    auto items = entries(e.value, "in " + path);
    if (!items) return std::unexpected(items.error());
    if (client_format) {
      // Settled before anything else: the clients skip a disabled entry whole,
      // however incomplete it is.
      for (const Entry& item : *items) {
        if (item.key != "disabled") continue;
        auto flag = scalar(item, path + ".disabled", "true or false");
        if (!flag) return std::unexpected(flag.error());
        if (*flag != "true" && *flag != "false") {
          return fail(item.line(), path + ".disabled must be true or false");
        }
        if (*flag == "true") return std::nullopt;
      }
    }
    ServerConfig server;
    server.name = e.key;
    server.cwd = dir_.string();
    bool has_command = false;
    for (const Entry& item : *items) {
      const std::string item_path = path + "." + item.key;
      std::expected<void, Error> done;
      if (item.key == "command") {
        done = loadCommand(item, item_path, server);
        has_command = true;
        extra.command_line = item.line();
      } else if (item.key == "args") {
        done = loadArgs(item, item_path, server);
      } else if (item.key == "env") {
        done = loadEnv(item, item_path, server.env);
      } else if (item.key == "cwd") {
        done = loadCwd(item, item_path, server);
      } else if (item.key == "sandbox") {
        auto settings = loadSandbox(item, item_path, /*global=*/false);
        if (settings) {
          extra.sandbox = std::move(*settings);
        } else {
          done = std::unexpected(settings.error());
        }
      } else if (client_format && (item.key == "type" || item.key == "transportType")) {
        auto type = scalar(item, item_path, "a string");
        if (!type) return std::unexpected(type.error());
        if (*type != "stdio") {
          return fail(item.line(),
                      item_path + " '" + *type + "': " + std::string(kRemoteUnsupported));
        }
      } else if (client_format && (item.key == "url" || item.key == "serverUrl")) {
        return fail(lineOf(item.key_node), item_path + ": " + std::string(kRemoteUnsupported));
      } else if (client_format && item.key == "envFile") {
        return fail(lineOf(item.key_node),
                    item_path + " is not supported yet (list the variables under 'env')");
      } else if (client_format && (item.key == "disabled" ||
                                   std::find(kIgnoredClientKeys.begin(), kIgnoredClientKeys.end(),
                                             item.key) != kIgnoredClientKeys.end())) {
        continue;
      } else if (client_format) {
        done = unknownKey(item, "in " + path,
                          {"command", "args", "env", "cwd", "sandbox", "type", "disabled",
                           "autoApprove", "alwaysAllow", "timeout", "description"});
      } else {
        done = unknownKey(item, "in " + path, {"command", "args", "env", "cwd", "sandbox"});
      }
      if (!done) return std::unexpected(done.error());
    }
    if (!has_command) {
      return fail(lineOf(e.key_node), path + ": missing required key 'command'");
    }
    return server;
  }

  [[nodiscard]] std::expected<void, Error> loadCommand(const Entry& e, const std::string& path,
                                                       ServerConfig& server) const {
    auto command = scalar(e, path, "a string");
    if (!command) return std::unexpected(command.error());
    if (command->empty()) return fail(e.line(), path + " must not be empty");
    server.command = std::move(*command);
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadArgs(const Entry& e, const std::string& path,
                                                    ServerConfig& server) const {
    if (e.value.IsNull()) return {};
    if (!e.value.IsSequence()) return fail(e.line(), path + " must be a list of strings");
    for (const YAML::Node& item : e.value) {
      auto arg = scalar(item, lineOf(item), path, "a list of strings");
      if (!arg) return std::unexpected(arg.error());
      server.args.push_back(std::move(*arg));
    }
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadEnv(
      const Entry& e, const std::string& path,
      std::vector<std::pair<std::string, std::string>>& env) const {
    if (!e.value.IsMap() && !e.value.IsNull()) {
      return fail(e.line(), path + " must be a map of strings");
    }
    auto items = entries(e.value, "in " + path);
    if (!items) return std::unexpected(items.error());
    for (const Entry& item : *items) {
      if (!isEnvironmentName(item.key)) {
        return fail(lineOf(item.key_node),
                    path + " key '" + item.key +
                        "' is not a valid environment variable name (use [A-Za-z_][A-Za-z0-9_]*)");
      }
      auto raw = scalar(item, path, "a map of strings");
      if (!raw) return std::unexpected(raw.error());
      auto value = expandVariables(*raw, lookupEnvironment);
      if (!value) return fail(item.line(), path + "." + item.key + ": " + value.error());
      env.emplace_back(item.key, std::move(*value));
    }
    return {};
  }

  [[nodiscard]] static bool isEnvironmentName(std::string_view name) {
    if (name.empty() || (name.front() >= '0' && name.front() <= '9')) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
      return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
  }

  [[nodiscard]] std::expected<void, Error> loadCwd(const Entry& e, const std::string& path,
                                                   ServerConfig& server) const {
    auto text = scalar(e, path, "a string");
    if (!text) return std::unexpected(text.error());
    if (text->empty()) return fail(e.line(), path + " must not be empty");
    // Relative to the config file, not to wherever the gateway was started:
    // the same file must mean the same thing from any working directory.
    const fs::path written(*text);
    fs::path resolved = (written.is_absolute() ? written : dir_ / written).lexically_normal();
    if (!resolved.has_filename() && resolved != resolved.root_path()) {
      resolved = resolved.parent_path();  // drop the trailing '/' lexically_normal keeps
    }
    std::string shown = "'" + *text + "'";
    if (resolved.string() != *text) shown += " (" + resolved.string() + ")";
    std::error_code ec;
    const fs::file_status status = fs::status(resolved, ec);
    if (status.type() == fs::file_type::not_found) {
      return fail(e.line(), path + " " + shown + " does not exist");
    }
    if (ec) return fail(e.line(), path + " " + shown + " cannot be checked: " + ec.message());
    if (!fs::is_directory(status)) {
      return fail(e.line(), path + " " + shown + " is not a directory");
    }
    server.cwd = resolved.string();
    return {};
  }

  std::string file_;
  fs::path dir_;  // absolute directory of the config file
};

Error errorAt(const std::string& file, const YAML::Mark& mark, const std::string& message) {
  if (mark.is_null()) return Error{file + ": " + message};
  return Error{file + ":" + std::to_string(mark.line + 1) + ": " + message};
}

std::expected<std::shared_ptr<const Config>, Error> load(const std::string& path) {
  auto text = readFile(path);
  if (!text) return std::unexpected(text.error());
  const std::vector<YAML::Node> documents = YAML::LoadAll(*text);
  if (documents.empty() || documents[0].IsNull()) {
    return std::unexpected(Error{path + ": the file is empty: no servers configured"});
  }
  if (documents.size() > 1) {
    return std::unexpected(
        errorAt(path, documents[1].Mark(), "only one YAML document is allowed per file"));
  }
  const YAML::Node& root = documents[0];
  if (!root.IsMap()) {
    return std::unexpected(errorAt(
        path, root.Mark(), "the config must be a map with keys such as listen and servers"));
  }
  std::error_code ec;
  fs::path dir = fs::absolute(fs::path(path), ec).lexically_normal().parent_path();
  if (ec) return std::unexpected(Error{path + ": cannot resolve its directory: " + ec.message()});

  Config config;
  config.source = path;
  const Loader loader(path, std::move(dir));
  auto loaded = loader.load(root, config);
  if (!loaded) return std::unexpected(loaded.error());
  finishDlpSection(config.dlp);
  return std::make_shared<const Config>(std::move(config));
}

// Values often carry tokens, and this text ends up in terminals and logs.
void emitEnv(YAML::Emitter& out, const std::vector<std::pair<std::string, std::string>>& env) {
  if (env.empty()) out << YAML::Flow;
  out << YAML::BeginMap;
  for (const auto& [key, value] : env) out << YAML::Key << key << YAML::Value << "<set>";
  out << YAML::EndMap;
}

// The keys a server's own `sandbox:` may set, with their effective values.
void emitSandboxCommon(YAML::Emitter& out, const sandbox::SandboxPolicy& policy) {
  out << YAML::Key << "network" << YAML::Value
      << (policy.network == sandbox::NetworkMode::kNone ? "none" : "host");
  const sandbox::Limits& limits = policy.limits;
  out << YAML::Key << "limits" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "memory" << YAML::Value << formatSize(limits.memory_bytes);
  out << YAML::Key << "processes" << YAML::Value << limits.processes;
  out << YAML::Key << "open_files" << YAML::Value << limits.open_files;
  out << YAML::Key << "cpu_seconds" << YAML::Value << limits.cpu_seconds;
  out << YAML::Key << "file_size" << YAML::Value << formatSize(limits.file_size_bytes);
  out << YAML::Key << "tmpfs" << YAML::Value << formatSize(limits.tmpfs_bytes);
  out << YAML::EndMap;
  out << YAML::Key << "binds" << YAML::Value;
  if (policy.binds.empty()) out << YAML::Flow;
  out << YAML::BeginSeq;
  for (const sandbox::Bind& bind : policy.binds) {
    out << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "src" << YAML::Value << bind.src;
    out << YAML::Key << "dst" << YAML::Value << bind.dst;
    out << YAML::Key << "ro" << YAML::Value << bind.ro;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "env" << YAML::Value;
  emitEnv(out, policy.env);
}

void emitGlobalSandbox(YAML::Emitter& out, const sandbox::SandboxPolicy& policy) {
  out << YAML::BeginMap;
  out << YAML::Key << "on_unavailable" << YAML::Value
      << (policy.on_unavailable == sandbox::OnUnavailable::kFail ? "fail" : "degrade");
  out << YAML::Key << "commands" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const std::string& command : policy.commands) out << command;
  out << YAML::EndSeq;
  emitSandboxCommon(out, policy);
  out << YAML::EndMap;
}

// `with_sandbox`: only a file with a sandbox section gets one back, so the
// description of an older config loads the same way (no allowlist check).
void emitServer(YAML::Emitter& out, const std::string& name, const ServerConfig& server) {
  out << YAML::Key << name << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "command" << YAML::Value << server.command;
  out << YAML::Key << "args" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const std::string& arg : server.args) out << arg;
  out << YAML::EndSeq;
  out << YAML::Key << "env" << YAML::Value;
  emitEnv(out, server.env);
  out << YAML::Key << "cwd" << YAML::Value << server.cwd;
  out << YAML::Key << "sandbox" << YAML::Value << YAML::BeginMap;
  emitSandboxCommon(out, server.sandbox);
  out << YAML::Key << "hostname" << YAML::Value
      << (server.sandbox.hostname.empty() ? sandbox::defaultHostname(name)
                                          : server.sandbox.hostname);
  out << YAML::EndMap;
  out << YAML::EndMap;
}

}  // namespace

std::string defaultCacheDir() {
  if (::geteuid() == 0) return "/var/cache/mcpgate";
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/mcpgate";
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr && home[0] == '/' ? home : "/tmp") + "/.cache/mcpgate";
}

std::expected<std::shared_ptr<const Config>, Error> loadConfig(const std::string& path) {
  try {
    return load(path);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp guards its recursive parser; its own message for this is unhelpful.
    return std::unexpected(errorAt(
        path, e.mark,
        "nested more than " + std::to_string(e.depth()) + " levels deep, which no config needs"));
  } catch (const YAML::ParserException& e) {
    return std::unexpected(errorAt(path, e.mark, "syntax error: " + e.msg));
  } catch (const YAML::Exception& e) {
    return std::unexpected(errorAt(path, e.mark, e.msg));
  } catch (const std::exception& e) {
    return std::unexpected(Error{path + ": " + e.what()});
  }
}

std::string describeConfig(const Config& config) {
  try {
    YAML::Emitter out;
    out << YAML::Comment("effective config loaded from " + config.source);
    out << YAML::BeginMap;
    out << YAML::Key << "listen" << YAML::Value
        << formatHostPort(config.listen_host, config.listen_port);
    if (!config.allowed_origins.empty()) {
      out << YAML::Key << "allowed_origins" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (const std::string& origin : config.allowed_origins) out << origin;
      out << YAML::EndSeq;
    }
    out << YAML::Key << "log_level" << YAML::Value << config.log_level;
    out << YAML::Key << "cache_dir" << YAML::Value << config.cache_dir;
    out << YAML::Key << "session" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "idle_timeout" << YAML::Value
        << formatDuration(config.session.idle_timeout);
    out << YAML::Key << "grace" << YAML::Value << formatDuration(config.session.grace);
    out << YAML::Key << "request_timeout" << YAML::Value
        << formatDuration(config.session.request_timeout);
    out << YAML::EndMap;
    out << YAML::Key << "limits" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "max_body_bytes" << YAML::Value << formatSize(config.limits.max_body_bytes);
    out << YAML::Key << "max_json_depth" << YAML::Value << config.limits.max_json_depth;
    out << YAML::Key << "max_line_bytes" << YAML::Value << formatSize(config.limits.max_line_bytes);
    out << YAML::Key << "max_sessions" << YAML::Value << config.limits.max_sessions;
    out << YAML::EndMap;
    out << YAML::Key << "sandbox" << YAML::Value;
    emitGlobalSandbox(out, config.sandbox);
    out << YAML::Key << "dlp" << YAML::Value;
    emitDlpSection(out, config.dlp);
    out << YAML::Key << "servers" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, server] : config.servers) emitServer(out, name, server);
    out << YAML::EndMap;
    out << YAML::EndMap;
    std::string text = out.good() ? std::string(out.c_str()) + "\n"
                                  : "# cannot describe the config: " + out.GetLastError() + "\n";
    if (config.allowed_origins.empty()) {
      // A comment, not a key: the default has no spelling as a list of origins.
      text +=
          "# allowed_origins not set: browsers may call only from http(s)://localhost, "
          "127.0.0.1 and [::1] on any port\n";
    }
    return text;
  } catch (const std::exception& e) {
    return std::string("# cannot describe the config: ") + e.what() + "\n";
  }
}

}  // namespace mcpgate::config
