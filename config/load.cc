// loadConfig: the config file's schema and its validation (describeConfig,
// the way back to YAML, is in config/describe.cc).
//
// yaml-cpp parses both YAML and the JSON `mcpServers` files (YAML is a superset
// of JSON), which gives line numbers for JSON errors too. Every yaml-cpp
// exception stops at loadConfig; callers only ever see config::Error.

#include <fcntl.h>
#include <unistd.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "common/errno_text.h"
#include "config/address.h"
#include "config/audit_section.h"
#include "config/auth_section.h"
#include "config/config.h"
#include "config/dlp_section.h"
#include "config/origin.h"
#include "config/policy_section.h"
#include "config/remote_section.h"
#include "config/sandbox_section.h"
#include "config/secret_refs.h"
#include "config/server_section.h"
#include "config/units.h"
#include "config/yaml_support.h"
#include "sandbox/fd.h"

namespace mcpgate::config {

namespace {

using detail::Entry;
using detail::lineOf;

namespace fs = std::filesystem;

// A config is a few KiB. Refusing big files keeps a wrong path (a log, a
// device) from being slurped into memory and parsed.
constexpr std::size_t kMaxFileBytes = 1024 * 1024;

constexpr std::uint32_t kMaxJsonDepth = 10000;
constexpr std::uint32_t kMaxSessions = 1000000;

std::expected<std::string, Error> readFile(const std::string& path) {
  const sandbox::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0)
    return std::unexpected(Error{path + ": cannot read: " + common::errnoText(errno)});
  std::string text;
  char buffer[16384];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::unexpected(Error{path + ": cannot read: " + common::errnoText(errno)});
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

class Loader : private detail::Reader {
 public:
  using Reader::Reader;

  [[nodiscard]] std::expected<void, Error> load(const YAML::Node& root, Config& config) const {
    auto top = entries(root, "at top level");
    if (!top) return std::unexpected(top.error());
    // A JSON file is a client's config (Claude Desktop, Cursor, VS Code): its
    // `servers` (VS Code) are read in the clients' format, like `mcpServers`.
    const bool json_file = root.Style() == YAML::EmitterStyle::Flow;
    const Entry* servers = nullptr;
    std::optional<SandboxSettings> global_sandbox;
    std::map<std::string, ServerExtra> extras;
    int auth_line = 0;
    for (const Entry& e : *top) {
      std::expected<void, Error> done;
      if (e.key == "listen") {
        done = loadListen(e, config);
      } else if (e.key == "allowed_origins" || e.key == "allowed_hosts") {
        done = loadOrigins(e, config);
      } else if (e.key == "log_level") {
        done = loadLogLevel(e, config);
      } else if (e.key == "cache_dir") {
        done = loadDir(e, "cache_dir", config.cache_dir);
      } else if (e.key == "state_dir") {
        done = loadDir(e, "state_dir", config.state_dir);
      } else if (e.key == "session") {
        done = loadSession(e, config.session);
      } else if (e.key == "limits") {
        done = loadLimits(e, config.limits);
      } else if (e.key == "servers" || e.key == "mcpServers") {
        if (servers != nullptr) {
          return fail(lineOf(e.key_node), "use either 'servers' or 'mcpServers', not both");
        }
        servers = &e;
        config.servers_key = e.key;
        done = loadServersSection(*this, e, e.key == "mcpServers" || json_file, config.servers,
                                  extras);
      } else if (e.key == "sandbox") {
        auto settings = loadSandboxSection(*this, e, "sandbox", /*global=*/true);
        if (settings) {
          global_sandbox = std::move(*settings);
        } else {
          done = std::unexpected(settings.error());
        }
      } else if (e.key == "dlp") {
        done = loadDlpSection(e.key_node, e.value, file_, dir_, config.dlp);
      } else if (e.key == "audit") {
        done = loadAuditSection(e.key_node, e.value, file_, dir_, config.audit);
      } else if (e.key == "aggregate") {
        done = loadAggregate(e, config.aggregate);
      } else if (e.key == "policies") {
        done = loadPoliciesSection(*this, e, config.policies);
      } else if (e.key == "pins") {
        done = loadPinsSection(*this, e, config.pins);
      } else if (e.key == "auth") {
        auth_line = lineOf(e.key_node);
        done = loadAuthSection(*this, e, config.auth);
      } else if (e.key == "tls") {
        done = loadTlsSection(*this, e, config.tls);
      } else if (e.key == "inputs" && json_file) {
        // VS Code's prompts: a reference to one (${input:ID}) is refused where it is used.
        continue;
      } else if (e.key == "insecure_no_auth") {
        done = loadInsecureNoAuth(e, config);
      } else {
        done = unknownKey(
            e, "at top level",
            {"listen", "allowed_origins", "allowed_hosts", "log_level", "cache_dir", "state_dir",
             "servers", "mcpServers", "session", "limits", "sandbox", "dlp", "audit", "aggregate",
             "policies", "pins", "auth", "tls", "insecure_no_auth"});
      }
      if (!done) return done;
    }
    if (servers == nullptr) return std::unexpected(Error{file_ + ": no servers configured"});
    if (auto resolved = resolveSandboxes(*this, global_sandbox, extras, config); !resolved) {
      return resolved;
    }
    if (auto checked = checkPolicyServers(*this, config); !checked) return checked;
    return resolveAuthSection(*this, auth_line, config);
  }

 private:
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
    if (e.key == "allowed_hosts") {  // the names the gateway is reached by (Host header)
      if (!e.value.IsSequence() || e.value.size() == 0) {
        return fail(e.line(),
                    "allowed_hosts must be a non-empty list of host names such as "
                    "mcp.example.org (no port)");
      }
      for (const YAML::Node& item : e.value) {
        auto host = scalar(item, lineOf(item), "allowed_hosts", "a host name");
        if (!host) return std::unexpected(host.error());
        if (!isValidHostEntry(*host)) {
          return fail(lineOf(item), "allowed_hosts entry '" + *host +
                                        "' must be '*', a host name, an IPv4 or a [IPv6] address");
        }
        config.allowed_hosts.push_back(std::move(*host));
      }
      return {};
    }
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

  [[nodiscard]] std::expected<void, Error> loadInsecureNoAuth(const Entry& e,
                                                              Config& config) const {
    auto flag = scalar(e, "insecure_no_auth", "true or false");
    if (!flag) return std::unexpected(flag.error());
    if (*flag != "true" && *flag != "false") {
      return fail(e.line(), "insecure_no_auth must be true or false");
    }
    config.insecure_no_auth = *flag == "true";
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

  // cache_dir or state_dir. Need not exist yet: whoever writes there creates it.
  [[nodiscard]] std::expected<void, Error> loadDir(const Entry& e, std::string_view key,
                                                   std::string& out) const {
    auto text = scalar(e, std::string(key), "a directory path");
    if (!text) return std::unexpected(text.error());
    if (text->empty()) return fail(e.line(), std::string(key) + " must not be empty");
    const fs::path written(*text);
    std::string resolved = (written.is_absolute() ? written : dir_ / written).lexically_normal();
    if (resolved.size() > 1 && resolved.ends_with('/')) resolved.pop_back();
    out = std::move(resolved);
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

  [[nodiscard]] std::expected<std::uint32_t, Error> count(const Entry& e, const std::string& path,
                                                          std::uint32_t max) const {
    auto value = integerInRange(e, path, 1, max, "an integer from 1 to " + std::to_string(max));
    if (!value) return std::unexpected(value.error());
    return static_cast<std::uint32_t>(*value);
  }

  [[nodiscard]] std::expected<void, Error> loadAggregate(const Entry& e,
                                                         AggregateConfig& aggregate) const {
    auto items = section(e);
    if (!items) return std::unexpected(items.error());
    for (const Entry& item : *items) {
      if (item.key != "separator") return unknownKey(item, "in aggregate", {"separator"});
      auto text = scalar(item, "aggregate.separator", "a string");
      if (!text) return std::unexpected(text.error());
      // It becomes part of tool names, which MCP limits to these characters.
      const bool valid = !text->empty() && text->size() <= 8 &&
                         text->find_first_not_of(
                             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
                             "WXYZ0123456789_-.") == std::string::npos;
      if (!valid) {
        return fail(item.line(), "aggregate.separator '" + *text +
                                     "' must be 1 to 8 of A-Z a-z 0-9 _ - . (allowed in tool "
                                     "names)");
      }
      aggregate.separator = std::move(*text);
    }
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadSession(const Entry& e,
                                                       SessionConfig& session) const {
    auto items = section(e);
    if (!items) return std::unexpected(items.error());
    for (const Entry& item : *items) {
      if (item.key == "max_per_client") {
        // 0 turns the limit off, so not count(), which starts at 1.
        auto value = integerInRange(item, "session.max_per_client", 0, kMaxSessions,
                                    "an integer from 0 (no limit) to " +
                                        std::to_string(kMaxSessions));
        if (!value) return std::unexpected(value.error());
        session.max_per_client = static_cast<std::uint32_t>(*value);
        continue;
      }
      std::chrono::milliseconds* target = nullptr;
      if (item.key == "idle_timeout") {
        target = &session.idle_timeout;
      } else if (item.key == "grace") {
        target = &session.grace;
      } else if (item.key == "request_timeout") {
        target = &session.request_timeout;
      } else {
        return unknownKey(item, "in session",
                          {"idle_timeout", "grace", "request_timeout", "max_per_client"});
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
      std::uint64_t* bytes = item.key == "max_body_bytes"           ? &limits.max_body_bytes
                             : item.key == "max_line_bytes"         ? &limits.max_line_bytes
                             : item.key == "max_stream_queue_bytes" ? &limits.max_stream_queue_bytes
                             : item.key == "max_session_queue_bytes"
                                 ? &limits.max_session_queue_bytes
                             : item.key == "max_queued_bytes" ? &limits.max_queued_bytes
                                                              : nullptr;
      if (bytes != nullptr) {
        auto value = size(item, path);
        if (!value) return std::unexpected(value.error());
        *bytes = *value;
      } else if (item.key == "stream_stall_timeout") {
        auto value = duration(item, path);
        if (!value) return std::unexpected(value.error());
        limits.stream_stall_timeout = *value;
      } else if (item.key == "max_json_depth") {
        auto value = count(item, path, kMaxJsonDepth);
        if (!value) return std::unexpected(value.error());
        limits.max_json_depth = *value;
      } else if (item.key == "max_sessions" || item.key == "max_connections_per_address" ||
                 item.key == "max_connections_per_client") {
        auto value = count(item, path, kMaxSessions);
        if (!value) return std::unexpected(value.error());
        (item.key == "max_sessions"                  ? limits.max_sessions
         : item.key == "max_connections_per_address" ? limits.max_connections_per_address
                                                     : limits.max_connections_per_client) = *value;
      } else {
        return unknownKey(item, "in limits",
                          {"max_body_bytes", "max_json_depth", "max_line_bytes", "max_sessions",
                           "max_connections_per_address", "max_connections_per_client",
                           "max_stream_queue_bytes",
                           "max_session_queue_bytes", "max_queued_bytes", "stream_stall_timeout"});
      }
    }
    return {};
  }
};

// Sees only where documents start. yaml-cpp 0.7's LoadAll never returns on some malformed input
// (a lone ',' at the top level starts document after document, each allocating): the documents
// are counted with the parser directly and never more than two are asked for.
class DocumentStarts : public YAML::EventHandler {
 public:
  int documents = 0;
  std::optional<YAML::Mark> second;  // the first node of the second document
  void OnDocumentStart(const YAML::Mark&) override { ++documents; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string&) override {
    node(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    node(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    node(mark);
  }
  void OnMapEnd() override {}

 private:
  void node(const YAML::Mark& mark) {
    if (documents == 2 && !second) second = mark;
  }
};

Error errorAt(const std::string& file, const YAML::Mark& mark, const std::string& message) {
  if (mark.is_null()) return Error{file + ": " + message};
  return Error{file + ":" + std::to_string(mark.line + 1) + ": " + message};
}

std::expected<std::shared_ptr<const Config>, Error> load(const std::string& path,
                                                         LoadOptions options) {
  auto text = readFile(path);
  if (!text) return std::unexpected(text.error());
  const YAML::Node root = YAML::Load(*text);  // the first document only
  if (root.IsNull()) {
    return std::unexpected(Error{path + ": the file is empty: no servers configured"});
  }
  {
    std::istringstream in(*text);
    YAML::Parser parser(in);
    DocumentStarts starts;
    while (starts.documents < 2 && parser.HandleNextDocument(starts)) {
    }
    if (starts.documents > 1) {
      return std::unexpected(errorAt(path, starts.second.value_or(YAML::Mark::null_mark()),
                                     "only one YAML document is allowed per file"));
    }
  }
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
  finishAuditSection(config.state_dir, config.audit);
  if (options.resolve_secrets) {
    if (auto resolved = resolveSecretReferences(config); !resolved) {
      return std::unexpected(resolved.error());
    }
  }
  return std::make_shared<const Config>(std::move(config));
}

}  // namespace

namespace {

// The XDG base directory convention: /var/<system> for root, else
// $<xdg_variable>/mcpgate, else ~/<home_relative>/mcpgate.
std::string xdgDir(const char* system, const char* xdg_variable, const char* home_relative) {
  if (::geteuid() == 0) return system;
  const char* xdg = std::getenv(xdg_variable);
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/mcpgate";
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr && home[0] == '/' ? home : "/tmp") + "/" + home_relative +
         "/mcpgate";
}

}  // namespace

std::string defaultCacheDir() { return xdgDir("/var/cache/mcpgate", "XDG_CACHE_HOME", ".cache"); }

std::string defaultStateDir() {
  return xdgDir("/var/lib/mcpgate", "XDG_STATE_HOME", ".local/state");
}

std::expected<std::shared_ptr<const Config>, Error> loadConfig(const std::string& path,
                                                               LoadOptions options) {
  try {
    return load(path, options);
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

}  // namespace mcpgate::config
