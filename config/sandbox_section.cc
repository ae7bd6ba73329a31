#include "config/sandbox_section.h"

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <string_view>
#include <system_error>

#include "config/units.h"
#include "egress/allowlist.h"
#include "sandbox/bind_source.h"
#include "sandbox/command.h"
#include "sandbox/uts.h"

namespace mcpgate::config {
namespace {

namespace fs = std::filesystem;
using detail::Entry;
using detail::lineOf;

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

void applySettings(const SandboxSettings& settings, sandbox::SandboxPolicy& policy) {
  if (settings.on_unavailable) policy.on_unavailable = *settings.on_unavailable;
  if (settings.network) policy.network = *settings.network;
  if (settings.allow) policy.allow = *settings.allow;
  if (settings.commands) policy.commands = *settings.commands;
  const auto set = [](const std::optional<std::uint64_t>& from, std::uint64_t& to) {
    if (from) to = *from;
  };
  set(settings.memory_bytes, policy.limits.memory_bytes);
  set(settings.processes, policy.limits.processes);
  set(settings.open_files, policy.limits.open_files);
  set(settings.cpu_seconds, policy.limits.cpu_seconds);
  set(settings.cpu_millicores, policy.limits.cpu_millicores);
  set(settings.file_size_bytes, policy.limits.file_size_bytes);
  set(settings.tmpfs_bytes, policy.limits.tmpfs_bytes);
  if (settings.hostname) policy.hostname = *settings.hostname;
  if (settings.stderr_limits) policy.stderr_limits = *settings.stderr_limits;
  if (settings.tmp_exec) policy.tmp_exec = *settings.tmp_exec;
  if (settings.home_exec) policy.home_exec = *settings.home_exec;
  if (settings.host_block) policy.host_block = *settings.host_block;
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

class SandboxLoader : private detail::Reader {
 public:
  explicit SandboxLoader(const detail::Reader& reader) : Reader(reader) {}

  [[nodiscard]] std::expected<SandboxSettings, Error> load(const Entry& e, const std::string& path,
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
        done = loadChoice(item, item_path, {"none", "host", "allowlist"}, [&](std::string_view v) {
          settings.network = sandbox::parseNetworkMode(v);
        });
      } else if (item.key == "allow") {
        done = loadAllow(item, item_path, settings);
      } else if (global && item.key == "commands") {
        done = loadCommands(item, item_path, settings);
      } else if (item.key == "limits") {
        done = loadSandboxLimits(item, item_path, settings);
      } else if (item.key == "binds") {
        done = loadBinds(item, item_path, settings);
      } else if (item.key == "env") {
        done = loadEnv(item, item_path, settings.env);
      } else if (item.key == "stderr") {
        done = loadStderr(item, item_path, settings);
      } else if (item.key == "tmp_exec" || item.key == "home_exec") {
        done = loadFlag(item, item_path,
                        item.key == "tmp_exec" ? settings.tmp_exec : settings.home_exec);
      } else if (item.key == "host_block") {
        done = loadFlag(item, item_path, settings.host_block);
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
                          {"on_unavailable", "network", "allow", "host_block", "commands", "limits",
                           "binds", "env", "stderr", "tmp_exec", "home_exec"});
      } else {
        done = unknownKey(item, "in " + path,
                          {"network", "allow", "host_block", "limits", "binds", "env", "hostname",
                           "stderr", "tmp_exec", "home_exec"});
      }
      if (!done) return std::unexpected(done.error());
    }
    return settings;
  }

 private:
  // allow: ["api.example.com:443", "*.example.org", "203.0.113.0/24", "[2001:db8::1]:8080"]
  // (with network: host, addresses and CIDRs only: validatePolicy says so with the line)
  [[nodiscard]] std::expected<void, Error> loadAllow(const Entry& e, const std::string& path,
                                                     SandboxSettings& settings) const {
    constexpr std::string_view kKind =
        "a list of host names, *.domains, addresses or CIDRs, each with an optional :port";
    if (!e.value.IsSequence()) return fail(e.line(), path + " must be " + std::string(kKind));
    std::vector<std::string> allow;
    for (const YAML::Node& item : e.value) {
      auto text = scalar(item, lineOf(item), path, kKind);
      if (!text) return std::unexpected(text.error());
      if (auto entry = egress::parseAllowEntry(*text); !entry) {
        return fail(lineOf(item), path + " entry '" + *text + "': " + entry.error());
      }
      allow.push_back(std::move(*text));
    }
    settings.allow = std::move(allow);
    return {};
  }

  // stderr: {lines_per_second, burst, max_line_bytes}; unset keys keep the defaults.
  [[nodiscard]] std::expected<void, Error> loadStderr(const Entry& e, const std::string& path,
                                                      SandboxSettings& settings) const {
    if (!e.value.IsMap()) return fail(e.line(), path + " must be a map");
    auto items = entries(e.value, "in " + path);
    if (!items) return std::unexpected(items.error());
    sandbox::StderrLimits limits;
    for (const Entry& item : *items) {
      const std::string item_path = path + "." + item.key;
      if (item.key == "lines_per_second" || item.key == "burst") {
        auto n = integerInRange(item, item_path, 1, 100000, "an integer from 1 to 100000");
        if (!n) return std::unexpected(n.error());
        if (item.key == "burst") {
          limits.burst = static_cast<std::size_t>(*n);
        } else {
          limits.lines_per_second = static_cast<double>(*n);
        }
      } else if (item.key == "max_line_bytes") {
        auto text = scalar(item, item_path, "a size from 64 to 1MiB");
        if (!text) return std::unexpected(text.error());
        auto size = parseSize(*text);
        if (!size || *size < 64 || *size > (1U << 20)) {
          return fail(item.line(), item_path + " '" + *text + "' must be a size from 64 to 1MiB");
        }
        limits.max_line_bytes = static_cast<std::size_t>(*size);
      } else {
        return unknownKey(item, "in " + path, {"lines_per_second", "burst", "max_line_bytes"});
      }
    }
    settings.stderr_limits = limits;
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadFlag(const Entry& e, const std::string& path,
                                                    std::optional<bool>& into) const {
    auto flag = scalar(e, path, "true or false");
    if (!flag) return std::unexpected(flag.error());
    if (*flag != "true" && *flag != "false") return fail(e.line(), path + " must be true or false");
    into = *flag == "true";
    return {};
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
      if (item.key == "cpu") {
        auto text = scalar(item, item_path, "a number of cores such as 1.5 (0 for no limit)");
        if (!text) return std::unexpected(text.error());
        auto cores = sandbox::parseCores(*text);
        if (!cores) return fail(item.line(), item_path + ": " + cores.error().message);
        settings.cpu_millicores = *cores;
        continue;
      }
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
            {"memory", "processes", "open_files", "cpu_seconds", "cpu", "file_size", "tmpfs"});
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
      // Refused here, with the line, as well as at every spawn: a source someone else could
      // redirect with a planted symlink.
      if (auto resolved = sandbox::resolveBindSource(bind.src); !resolved) {
        return fail(src->line(), src_path + ": " + resolved.error().message);
      }
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
};

// The keys a server's own `sandbox:` may set, with their effective values.
void emitSandboxCommon(YAML::Emitter& out, const sandbox::SandboxPolicy& policy) {
  out << YAML::Key << "network" << YAML::Value << std::string(sandbox::networkName(policy.network));
  if (!policy.allow.empty()) {
    out << YAML::Key << "allow" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const std::string& entry : policy.allow) out << entry;
    out << YAML::EndSeq;
  }
  if (policy.network == sandbox::NetworkMode::kHost) {
    out << YAML::Key << "host_block" << YAML::Value << policy.host_block;
  }
  const sandbox::Limits& limits = policy.limits;
  out << YAML::Key << "limits" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "memory" << YAML::Value << formatSize(limits.memory_bytes);
  out << YAML::Key << "processes" << YAML::Value << limits.processes;
  out << YAML::Key << "open_files" << YAML::Value << limits.open_files;
  out << YAML::Key << "cpu_seconds" << YAML::Value << limits.cpu_seconds;
  // Cores as written in the file: 1500 millicores is 1.5.
  std::string cores = std::to_string(limits.cpu_millicores / 1000);
  if (std::uint64_t rest = limits.cpu_millicores % 1000; rest != 0) {
    std::string digits = std::to_string(1000 + rest).substr(1);
    while (digits.ends_with('0')) digits.pop_back();
    cores += "." + digits;
  }
  out << YAML::Key << "cpu" << YAML::Value << cores;
  out << YAML::Key << "file_size" << YAML::Value << formatSize(limits.file_size_bytes);
  out << YAML::Key << "tmpfs" << YAML::Value << formatSize(limits.tmpfs_bytes);
  out << YAML::EndMap;
  out << YAML::Key << "stderr" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "lines_per_second" << YAML::Value
      << static_cast<std::uint64_t>(policy.stderr_limits.lines_per_second);
  out << YAML::Key << "burst" << YAML::Value << policy.stderr_limits.burst;
  out << YAML::Key << "max_line_bytes" << YAML::Value
      << formatSize(policy.stderr_limits.max_line_bytes);
  out << YAML::EndMap;
  out << YAML::Key << "tmp_exec" << YAML::Value << policy.tmp_exec;
  out << YAML::Key << "home_exec" << YAML::Value << policy.home_exec;
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
  detail::emitEnv(out, policy.env);
}

}  // namespace

std::expected<SandboxSettings, Error> loadSandboxSection(const detail::Reader& reader,
                                                         const Entry& e, const std::string& path,
                                                         bool global) {
  return SandboxLoader(reader).load(e, path, global);
}

std::expected<void, Error> resolveSandboxes(const detail::Reader& reader,
                                            const std::optional<SandboxSettings>& global,
                                            const std::map<std::string, ServerExtra>& extras,
                                            Config& config) {
  if (global) applySettings(*global, config.sandbox);
  for (auto& [name, server] : config.servers) {
    const ServerExtra& extra = extras.at(name);
    server.sandbox = config.sandbox;
    // uvx installs its tools under HOME and runs them from there: HOME stays
    // executable for it unless a section says otherwise.
    const bool home_exec_set =
        (global && global->home_exec) || (extra.sandbox && extra.sandbox->home_exec);
    if (!home_exec_set && fs::path(server.command).filename() == "uvx") {
      server.sandbox.home_exec = true;
    }
    if (extra.sandbox) applySettings(*extra.sandbox, server.sandbox);
    if (server.remote) continue;  // nothing to start, nothing to sandbox
    // network: host: the gateway's port is refused on every local address
    // (the gateway adds the ports it actually bound when it spawns).
    if (server.sandbox.network == sandbox::NetworkMode::kHost && config.listen_port != 0) {
      server.sandbox.own_ports = {config.listen_port};
    }
    if (auto runnable = checkRunnable(server); !runnable) {
      return reader.fail(extra.command_line, extra.path + ".command: " + runnable.error());
    }
    // The checks above cover what validatePolicy knows today; this keeps a
    // check added there from being skipped by configs.
    if (auto valid = sandbox::validatePolicy(server.sandbox); !valid) {
      const int line = extra.sandbox ? extra.sandbox->line : (global ? global->line : 0);
      return reader.fail(line, extra.path + ".sandbox: " + valid.error().message);
    }
  }
  return {};
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

void emitServerSandbox(YAML::Emitter& out, const std::string& name,
                       const sandbox::SandboxPolicy& policy) {
  out << YAML::BeginMap;
  emitSandboxCommon(out, policy);
  out << YAML::Key << "hostname" << YAML::Value
      << (policy.hostname.empty() ? sandbox::defaultHostname(name) : policy.hostname);
  out << YAML::EndMap;
}

}  // namespace mcpgate::config
