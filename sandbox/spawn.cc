#include "sandbox/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "sandbox/command.h"
#include "sandbox/env.h"
#include "sandbox/seccomp.h"
#include "sandbox/spawner_client.h"
#include "sandbox/spec_codec.h"

namespace mcpgate::sandbox {
namespace {

std::string errnoText(const char* what, int err) {
  return std::string(what) + ": " + std::strerror(err);
}

struct Pipe {
  UniqueFd read, write;
};

std::expected<Pipe, Error> makePipe() {
  std::array<int, 2> fds{};
  if (::pipe2(fds.data(), O_CLOEXEC) != 0) return std::unexpected(Error{errnoText("pipe2", errno)});
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

void setNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

// posix_spawn attributes and file actions, destroyed on every path.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

// The fds a sandbox supervisor gets beyond stdio, from 3 up in this order.
struct ExtraFds {
  int spec = -1;              // the sandbox-init's spec
  bool report = false;        // a pipe for the supervisor's report
  int egress = -1;            // the supervisor's end of the egress socketpair
};

// Starts `path` with stdio on fresh pipes and the `extra` fds numbered from 3
// (spec, report, egress: each present one takes the next number; the caller
// names them in argv). Nothing else of ours is inherited.
std::expected<Child, Error> startProcess(const std::string& path,
                                         std::vector<std::string> argv_strings,
                                         std::vector<std::string> env_strings,
                                         const std::string& cwd, const ExtraFds& extra = {}) {
  const bool report_channel = extra.report;
  auto in = makePipe();
  auto out = makePipe();
  auto err = makePipe();
  if (!in || !out || !err) return std::unexpected(Error{"cannot create pipes for the server"});
  std::expected<Pipe, Error> report = report_channel ? makePipe() : Pipe{};
  if (!report) return std::unexpected(report.error());

  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  SpawnSetup setup;
  posix_spawn_file_actions_adddup2(&setup.actions, in->read.get(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, out->write.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, err->write.get(), STDERR_FILENO);
  int next = 3;
  if (extra.spec >= 0) posix_spawn_file_actions_adddup2(&setup.actions, extra.spec, next++);
  if (report_channel) posix_spawn_file_actions_adddup2(&setup.actions, report->write.get(), next++);
  if (extra.egress >= 0) posix_spawn_file_actions_adddup2(&setup.actions, extra.egress, next++);
  // Nothing of the gateway's (sockets, other sessions' pipes) reaches the server.
  posix_spawn_file_actions_addclosefrom_np(&setup.actions, next);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&setup.actions, cwd.c_str());
  // The child starts with default signal dispositions and an empty mask, and in
  // its own process group so a terminal's ^C reaches the gateway only.
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&setup.attr, &all);
  posix_spawnattr_setsigmask(&setup.attr, &none);
  posix_spawnattr_setpgroup(&setup.attr, 0);
  posix_spawnattr_setflags(&setup.attr,
                           POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);

  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, path.c_str(), &setup.actions, &setup.attr, argv.data(), envp.data());
  if (rc != 0) return std::unexpected(Error{errnoText(("cannot start " + path).c_str(), rc)});

  Child child;
  child.pid = pid;
  child.pidfd = UniqueFd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  if (!child.pidfd.valid()) {
    int e = errno;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return std::unexpected(Error{errnoText("pidfd_open", e)});
  }
  child.stdin_fd = std::move(in->write);
  child.stdout_fd = std::move(out->read);
  child.stderr_fd = std::move(err->read);
  if (report_channel) {
    child.report_fd = std::move(report->read);
    setNonBlocking(child.report_fd.get());
  }
  setNonBlocking(child.stdin_fd.get());
  setNonBlocking(child.stdout_fd.get());
  setNonBlocking(child.stderr_fd.get());
  return child;
}

// Compiled once per process and sent with every spec: the program does not
// depend on the policy, and libseccomp takes ~0.5 ms of CPU to build it.
const std::expected<BpfProgram, Error>& seccompProgram() {
  static const std::expected<BpfProgram, Error> program = buildSeccompFilter();
  return program;
}

// The gateway is multithreaded: it only posix_spawns the init binary, which
// builds the sandbox single-threaded. The spec travels in a sealed memfd.
std::expected<Child, Error> spawnSandboxed(const SpawnSpec& spec) {
  if (auto r = validatePolicy(*spec.sandbox); !r) return std::unexpected(r.error());
  // Refuse here too, so the caller gets the error from spawn() and not as a
  // line on the child's stderr.
  auto path = resolveCommand(spec.command);
  if (!path) return std::unexpected(path.error());
  if (auto r = checkCommand(*spec.sandbox, spec.command, *path, spec.args); !r) {
    return std::unexpected(r.error());
  }
  const auto& seccomp = seccompProgram();
  if (!seccomp) return std::unexpected(seccomp.error());
  auto memfd = makeSpecFd(encodeSpec(spec, *seccomp));
  if (!memfd) return std::unexpected(memfd.error());
  // Above the stdio range, so that dup2 onto fd 3 is a real copy without close-on-exec.
  UniqueFd spec_fd(::fcntl(memfd->get(), F_DUPFD_CLOEXEC, 10));
  if (!spec_fd.valid()) return std::unexpected(Error{errnoText("dup of the spec fd", errno)});
  // --parent-pid: the supervisor dies with us (PR_SET_PDEATHSIG), and the
  // sandbox's init dies with the supervisor, so a gateway crash ends the tree.
  std::string init = spec.init_binary.empty() ? defaultInitBinary() : spec.init_binary;
  std::vector<std::string> argv = {init,           "sandbox-init", "--spec-fd", "3",
                                   "--parent-pid", std::to_string(::getpid())};
  if (spec.report_channel) argv.insert(argv.end(), {"--report-fd", "4"});
  UniqueFd egress_ours, egress_theirs;
  if (spec.sandbox->network == NetworkMode::kAllowlist) {
    std::array<int, 2> pair{};
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair.data()) != 0)
      return std::unexpected(Error{errnoText("socketpair for the egress channel", errno)});
    egress_ours.reset(pair[0]);
    // Above the numbers it is dup2'ed among, as the spec fd is.
    egress_theirs.reset(::fcntl(pair[1], F_DUPFD_CLOEXEC, 10));
    ::close(pair[1]);
    if (!egress_theirs.valid())
      return std::unexpected(Error{errnoText("dup of the egress channel", errno)});
    argv.insert(argv.end(), {"--egress-fd", spec.report_channel ? "5" : "4"});
  }
  auto child = startProcess(init, std::move(argv), {std::string("PATH=") + kSafePath}, "",
                            {spec_fd.get(), spec.report_channel, egress_theirs.get()});
  if (child) child->egress_fd = std::move(egress_ours);
  return child;
}

}  // namespace

std::string defaultInitBinary() {
  std::array<char, 4096> exe{};
  ssize_t n = ::readlink("/proc/self/exe", exe.data(), exe.size() - 1);
  std::string_view self(exe.data(), n > 0 ? static_cast<std::size_t>(n) : 0);
  // A replaced executable reads "<path> (deleted)": its directory now holds
  // the new version, whose init may not read our spec. Keep to our own binary.
  if (!self.starts_with('/') || self.ends_with(" (deleted)")) return "/proc/self/exe";
  std::string sibling(self.substr(0, self.rfind('/') + 1));
  sibling += kInitBinaryName;
  if (::access(sibling.c_str(), X_OK) == 0) return sibling;
  return "/proc/self/exe";
}

std::expected<Child, Error> spawn(const SpawnSpec& spec) {
  if (spec.sandbox) return spawnSandboxed(spec);
  auto path = resolveCommand(spec.command);
  if (!path) return std::unexpected(path.error());

  std::vector<std::string> env_strings;
  env_strings.reserve(spec.env.size() + 2);
  env_strings.push_back(std::string("PATH=") + kSafePath);
  const char* home = std::getenv("HOME");
  env_strings.push_back(std::string("HOME=") + (home ? home : "/tmp"));
  for (const auto& [key, value] : spec.env) {
    if (key == "PATH" || key == "HOME") {
      env_strings[key == "PATH" ? 0 : 1] = key + "=" + value;
    } else {
      env_strings.push_back(key + "=" + value);
    }
  }
  std::vector<std::string> argv_strings;
  argv_strings.push_back(spec.command);
  argv_strings.insert(argv_strings.end(), spec.args.begin(), spec.args.end());
  return startProcess(*path, std::move(argv_strings), std::move(env_strings), spec.cwd);
}

bool signalChild(const Child& child, int sig) {
  if (child.control.valid()) {
    const std::string request = std::string(spawner::kSignal) + std::to_string(sig);
    return ::send(child.control.get(), request.data(), request.size(),
                  MSG_NOSIGNAL | MSG_DONTWAIT) == static_cast<ssize_t>(request.size());
  }
  if (!child.pidfd.valid()) return false;
  return ::syscall(SYS_pidfd_send_signal, child.pidfd.get(), sig, nullptr, 0) == 0;
}

std::optional<int> tryReap(Child& child) {
  if (child.pid <= 0) return std::nullopt;
  if (child.control.valid()) {
    std::array<char, spawner::kMaxMessage> buffer{};
    ssize_t n = 0;
    do {
      n = ::recv(child.control.get(), buffer.data(), buffer.size(), MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return std::nullopt;
    int status = SIGKILL;  // EOF or an error: the spawner is gone, and the sandbox with it
    const std::string_view reply(buffer.data(), n > 0 ? static_cast<std::size_t>(n) : 0);
    if (reply.starts_with(spawner::kExited)) {
      status = std::atoi(std::string(reply.substr(spawner::kExited.size())).c_str());
    }
    child.pid = -1;
    child.pidfd.reset();
    child.control.reset();
    return status;
  }
  int status = 0;
  pid_t r = ::waitpid(child.pid, &status, WNOHANG);
  if (r == child.pid) {
    child.pid = -1;
    child.pidfd.reset();
    return status;
  }
  return std::nullopt;
}

int exitNoticeFd(const Child& child) {
  return child.control.valid() ? child.control.get() : child.pidfd.get();
}

std::string describeExit(int wait_status) {
  if (WIFEXITED(wait_status))
    return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) {
    return std::string("killed by signal ") + std::to_string(WTERMSIG(wait_status)) + " (" +
           ::strsignal(WTERMSIG(wait_status)) + ")";
  }
  return "ended with wait status " + std::to_string(wait_status);
}

}  // namespace mcpgate::sandbox
