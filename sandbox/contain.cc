#include "sandbox/contain.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "sandbox/bind_source.h"
#include "sandbox/caps.h"
#include "sandbox/cgroup.h"
#include "sandbox/command.h"
#include "sandbox/env.h"
#include "sandbox/fd_passing.h"
#include "sandbox/lifecycle.h"
#include "sandbox/mount.h"
#include "sandbox/net.h"
#include "sandbox/pid.h"
#include "sandbox/report.h"
#include "sandbox/rlimits.h"
#include "sandbox/seccomp.h"
#include "sandbox/socket_notify.h"
#include "sandbox/user.h"
#include "sandbox/uts.h"

namespace mcpgate::sandbox {
namespace {

// Everything the namespace side needs, prepared before the clone so the
// children only copy memory and make system calls.
struct Prepared {
  const SpawnSpec* spec;
  const SandboxPolicy* policy;
  std::string path;  // resolved command
  std::vector<std::string> argv_strings;
  SandboxEnv env;
  std::string hostname;
  sigset_t server_mask;  // the signal mask the server starts with
  std::vector<ResolvedSource> binds;  // policy->binds, resolved while host uids are visible
};

// Points stdin and stdout at /dev/null (never leaves them closed: the next open would take their
// numbers). Runs in the supervisor and the init once the server's side holds the real ones.
void releaseServerPipes() {
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null < 0) {
    ::close(STDIN_FILENO);
    ::close(STDOUT_FILENO);
    return;
  }
  ::dup2(null, STDIN_FILENO);
  ::dup2(null, STDOUT_FILENO);
  if (null > STDERR_FILENO) ::close(null);
}

// The init is PID 1 of the sandbox, and anyone inside may read /proc/1/cmdline: the supervisor's
// command line it inherited names host paths (the binary's, `sandbox run --bind` sources, the
// gateway's pid). Overwrite it in place with the program's bare name.
void hideCommandLine() {
  std::ifstream stat("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), {});
  const auto paren = text.rfind(')');
  if (paren == std::string::npos) return;
  std::istringstream fields(text.substr(paren + 2));
  std::string field;
  unsigned long arg_start = 0, arg_end = 0;
  // Fields 48 and 49 (arg_start, arg_end); the stream starts at field 3.
  for (int i = 3; i <= 49 && fields >> field; ++i) {
    if (i == 48) arg_start = std::strtoul(field.c_str(), nullptr, 10);
    if (i == 49) arg_end = std::strtoul(field.c_str(), nullptr, 10);
  }
  if (arg_start == 0 || arg_end <= arg_start) return;
  auto* args = reinterpret_cast<char*>(arg_start);
  const std::size_t size = arg_end - arg_start;
  std::memset(args, 0, size);
  constexpr std::string_view kName = "mcpgate-sandbox-init";
  std::memcpy(args, kName.data(), std::min(kName.size(), size - 1));
  (void)::prctl(PR_SET_NAME, "sandbox-init", 0, 0, 0);  // /proc/1/status, comm
}

// Where say() writes: stderr, or the caller's report channel (runContained).
int report_fd = STDERR_FILENO;
// network: allowlist: where the supervisor hands the init's proxy listener to
// the gateway (-1: no gateway, as in `sandbox run`: nothing leaves).
int egress_fd = -1;

void say(const std::string& text) {
  std::string line = std::string(kSupervisorLinePrefix) + text + "\n";
  (void)::write(report_fd, line.data(), line.size());
}

// Reports why the sandbox was not started; returns the exit code to use.
int refuse(int code, const std::string& message) {
  say(message);
  return code;
}

// The namespace side reports a failure as "<exit code>:<message>" on a
// close-on-exec pipe; a successful exec closes it with nothing written.
[[noreturn]] void fail(int error_fd, int code, const std::string& message) {
  std::string text = std::to_string(code) + ":" + message;
  (void)::write(error_fd, text.data(), text.size());
  ::_exit(code);
}

template <typename T>
void orFail(const std::expected<T, Error>& r, int error_fd, int code = kExitSandboxFailed) {
  if (!r) fail(error_fd, code, r.error().message);
}

void resetSignals(const sigset_t& mask) {
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) ::signal(sig, SIG_DFL);
  }
  sigprocmask(SIG_SETMASK, &mask, nullptr);
}

// The server process: the last layers, then exec. Order matters: rlimits and
// capabilities need privileges that no_new_privs and seccomp then lock away.
// `hand_fd` >= 0 (network: host with its block): the filter holds the
// server's connects for the supervisor, which takes the listener through the
// init (socket_notify.h) before the server execs.
[[noreturn]] void execServer(const Prepared& p, const BpfProgram& seccomp, std::uint64_t data_limit,
                             int hand_fd, int error_fd) {
  if (::setsid() < 0) fail(error_fd, kExitSandboxFailed, sysError("setsid").message);
  orFail(applyRlimits(p.policy->limits), error_fd);
  resetSignals(p.server_mask);
  // Nothing inherited beyond stdio reaches the server; the error pipe is
  // already close-on-exec.
  if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    fail(error_fd, kExitSandboxFailed, sysError("close_range").message);
  }
  orFail(dropCapabilities(), error_fd);
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) {
    fail(error_fd, kExitSandboxFailed, sysError("PR_SET_PDEATHSIG").message);
  }
  orFail(setNoNewPrivs(), error_fd);
  if (hand_fd < 0) {
    orFail(loadSeccompFilter(seccomp), error_fd);
  } else {
    auto listener = loadSeccompFilterWithListener(seccomp);
    orFail(listener, error_fd);
    orFail(handOverListener(std::move(*listener), hand_fd), error_fd);
  }

  std::vector<char*> argv;
  for (const auto& a : p.argv_strings) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : p.env.entries) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  // RLIMIT_DATA last, right before exec: it also counts this process's own mappings, and code
  // that still allocates here (libcap, a sanitizer's runtime in a test build) must not run
  // under the server's cap. Lowering a limit needs no privilege, so it survives the drops.
  if (data_limit != 0) orFail(applyDataLimit(data_limit), error_fd);
  ::execve(p.path.c_str(), argv.data(), envp.data());
  int err = errno;
  fail(error_fd, err == ENOENT ? kExitNotFound : kExitCannotExec,
       sysError("exec " + p.path +
                    (err == ENOENT ? " (is it visible inside the sandbox? only /usr "
                                     "and the configured binds are)"
                                   : ""),
                err)
           .message);
}

// What releases the init to start the server: the seccomp program (a count
// and the instructions) and, riding along with the count (SCM_RIGHTS), the
// cgroup v1 `tasks` files the init joins by itself. The supervisor creates
// the groups while the init builds the root, so neither waits for the other.
// Last, the RLIMIT_DATA cap the server gets when no memory cgroup could be
// made (0: none), which only the supervisor knows, and whether the program
// notifies the supervisor of socket calls (network: host, socket_notify.h).
struct Release {
  BpfProgram program;
  std::vector<UniqueFd> cgroup_join;
  std::uint64_t data_limit = 0;
  std::uint8_t notify = 0;
};

constexpr std::size_t kMaxJoinFds = 3;  // memory, pids and cpu

std::optional<Release> receiveRelease(int fd) {
  std::uint32_t count = 0;
  Release release;
  ssize_t n = receiveWithFds(fd, &count, sizeof count, release.cgroup_join);
  if (n <= 0 || release.cgroup_join.size() > kMaxJoinFds) return std::nullopt;
  auto* rest = reinterpret_cast<char*>(&count) + n;
  if (!readAll(fd, rest, sizeof count - static_cast<std::size_t>(n))) return std::nullopt;
  if (count == 0 || count > BPF_MAXINSNS) return std::nullopt;
  release.program.resize(count);
  if (!readAll(fd, release.program.data(), count * sizeof(sock_filter))) return std::nullopt;
  if (!readAll(fd, &release.data_limit, sizeof release.data_limit)) return std::nullopt;
  if (!readAll(fd, &release.notify, sizeof release.notify)) return std::nullopt;
  return release;
}

bool sendRelease(int fd, const BpfProgram& program, const std::vector<UniqueFd>& cgroup_join,
                 std::uint64_t data_limit, bool notify) {
  if (cgroup_join.size() > kMaxJoinFds) return false;
  auto count = static_cast<std::uint32_t>(program.size());
  std::vector<int> join;
  for (const UniqueFd& f : cgroup_join) join.push_back(f.get());
  if (!sendWithFds(fd, &count, sizeof count, join)) return false;
  const std::uint8_t notify_byte = notify ? 1 : 0;
  return writeAll(fd, program.data(), program.size() * sizeof(sock_filter)) &&
         writeAll(fd, &data_limit, sizeof data_limit) &&
         writeAll(fd, &notify_byte, sizeof notify_byte);
}

// The sandbox's init, PID 1 of the new namespaces: builds the root, starts
// the server and stays as its reaper.
[[noreturn]] void sandboxInit(const Prepared& p, int go_fd, int error_fd) {
  // The report channel is the supervisor's; the server must not write to it.
  if (report_fd != STDERR_FILENO) ::close(report_fd);
  if (egress_fd >= 0) ::close(egress_fd);
  char go = 0;
  if (::read(go_fd, &go, 1) != 1) ::_exit(kExitSandboxFailed);  // supervisor gone
  hideCommandLine();
  // Still with the caller's file-system ids: see openBindSources.
  auto bind_sources = openBindSources(*p.policy, p.binds);
  orFail(bind_sources, error_fd);
  orFail(becomeSandboxUser(), error_fd);
  // Set after the uid switch, which clears it; then make sure the
  // supervisor did not die before it took effect.
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) {
    fail(error_fd, kExitSandboxFailed, sysError("PR_SET_PDEATHSIG").message);
  }
  pollfd pfd{go_fd, POLLIN, 0};
  if (::poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLHUP) != 0) ::_exit(kExitSandboxFailed);
  // The init is a copy of the supervisor (its environment, its memory): the
  // server must not read it through /proc/1 or attach to it.
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
    fail(error_fd, kExitSandboxFailed, sysError("PR_SET_DUMPABLE").message);
  }

  orFail(setHostname(p.hostname), error_fd);
  if (p.policy->network != NetworkMode::kHost) orFail(bringUpLoopback(), error_fd);
  if (p.policy->network == NetworkMode::kAllowlist) {
    // Made here, in the sandbox's namespace, as the sandbox user, and kept by
    // no process inside: only the gateway accepts on it.
    auto listener = openEgressListener();
    orFail(listener, error_fd);
    if (!sendDescriptor(go_fd, listener->get()))
      fail(error_fd, kExitSandboxFailed, sysError("pass the egress listener").message);
  }
  orFail(buildRoot(*p.policy, *bind_sources), error_fd);
  bind_sources->clear();  // the server must not inherit them (they are close-on-exec too)
  const std::string& cwd = p.spec->cwd.empty() ? std::string(kSandboxHome) : p.spec->cwd;
  if (::chdir(cwd.c_str()) != 0) {
    fail(error_fd, kExitSandboxFailed, sysError("chdir " + cwd + " inside the sandbox").message);
  }

  // The supervisor created the cgroups (and, on v2, moved us into them)
  // while we built the root. Nothing is forked before we are in them, so
  // the server is born inside the limits; the fds go before it could
  // inherit them. (v1 checks the opener's credentials, the supervisor's.)
  auto release = receiveRelease(go_fd);
  if (!release) ::_exit(kExitSandboxFailed);  // supervisor gone or failed: it reports why
  orFail(Cgroup::joinSelf(release->cgroup_join), error_fd);
  release->cgroup_join.clear();
  std::array<int, 2> hand{-1, -1};
  if (release->notify != 0 &&
      ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, hand.data()) != 0)
    fail(error_fd, kExitSandboxFailed, sysError("socketpair for the seccomp listener").message);
  UniqueFd hand_init(hand[0]), hand_server(hand[1]);
  pid_t server = ::fork();
  if (server < 0) fail(error_fd, kExitSandboxFailed, sysError("fork the server").message);
  if (server == 0) {
    hand_init.reset();
    execServer(p, release->program, release->data_limit, hand_server.get(), error_fd);
  }
  hand_server.reset();
  // Failed: the server reports why on the error pipe, and the supervisor sees
  // the channel close.
  if (hand_init.valid()) (void)relayListener(hand_init.get(), server, go_fd);
  hand_init.reset();
  ::close(error_fd);
  ::close(go_fd);
  // The server's stdin and stdout are the gateway's pipes: a copy held here would keep the
  // gateway from ever seeing the server close them.
  releaseServerPipes();
  runAsInit(server);
}

struct ChildResult {
  int code = 0;
  std::string message;
};

// Reads the namespace side's verdict: empty once the server has exec'd.
ChildResult readVerdict(int fd) {
  std::string text;
  std::array<char, 1024> buf{};
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf.data(), static_cast<std::size_t>(n));
  }
  if (text.empty()) return {};
  auto colon = text.find(':');
  int code =
      colon == std::string::npos ? kExitSandboxFailed : std::atoi(text.substr(0, colon).c_str());
  return {code == 0 ? kExitSandboxFailed : code,
          colon == std::string::npos ? text : text.substr(colon + 1)};
}

pid_t cloneInto(unsigned long flags) {
  // Raw clone with fork semantics: this process is single-threaded, and the
  // child needs the namespaces from its first instruction.
  return static_cast<pid_t>(::syscall(SYS_clone, flags | SIGCHLD, nullptr, nullptr, nullptr, 0));
}

}  // namespace

// NOLINTNEXTLINE(performance-unnecessary-value-param): moved into the program below
int runContained(const SpawnSpec& spec, BpfProgram seccomp, int report_channel,
                 int egress_channel) {
  report_fd = report_channel;
  egress_fd = egress_channel;
  const SandboxPolicy& policy = *spec.sandbox;
  bool degrade = policy.on_unavailable == OnUnavailable::kDegrade;
  LayerReport report;
  // Before anything is created: a SIGTERM from now on is forwarded to the
  // server (or ends a setup that has not started it), never a half-built
  // sandbox left behind with its cgroup.
  sigset_t server_mask = blockSupervisorSignals();
  // The init may fail and close its end of the release pipe before we write
  // to it: get EPIPE and read its verdict instead of dying of SIGPIPE. The
  // server starts with default dispositions again (execServer).
  ::signal(SIGPIPE, SIG_IGN);

  // Policy: what may run, with which arguments and environment.
  if (auto r = validatePolicy(policy); !r) return refuse(kExitSandboxFailed, r.error().message);
  auto path = resolveCommand(spec.command);
  if (!path) return refuse(kExitNotFound, path.error().message);
  if (auto r = checkCommand(policy, spec.command, *path, spec.args); !r) {
    return refuse(kExitSandboxFailed, r.error().message);
  }
  Prepared p{&spec, &policy, *path, {}, {}, {}, {}, {}};
  // Bind sources: here, before the user namespace hides who owns what.
  for (const Bind& bind : policy.binds) {
    auto resolved = resolveBindSource(bind.src);
    if (!resolved) return refuse(kExitSandboxFailed, resolved.error().message);
    p.binds.push_back(std::move(*resolved));
  }
  p.argv_strings.push_back(spec.command);
  p.argv_strings.insert(p.argv_strings.end(), spec.args.begin(), spec.args.end());
  auto declared = spec.env;
  declared.insert(declared.end(), policy.env.begin(), policy.env.end());
  p.env = buildSandboxEnv(declared);
  if (policy.network == NetworkMode::kAllowlist) {
    addProxyEnv(p.env, "http://127.0.0.1:" + std::to_string(kEgressProxyPort),
                policy.node_proxy_preload);
  }
  p.hostname = policy.hostname.empty() ? defaultHostname(spec.name) : policy.hostname;

  // Namespaces: user, pid, mount, ipc, uts, cgroup, and network unless host.
  if (auto r = dropSupplementaryGroupsIfRoot(); !r)
    return refuse(kExitSandboxFailed, r.error().message);
  p.server_mask = server_mask;
  std::array<int, 2> go{}, verdict{};
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go.data()) != 0 ||
      ::pipe2(verdict.data(), O_CLOEXEC) != 0) {
    return refuse(kExitSandboxFailed, sysError("socketpair/pipe2").message);
  }
  UniqueFd go_read(go[0]), go_write(go[1]), verdict_read(verdict[0]), verdict_write(verdict[1]);
  unsigned long flags =
      CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
  bool own_net = policy.network != NetworkMode::kHost;
  pid_t init = cloneInto(flags | (own_net ? CLONE_NEWNET : 0));
  // An allowlist never degrades to the host's network: that would allow everything.
  if (init < 0 && own_net && degrade && policy.network == NetworkMode::kNone) {
    report.degraded.emplace_back("network", sysError("clone(CLONE_NEWNET)").message);
    own_net = false;
    init = cloneInto(flags);
  }
  if (init < 0) {
    say(sysError("cannot create the sandbox namespaces (clone)").message +
        "; run `mcpgate sandbox probe` to see which layer this host refuses");
    return kExitSandboxFailed;
  }
  if (init == 0) {
    go_write.reset();
    verdict_read.reset();
    sandboxInit(p, go_read.get(), verdict_write.get());
  }
  go_read.reset();
  verdict_write.reset();
  // As in the init: only the server holds the gateway's pipes (stderr stays, for say()).
  releaseServerPipes();

  // Ends a sandbox whose setup failed on our side. The init may have failed
  // first (which is often why we failed, e.g. EPIPE): its reason wins.
  auto abort = [&](const std::string& message) {
    ::kill(init, SIGKILL);
    ::waitpid(init, nullptr, 0);  // the namespace is empty once its init is reaped
    ChildResult first = readVerdict(verdict_read.get());
    say(first.code != 0 ? first.message : message);
    return first.code != 0 ? first.code : kExitSandboxFailed;
  };
  if (auto r = writeIdMaps(init, sandboxHostIds()); !r)
    return abort("uid/gid maps: " + r.error().message);

  if (::write(go_write.get(), "g", 1) != 1)
    return abort(sysError("release the sandbox init").message);

  // While the init builds the root (the other core, usually): cgroup limits
  // for the whole tree, created now so that the clone did not wait for them.
  std::vector<std::string> unavailable;
  Cgroup cgroup =
      Cgroup::create(spec.name.empty() ? "server" : spec.name,
                     {policy.limits.memory_bytes, policy.limits.processes,
                      policy.limits.cpu_millicores},
                     unavailable);
  for (const auto& reason : unavailable) {
    auto colon = reason.find(':');
    std::string layer = "cgroup-" + reason.substr(0, colon);
    if (!degrade) {
      return abort("refusing to start: " + layer +
                   " limit cannot be enforced: " + reason.substr(colon + 2) +
                   " (on_unavailable: degrade, or --on-unavailable degrade, runs without it)");
    }
    report.degraded.emplace_back(layer, reason.substr(colon + 2));
  }
  auto cgroup_join = cgroup.openSelfJoin();
  if (!cgroup_join) return abort(cgroup_join.error().message);
  if (auto r = cgroup.addProcess(init); !r) return abort("cgroup: " + r.error().message);
  // network: host: the block on what the server's connects and sends reach,
  // answered by this process (socket_notify.h). Fail closed without it.
  bool notify = policy.network == NetworkMode::kHost && policy.host_block;
  std::optional<HostBlock> block;
  if (notify) {
    auto rules = hostBlockFor(policy);
    if (!rules) return abort(rules.error().message);
    block = std::move(*rules);
    if (auto available = socketNotifyAvailable(); !available) {
      if (!degrade) {
        return abort("refusing to start: network-host-block cannot be enforced: " +
                     available.error().message +
                     " (on_unavailable: degrade runs the server with the host's whole network)");
      }
      report.degraded.emplace_back("network-host-block", available.error().message);
      notify = false;
    }
  }
  // seccomp: compiled here (unless spawn()'s caller sent the program it
  // compiled once), in a process that is not the server, and loaded by the
  // server last. libseccomp's allocations stay out of the init. With
  // network: host always here: the program must notify exactly when this
  // process answers.
  if (policy.network == NetworkMode::kHost) seccomp.clear();
  std::expected<BpfProgram, Error> program =
      seccomp.empty() ? buildSeccompFilter(notify ? SocketCalls::kNotify : SocketCalls::kRun)
                      : std::move(seccomp);
  if (!program) return abort(program.error().message);

  report.enforced = {"user",         "pid",         "mount",          "ipc",
                     "uts",          "rlimits",     "seccomp",        "no_new_privs",
                     "capabilities", "environment", "die-with-parent"};
  if (own_net) report.enforced.insert(report.enforced.begin() + 3, "network");
  if (!own_net && policy.network == NetworkMode::kHost)
    report.noted.push_back("network: host (by policy)");
  if (notify) {
    report.enforced.emplace_back("network-host-block");
    report.noted.push_back(
        "network: host: connects and addressed sends to cloud metadata, link-local addresses" +
        std::string(policy.own_ports.empty() ? "" : " and the gateway's own ports") +
        " are refused" + (policy.allow.empty() ? "" : " unless allowed"));
  } else if (policy.network == NetworkMode::kHost && !policy.host_block) {
    report.noted.push_back("network: host without its block (host_block: false)");
  }
  if (policy.network == NetworkMode::kAllowlist) {
    report.enforced.emplace_back("egress-allowlist");
    report.noted.push_back(
        egress_fd >= 0 ? "network: allowlist, through the gateway's egress proxy at 127.0.0.1:" +
                             std::to_string(kEgressProxyPort)
                       : "network: allowlist without a gateway to run the proxy: nothing leaves");
  }
  if (cgroup.hasMemory()) report.enforced.push_back("cgroup-memory");
  if (cgroup.hasPids()) report.enforced.push_back("cgroup-pids");
  if (cgroup.hasCpu()) report.enforced.push_back("cgroup-cpu");
  // Without the memory cgroup (degrade only: fail refused above), memory is
  // still capped, per process.
  std::uint64_t data_limit = 0;
  if (!cgroup.hasMemory() && policy.limits.memory_bytes != 0) {
    data_limit = policy.limits.memory_bytes;
    report.enforced.push_back("memory-rlimit-data");
    report.noted.push_back("memory capped per process, not per server, by RLIMIT_DATA at " +
                           std::to_string(data_limit) + " bytes (no memory cgroup)");
  }
  report.noted.push_back(
      "address space not capped (V8 reserves large ranges; memory is capped by cgroup or "
      "RLIMIT_DATA)");
  for (const auto& name : p.env.dropped)
    report.noted.push_back("environment variable dropped: " + name);
  if (policy.report) say(report.toJson(spec.name));

  if (!sendRelease(go_write.get(), *program, *cgroup_join, data_limit, notify))
    return abort(sysError("send the seccomp program to the sandbox init").message);
  cgroup_join->clear();
  std::optional<SocketGuard> guard;
  if (notify) {
    // The server waits for us to take its listener before it execs.
    auto listener = receiveListener(go_write.get());
    if (!listener) return abort(listener.error().message);
    guard.emplace(std::move(*listener), std::move(*block), [name = spec.name](const Refusal& r) {
      say(egressRefusalJson(name, r.address, r.port, r.reason));
    });
  }
  if (policy.network == NetworkMode::kAllowlist) {
    // Sent by the init before it waited for the release. None: the init
    // failed, and its verdict says why.
    UniqueFd listener = receiveDescriptor(go_write.get());
    if (listener.valid() && egress_fd >= 0 && !sendDescriptor(egress_fd, listener.get()))
      return abort(sysError("hand the egress listener to the gateway").message);
  }
  if (egress_fd >= 0) ::close(egress_fd);
  egress_fd = -1;
  ChildResult verdict_result = readVerdict(verdict_read.get());
  if (verdict_result.code != 0) {
    ::waitpid(init, nullptr, 0);
    say(verdict_result.message);
    return verdict_result.code;
  }

  int status = superviseChild(init, /*reap_all=*/false);
  int code = status < 0 ? kExitSandboxFailed : exitCodeOf(status);
  if (cgroup.memoryLimitHit()) {
    say("the server was killed by the memory limit (" + std::to_string(policy.limits.memory_bytes) +
        " bytes)");
  }
  // Housekeeping for supervisors that were SIGKILLed, once the server is gone.
  cgroup.removeStaleSiblings();
  cgroup.destroy();
  return code;
}

}  // namespace mcpgate::sandbox
