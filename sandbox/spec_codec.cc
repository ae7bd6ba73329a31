#include "sandbox/spec_codec.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <charconv>
#include <cstddef>

#include "common/encoding.h"

namespace mcpgate::sandbox {
namespace {

std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\0') {
      out += "\\0";
    } else {
      out += c;
    }
  }
  return out;
}

std::string unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      char n = s[++i];
      out += n == 'n' ? '\n' : n == '0' ? '\0' : n;
    } else {
      out += s[i];
    }
  }
  return out;
}

class Writer {
 public:
  void put(std::string_view key, std::string_view value) {
    text_ += key;
    text_ += ' ';
    text_ += escape(value);
    text_ += '\n';
  }
  void put(std::string_view key, std::uint64_t value) { put(key, std::to_string(value)); }
  void put(std::string_view key, std::string_view k, std::string_view v) {
    // Keys of variables never contain '=', so it separates them safely.
    put(key, std::string(k) + "=" + std::string(v));
  }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

std::expected<std::uint64_t, Error> number(const std::string& v) {
  std::uint64_t n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc{} || p != v.data() + v.size()) {
    return std::unexpected(Error{"sandbox spec: bad number '" + v + "'"});
  }
  return n;
}

std::pair<std::string, std::string> keyValue(const std::string& v) {
  auto eq = v.find('=');
  if (eq == std::string::npos) return {v, ""};
  return {v.substr(0, eq), v.substr(eq + 1)};
}

std::expected<BpfProgram, Error> programFromHex(std::string_view hex) {
  constexpr std::size_t kInsnHex = 2 * sizeof(sock_filter);
  if (hex.empty() || hex.size() % kInsnHex != 0 || hex.size() / kInsnHex > BPF_MAXINSNS) {
    return std::unexpected(Error{"sandbox spec: malformed seccomp program"});
  }
  BpfProgram program(hex.size() / kInsnHex);
  auto* out = reinterpret_cast<unsigned char*>(program.data());
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    unsigned value = 0;
    auto [p, ec] = std::from_chars(hex.data() + i, hex.data() + i + 2, value, 16);
    if (ec != std::errc{} || p != hex.data() + i + 2) {
      return std::unexpected(Error{"sandbox spec: malformed seccomp program"});
    }
    out[i / 2] = static_cast<unsigned char>(value);
  }
  return program;
}

}  // namespace

std::string encodeSpec(const SpawnSpec& spec, std::span<const sock_filter> seccomp) {
  Writer w;
  w.put("version", "1");
  w.put("name", spec.name);
  w.put("command", spec.command);
  for (const auto& a : spec.args) w.put("arg", a);
  for (const auto& [k, v] : spec.env) w.put("env", k, v);
  w.put("cwd", spec.cwd);
  if (spec.sandbox) {
    const SandboxPolicy& p = *spec.sandbox;
    w.put("on_unavailable", p.on_unavailable == OnUnavailable::kFail ? "fail" : "degrade");
    w.put("network", networkName(p.network));
    for (const auto& a : p.allow) w.put("allow", a);
    w.put("host_block", p.host_block ? "1" : "0");
    for (std::uint16_t port : p.own_ports) w.put("own_port", port);
    w.put("node_proxy_preload", p.node_proxy_preload);
    for (const auto& c : p.commands) w.put("allow_command", c);
    for (const auto& d : p.arg_deny) w.put("arg_deny", d);
    for (const auto& d : p.arg_deny_words) w.put("arg_deny_word", d);
    w.put("memory", p.limits.memory_bytes);
    w.put("processes", p.limits.processes);
    w.put("open_files", p.limits.open_files);
    w.put("cpu_seconds", p.limits.cpu_seconds);
    w.put("cpu_millicores", p.limits.cpu_millicores);
    w.put("file_size", p.limits.file_size_bytes);
    w.put("tmpfs", p.limits.tmpfs_bytes);
    for (const auto& b : p.binds) {
      w.put("bind_src", b.src);
      w.put("bind_dst", b.dst);
      w.put("bind_ro", b.ro ? "1" : "0");
      w.put("bind_overlay", b.overlay ? "1" : "0");
    }
    for (const auto& [k, v] : p.env) w.put("policy_env", k, v);
    w.put("tmp_exec", p.tmp_exec ? "1" : "0");
    w.put("home_exec", p.home_exec ? "1" : "0");
    w.put("hostname", p.hostname);
    w.put("report", p.report ? "1" : "0");
  }
  if (!seccomp.empty()) w.put("seccomp_bpf", common::toHex(std::as_bytes(seccomp)));
  return w.take();
}

std::expected<DecodedSpec, Error> decodeSpec(std::string_view text) {
  DecodedSpec spec;
  SandboxPolicy policy;
  policy.commands.clear();
  policy.arg_deny.clear();
  policy.arg_deny_words.clear();
  bool has_policy = false;
  bool versioned = false;

  auto setNumber = [&](std::uint64_t& field, const std::string& v) {
    auto n = number(v);
    if (!n) return std::expected<void, Error>(std::unexpected(n.error()));
    field = *n;
    return std::expected<void, Error>();
  };

  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (line.empty()) continue;
    auto sp = line.find(' ');
    if (sp == std::string_view::npos) {
      return std::unexpected(Error{"sandbox spec: malformed line '" + std::string(line) + "'"});
    }
    std::string key(line.substr(0, sp));
    std::string value = unescape(line.substr(sp + 1));
    std::expected<void, Error> r;
    if (key == "version") {
      if (value != "1") return std::unexpected(Error{"sandbox spec: unsupported version " + value});
      versioned = true;
    } else if (key == "name") {
      spec.name = value;
    } else if (key == "command") {
      spec.command = value;
    } else if (key == "arg") {
      spec.args.push_back(value);
    } else if (key == "env") {
      spec.env.push_back(keyValue(value));
    } else if (key == "cwd") {
      spec.cwd = value;
    } else if (key == "seccomp_bpf") {
      auto program = programFromHex(value);
      if (!program) return std::unexpected(program.error());
      spec.seccomp = std::move(*program);
    } else {
      has_policy = true;
      if (key == "on_unavailable") {
        policy.on_unavailable = value == "degrade" ? OnUnavailable::kDegrade : OnUnavailable::kFail;
      } else if (key == "network") {
        auto mode = parseNetworkMode(value);
        if (!mode) return std::unexpected(Error{"sandbox spec: unknown network '" + value + "'"});
        policy.network = *mode;
      } else if (key == "allow") {
        policy.allow.push_back(value);
      } else if (key == "host_block") {
        policy.host_block = value == "1";
      } else if (key == "own_port") {
        std::uint64_t port = 0;
        r = setNumber(port, value);
        if (r && (port == 0 || port > 65535))
          return std::unexpected(Error{"sandbox spec: bad port '" + value + "'"});
        policy.own_ports.push_back(static_cast<std::uint16_t>(port));
      } else if (key == "node_proxy_preload") {
        policy.node_proxy_preload = value;
      } else if (key == "allow_command") {
        policy.commands.push_back(value);
      } else if (key == "arg_deny") {
        policy.arg_deny.push_back(value);
      } else if (key == "arg_deny_word") {
        policy.arg_deny_words.push_back(value);
      } else if (key == "memory") {
        r = setNumber(policy.limits.memory_bytes, value);
      } else if (key == "processes") {
        r = setNumber(policy.limits.processes, value);
      } else if (key == "open_files") {
        r = setNumber(policy.limits.open_files, value);
      } else if (key == "cpu_seconds") {
        r = setNumber(policy.limits.cpu_seconds, value);
      } else if (key == "cpu_millicores") {
        r = setNumber(policy.limits.cpu_millicores, value);
      } else if (key == "file_size") {
        r = setNumber(policy.limits.file_size_bytes, value);
      } else if (key == "tmpfs") {
        r = setNumber(policy.limits.tmpfs_bytes, value);
      } else if (key == "bind_src") {
        policy.binds.push_back(Bind{value, "", true});
      } else if (key == "bind_dst" || key == "bind_ro" || key == "bind_overlay") {
        if (policy.binds.empty())
          return std::unexpected(Error{"sandbox spec: " + key + " before bind_src"});
        if (key == "bind_dst") {
          policy.binds.back().dst = value;
        } else if (key == "bind_ro") {
          policy.binds.back().ro = value == "1";
        } else {
          policy.binds.back().overlay = value == "1";
        }
      } else if (key == "policy_env") {
        policy.env.push_back(keyValue(value));
      } else if (key == "tmp_exec") {
        policy.tmp_exec = value == "1";
      } else if (key == "home_exec") {
        policy.home_exec = value == "1";
      } else if (key == "hostname") {
        policy.hostname = value;
      } else if (key == "report") {
        policy.report = value == "1";
      } else {
        // Refuse unknown keys: a newer gateway must not silently lose a restriction.
        return std::unexpected(Error{"sandbox spec: unknown key '" + key + "'"});
      }
    }
    if (!r) return std::unexpected(r.error());
  }
  if (!versioned) return std::unexpected(Error{"sandbox spec: missing version line"});
  if (has_policy) spec.sandbox = std::move(policy);
  return spec;
}

std::expected<UniqueFd, Error> makeSpecFd(const std::string& text) {
  UniqueFd fd(::memfd_create("mcpgate-sandbox-spec", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd.valid()) return std::unexpected(sysError("memfd_create for the sandbox spec"));
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::unexpected(sysError("writing the sandbox spec"));
    }
    done += static_cast<std::size_t>(n);
  }
  // Sealed so that nothing holding the fd can change the spec under the init.
  if (::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) !=
      0) {
    return std::unexpected(sysError("sealing the sandbox spec"));
  }
  if (::lseek(fd.get(), 0, SEEK_SET) != 0)
    return std::unexpected(sysError("lseek on the sandbox spec"));
  return fd;
}

std::expected<std::string, Error> readSpecFd(int fd) {
  std::string text;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::unexpected(sysError("reading the sandbox spec from fd " + std::to_string(fd)));
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > (16u << 20)) return std::unexpected(Error{"sandbox spec larger than 16 MiB"});
  }
  return text;
}

}  // namespace mcpgate::sandbox
