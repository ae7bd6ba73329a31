// The `servers:` / `mcpServers:` section: one ServerConfig per entry, with
// the clients' JSON formats (Claude Desktop, Cursor, VS Code) read as they
// are written by those clients.

#include "config/server_section.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "config/expand.h"
#include "config/remote_section.h"
#include "config/units.h"

namespace mcpgate::config {

namespace {

using detail::Entry;
using detail::lineOf;

namespace fs = std::filesystem;

// Keys that JSON client configs (Claude Desktop, Cursor, Cline, ...) carry for
// the client's own use; they mean nothing to the gateway. Keys that would change
// what the server can do (a tool filter, say) are deliberately not here: they
// are errors, so nobody believes a restriction is enforced when it is not.
constexpr std::array<std::string_view, 4> kIgnoredClientKeys = {"autoApprove", "alwaysAllow",
                                                                "timeout", "description"};


class ServerLoader : private detail::Reader {
 public:
  ServerLoader(const detail::Reader& reader, bool client_format)
      : Reader(reader), client_format_(client_format) {}

  [[nodiscard]] std::expected<void, Error> load(
      const Entry& e, std::map<std::string, ServerConfig>& servers,
      std::map<std::string, ServerExtra>& extras) const {
    if (!e.value.IsMap() && !e.value.IsNull()) {
      return fail(e.line(), e.key + " must be a map from server names to servers");
    }
    auto items = entries(e.value, "in " + e.key);
    if (!items) return std::unexpected(items.error());
    for (const Entry& item : *items) {
      if (!isValidServerName(item.key)) {
        return fail(lineOf(item.key_node),
                    "server name '" + item.key +
                        "' must be 1 to 64 of A-Z a-z 0-9 _ . - and not '.' or '..' (it is the "
                        "URL path /mcp/NAME)");
      }
      ServerExtra extra{e.key + "." + item.key, 0, std::nullopt};
      auto server = loadServer(item, extra.path, client_format_, extra);
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
    RemoteDraft remote;
    std::vector<std::pair<std::string, int>> command_keys;  // keys a url server cannot have
    for (const Entry& item : *items) {
      const std::string item_path = path + "." + item.key;
      std::expected<void, Error> done;
      if (item.key == "command") {
        done = loadCommand(item, item_path, server);
        has_command = true;
        extra.command_line = item.line();
      } else if (isRemoteKey(item.key, client_format)) {
        done = loadRemoteKey(*this, item, path, remote);
      } else if (item.key == "args") {
        done = loadArgs(item, item_path, client_format, server);
      } else if (item.key == "env") {
        done = loadEnv(item, item_path, server.env);
      } else if (item.key == "cwd") {
        done = loadCwd(item, item_path, server);
      } else if (!client_format && item.key == "protocol") {
        done = loadProtocol(item, item_path, server);
      } else if (item.key == "pool" && !client_format) {
        done = loadPool(item, item_path, server.pool);
      } else if (item.key == "sandbox") {
        auto settings = loadSandboxSection(*this, item, item_path, /*global=*/false);
        if (settings) {
          extra.sandbox = std::move(*settings);
        } else {
          done = std::unexpected(settings.error());
        }
      } else if (client_format && item.key == "envFile") {
        return fail(lineOf(item.key_node),
                    item_path + " is not supported yet (list the variables under 'env')");
      } else if (client_format && (item.key == "disabled" ||
                                   std::find(kIgnoredClientKeys.begin(), kIgnoredClientKeys.end(),
                                             item.key) != kIgnoredClientKeys.end())) {
        continue;
      } else if (client_format) {
        done =
            unknownKey(item, "in " + path,
                       {"command", "args", "env", "cwd", "sandbox", "type", "disabled",
                        "autoApprove", "alwaysAllow", "timeout", "description", "url", "headers"});
      } else {
        done = unknownKey(item, "in " + path,
                          {"command", "args", "env", "cwd", "sandbox", "url", "headers", "tls",
                           "connect_timeout", "allow_insecure_http", "protocol", "pool"});
      }
      if (!done) return std::unexpected(done.error());
      if (item.key == "args" || item.key == "env" || item.key == "cwd" || item.key == "sandbox") {
        command_keys.emplace_back(item.key, lineOf(item.key_node));
      }
    }
    if (auto finished = finishRemote(*this, path, has_command, extra.command_line, remote, server);
        !finished) {
      return std::unexpected(finished.error());
    }
    if (server.remote) {
      if (!command_keys.empty()) {
        return fail(command_keys.front().second,
                    path + "." + command_keys.front().first +
                        " applies only to a server the gateway starts with 'command', not to a "
                        "remote 'url' server");
      }
      return server;
    }
    if (!has_command) {
      return fail(lineOf(e.key_node),
                  path + ": missing required key 'command' (or 'url' for a remote server)");
    }
    return server;
  }

  [[nodiscard]] std::expected<void, Error> loadPool(const Entry& e, const std::string& path,
                                                    PoolConfig& pool) const {
    auto items = entries(e.value, "in " + path);
    if (!items) return std::unexpected(items.error());
    constexpr std::uint64_t kMaxPool = 64;
    for (const Entry& item : *items) {
      const std::string item_path = path + "." + item.key;
      if (item.key == "size" || item.key == "start") {
        auto value = integerInRange(item, item_path, item.key == "size" ? 1 : 0, kMaxPool,
                                    item.key == "size" ? "an integer from 1 to 64"
                                                       : "an integer from 0 to 64");
        if (!value) return std::unexpected(value.error());
        (item.key == "size" ? pool.size : pool.start) = static_cast<std::uint32_t>(*value);
      } else if (item.key == "idle_timeout") {
        auto text = scalar(item, item_path, "a duration");
        if (!text) return std::unexpected(text.error());
        auto value = parseDuration(*text);
        if (!value) return fail(item.line(), item_path + " '" + *text + "' " + value.error());
        if (value->count() <= 0) return fail(item.line(), item_path + " must be more than 0");
        pool.idle_timeout = *value;
      } else {
        return unknownKey(item, "in " + path, {"size", "start", "idle_timeout"});
      }
    }
    if (pool.start > pool.size) {
      return fail(e.line(), path + ".start (" + std::to_string(pool.start) +
                                ") must not be more than " + path + ".size (" +
                                std::to_string(pool.size) + ")");
    }
    return {};
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
                                                    bool client_format,
                                                    ServerConfig& server) const {
    if (e.value.IsNull()) return {};
    if (!e.value.IsSequence()) return fail(e.line(), path + " must be a list of strings");
    for (const YAML::Node& item : e.value) {
      auto arg = scalar(item, lineOf(item), path, "a list of strings");
      if (!arg) return std::unexpected(arg.error());
      // VS Code expands ${env:NAME} and ${input:ID} in args; mcpgate's own
      // format passes args as written.
      if (client_format && (arg->find("${env:") != std::string::npos ||
                            arg->find("${input:") != std::string::npos)) {
        auto expanded = expandVariables(*arg, lookupEnvironment);
        if (!expanded) return fail(lineOf(item), path + ": " + expanded.error());
        arg = std::move(*expanded);
      }
      server.args.push_back(std::move(*arg));
    }
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadProtocol(const Entry& e, const std::string& path,
                                                        ServerConfig& server) const {
    auto word = scalar(e, path, "auto, legacy or modern");
    if (!word) return std::unexpected(word.error());
    auto choice = parseProtocolChoice(*word);
    if (!choice) {
      return fail(e.line(), path + " must be auto, legacy or modern (the MCP era the server "
                                   "speaks), not '" + *word + "'");
    }
    server.protocol = *choice;
    return {};
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

 private:
  bool client_format_;
};

}  // namespace

std::optional<gateway::EraChoice> parseProtocolChoice(std::string_view word) {
  if (word == "auto") return gateway::EraChoice::kAuto;
  if (word == "legacy") return gateway::EraChoice::kLegacy;
  if (word == "modern") return gateway::EraChoice::kModern;
  return std::nullopt;
}

std::string_view protocolChoiceName(gateway::EraChoice choice) {
  switch (choice) {
    case gateway::EraChoice::kLegacy: return "legacy";
    case gateway::EraChoice::kModern: return "modern";
    case gateway::EraChoice::kAuto: break;
  }
  return "auto";
}

std::expected<void, Error> loadServersSection(const detail::Reader& reader, const Entry& e,
                                              bool client_format,
                                              std::map<std::string, ServerConfig>& servers,
                                              std::map<std::string, ServerExtra>& extras) {
  return ServerLoader(reader, client_format).load(e, servers, extras);
}

}  // namespace mcpgate::config
