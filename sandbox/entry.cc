#include "sandbox/entry.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <iomanip>
#include <string>
#include <string_view>

#include "sandbox/command.h"
#include "sandbox/contain.h"
#include "sandbox/probe.h"
#include "sandbox/spec_codec.h"

namespace mcpgate::sandbox {
namespace {

constexpr std::string_view kRunUsage =
    "usage: sandbox run [options] -- CMD [ARGS...]\n"
    "  --network none|host        network namespace (default none: loopback only)\n"
    "  --allow ADDR[/N][:PORT]    host: open an address the block refuses (repeatable)\n"
    "  --own-port N               host: refuse this port on every address of the host, as\n"
    "                             the gateway's own (repeatable)\n"
    "  --no-host-block            host: the host's whole network, metadata included\n"
    "  --bind SRC:DST[:rw|:overlay]  bind a host path, read-only unless :rw; :overlay makes a\n"
    "                             directory writable inside without changing it (repeatable)\n"
    "  --memory SIZE              cgroup memory limit (default 1GiB, 0 = none)\n"
    "  --processes N              cgroup pids.max and RLIMIT_NPROC (default 256)\n"
    "  --open-files N             RLIMIT_NOFILE (default 1024)\n"
    "  --cpu-seconds N            RLIMIT_CPU, per process (default 3600)\n"
    "  --cpu CORES                cgroup CPU bandwidth of the whole tree (default 1, 0 = none)\n"
    "  --file-size SIZE           RLIMIT_FSIZE (default 64MiB)\n"
    "  --tmpfs SIZE               size of /tmp and of HOME (default 128MiB)\n"
    "  --tmp-exec, --home-exec    allow executing files on /tmp, on HOME (default: noexec)\n"
    "  --env K=V                  set a variable (the denylist still applies; repeatable)\n"
    "  --hostname NAME            hostname inside (default mcp-<name>)\n"
    "  --name NAME                server name for the report and the hostname\n"
    "  --on-unavailable fail|degrade   refuse or run when a layer cannot be enforced\n"
    "  --report                   print the JSON layer report on stderr first\n"
    "CMD is run as given: the command allowlist and argument checks apply to servers\n"
    "from the gateway config, not to a command typed here.\n"
    "Exit status: CMD's, 128+N if killed by signal N, 125 if the sandbox failed,\n"
    "126/127 if CMD could not be run / was not found inside the sandbox.\n";

std::expected<std::uint64_t, Error> count(std::string_view text) {
  std::uint64_t n = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc{} || p != text.data() + text.size()) {
    return std::unexpected(Error{"expected a number, got '" + std::string(text) + "'"});
  }
  return n;
}

std::expected<Bind, Error> parseBind(std::string_view text) {
  Bind bind;
  auto first = text.find(':');
  if (first == std::string_view::npos) {
    bind.src = bind.dst = std::string(text);
    return bind;
  }
  bind.src = std::string(text.substr(0, first));
  std::string_view rest = text.substr(first + 1);
  auto second = rest.find(':');
  bind.dst = std::string(rest.substr(0, second));
  if (second != std::string_view::npos) {
    std::string_view mode = rest.substr(second + 1);
    if (mode == "rw") {
      bind.ro = false;
    } else if (mode == "overlay") {
      bind.overlay = true;
    } else if (mode != "ro") {
      return std::unexpected(
          Error{"bind mode must be ro, rw or overlay: '" + std::string(text) + "'"});
    }
  }
  return bind;
}

// Fills `spec` from `sandbox run` options; returns an error for the user.
std::expected<SpawnSpec, Error> parseRun(std::span<char* const> args) {
  SpawnSpec spec;
  SandboxPolicy policy;
  policy.arg_deny.clear();
  policy.arg_deny_words.clear();
  std::size_t i = 0;
  auto value = [&](std::string_view option) -> std::expected<std::string_view, Error> {
    if (i + 1 >= args.size()) return std::unexpected(Error{std::string(option) + " needs a value"});
    return std::string_view(args[++i]);
  };
  for (; i < args.size(); ++i) {
    std::string_view a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    std::expected<void, Error> r;
    auto withValue = [&](auto&& apply) {
      auto v = value(a);
      if (!v) {
        r = std::unexpected(v.error());
      } else {
        r = apply(*v);
      }
    };
    auto sizeInto = [&](std::uint64_t& field) {
      withValue([&](std::string_view v) -> std::expected<void, Error> {
        auto s = parseSize(v);
        if (!s) return std::unexpected(s.error());
        field = *s;
        return {};
      });
    };
    auto countInto = [&](std::uint64_t& field) {
      withValue([&](std::string_view v) -> std::expected<void, Error> {
        auto s = count(v);
        if (!s) return std::unexpected(Error{std::string(a) + ": " + s.error().message});
        field = *s;
        return {};
      });
    };
    if (a == "--network") {
      withValue([&](std::string_view v) -> std::expected<void, Error> {
        if (v == "none") {
          policy.network = NetworkMode::kNone;
        } else if (v == "host") {
          policy.network = NetworkMode::kHost;
        } else {
          return std::unexpected(Error{"--network must be none or host"});
        }
        return {};
      });
    } else if (a == "--allow") {
      withValue([&](std::string_view v) -> std::expected<void, Error> {
        policy.allow.emplace_back(v);
        return {};
      });
    } else if (a == "--own-port") {
      withValue([&](std::string_view v) -> std::expected<void, Error> {
        auto n = count(v);
        if (!n || *n == 0 || *n > 65535)
          return std::unexpected(Error{"--own-port expects a port, got '" + std::string(v) + "'"});
        policy.own_ports.push_back(static_cast<std::uint16_t>(*n));
        return {};
      });
    } else if (a == "--no-host-block") {
      policy.host_block = false;
    } else if (a == "--on-unavailable") {
      withValue([&](std::string_view v) -> std::expected<void, Error> {
        if (v == "fail") {
          policy.on_unavailable = OnUnavailable::kFail;
        } else if (v == "degrade") {
          policy.on_unavailable = OnUnavailable::kDegrade;
        } else {
          return std::unexpected(Error{"--on-unavailable must be fail or degrade"});
        }
        return {};
      });
    } else if (a == "--bind") {
      withValue([&](std::string_view v) -> std::expected<void, Error> {
        auto b = parseBind(v);
        if (!b) return std::unexpected(b.error());
        policy.binds.push_back(*b);
        return {};
      });
    } else if (a == "--env") {
      withValue([&](std::string_view v) -> std::expected<void, Error> {
        auto eq = v.find('=');
        if (eq == std::string_view::npos || eq == 0) {
          return std::unexpected(Error{"--env expects KEY=VALUE, got '" + std::string(v) + "'"});
        }
        spec.env.emplace_back(std::string(v.substr(0, eq)), std::string(v.substr(eq + 1)));
        return {};
      });
    } else if (a == "--hostname") {
      withValue([&](std::string_view v) -> std::expected<void, Error> {
        policy.hostname = std::string(v);
        return {};
      });
    } else if (a == "--name") {
      withValue([&](std::string_view v) -> std::expected<void, Error> {
        spec.name = std::string(v);
        return {};
      });
    } else if (a == "--memory") {
      sizeInto(policy.limits.memory_bytes);
    } else if (a == "--file-size") {
      sizeInto(policy.limits.file_size_bytes);
    } else if (a == "--tmpfs") {
      sizeInto(policy.limits.tmpfs_bytes);
    } else if (a == "--processes") {
      countInto(policy.limits.processes);
    } else if (a == "--open-files") {
      countInto(policy.limits.open_files);
    } else if (a == "--cpu-seconds") {
      countInto(policy.limits.cpu_seconds);
    } else if (a == "--cpu") {
      withValue([&](std::string_view v) -> std::expected<void, Error> {
        auto cores = parseCores(v);
        if (!cores) return std::unexpected(cores.error());
        policy.limits.cpu_millicores = *cores;
        return {};
      });
    } else if (a == "--tmp-exec") {
      policy.tmp_exec = true;
    } else if (a == "--home-exec") {
      policy.home_exec = true;
    } else if (a == "--report") {
      policy.report = true;
    } else {
      return std::unexpected(Error{"unknown option '" + std::string(a) + "'"});
    }
    if (!r) return std::unexpected(r.error());
  }
  if (i >= args.size()) return std::unexpected(Error{"missing -- CMD"});
  spec.command = args[i];
  for (++i; i < args.size(); ++i) spec.args.emplace_back(args[i]);
  if (spec.name.empty()) {
    auto slash = spec.command.rfind('/');
    spec.name = slash == std::string::npos ? spec.command : spec.command.substr(slash + 1);
  }
  // The operator typed this command: it is allowed by definition.
  auto resolved = resolveCommand(spec.command);
  policy.commands = {resolved ? *resolved : spec.command};
  if (auto v = validatePolicy(policy); !v) return std::unexpected(v.error());
  spec.sandbox = std::move(policy);
  return spec;
}

int probe(std::ostream& out) {
  auto layers = probeHost();
  bool all = true;
  for (const auto& l : layers) {
    out << std::left << std::setw(15) << l.layer << std::setw(13)
        << (l.available ? "enforceable" : "UNAVAILABLE") << l.detail << "\n";
    all = all && l.available;
  }
  out << (all ? "every layer can be enforced on this host\n"
              : "some layers cannot be enforced: with on_unavailable: fail (the default) spawns "
                "needing them are refused\n");
  return all ? 0 : 1;
}

}  // namespace

int sandboxInitMain(std::span<char* const> args) {
  int fd = -1;
  int report_fd = STDERR_FILENO;
  int egress_fd = -1;
  pid_t parent = 0;
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    auto n = count(args[i + 1]);
    if (std::strcmp(args[i], "--spec-fd") == 0 && n && *n < 1024) fd = static_cast<int>(*n);
    if (std::strcmp(args[i], "--parent-pid") == 0 && n) parent = static_cast<pid_t>(*n);
    if (std::strcmp(args[i], "--report-fd") == 0 && n && *n > 2 && *n < 1024) {
      report_fd = static_cast<int>(*n);
    }
    if (std::strcmp(args[i], "--egress-fd") == 0 && n && *n > 2 && *n < 1024) {
      egress_fd = static_cast<int>(*n);
    }
  }
  if (parent > 0) {
    // Die with the gateway; if it is already gone, the pdeathsig came too late.
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || ::getppid() != parent)
      return kExitSandboxFailed;
  }
  if (fd < 0) {
    const char msg[] =
        "mcpgate sandbox-init: internal mode, started by the gateway with --spec-fd N\n";
    (void)::write(STDERR_FILENO, msg, sizeof msg - 1);
    return 2;
  }
  auto text = readSpecFd(fd);
  ::close(fd);
  auto spec = text ? decodeSpec(*text) : std::unexpected(text.error());
  if (!spec || !spec->sandbox) {
    std::string msg =
        "mcpgate sandbox-init: " +
        (spec ? std::string("the spec carries no sandbox policy") : spec.error().message) + "\n";
    (void)::write(STDERR_FILENO, msg.data(), msg.size());
    return kExitSandboxFailed;
  }
  return runContained(*spec, std::move(spec->seccomp), report_fd, egress_fd);
}

int runSpec(const SpawnSpec& spec, std::ostream& out, std::ostream& err) {
  if (!spec.sandbox) {
    err << "sandbox run: no sandbox policy for '" << spec.name << "'\n";
    return kExitSandboxFailed;
  }
  // The server writes to the same fds: what we buffered must come first.
  out.flush();
  err.flush();
  return runContained(spec);
}

int sandboxCommandMain(std::span<char* const> args, std::ostream& out, std::ostream& err) {
  if (args.empty() || std::strcmp(args[0], "--help") == 0 || std::strcmp(args[0], "help") == 0) {
    (args.empty() ? err : out) << kRunUsage << "usage: sandbox probe\n";
    return args.empty() ? 2 : 0;
  }
  std::string_view sub = args[0];
  if (sub == "probe") return probe(out);
  if (sub == "run") {
    auto spec = parseRun(args.subspan(1));
    if (!spec) {
      err << "sandbox run: " << spec.error().message << "\n" << kRunUsage;
      return 2;
    }
    return runSpec(*spec, out, err);
  }
  err << "sandbox: unknown subcommand '" << sub << "'\n" << kRunUsage << "usage: sandbox probe\n";
  return 2;
}

}  // namespace mcpgate::sandbox
