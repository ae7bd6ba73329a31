#include "sandbox/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace mcpgate::sandbox {
namespace {

constexpr const char* kSafePath = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";

std::string errnoText(const char* what, int err) {
  return std::string(what) + ": " + std::strerror(err);
}

// Resolves a bare command name against the fixed PATH, never the gateway's own.
std::expected<std::string, Error> resolveCommand(const std::string& command) {
  if (command.empty()) return std::unexpected(Error{"empty command"});
  if (command.find('/') != std::string::npos) return command;
  std::string_view path = kSafePath;
  while (!path.empty()) {
    auto colon = path.find(':');
    std::string candidate(path.substr(0, colon));
    candidate += "/" + command;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) break;
    path.remove_prefix(colon + 1);
  }
  return std::unexpected(Error{"command not found in " + std::string(kSafePath) + ": " + command});
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

}  // namespace

std::expected<Child, Error> spawn(const SpawnSpec& spec) {
  auto path = resolveCommand(spec.command);
  if (!path) return std::unexpected(path.error());

  auto in = makePipe();
  auto out = makePipe();
  auto err = makePipe();
  if (!in || !out || !err) return std::unexpected(Error{"cannot create pipes for the server"});

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
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  std::vector<std::string> argv_strings;
  argv_strings.push_back(spec.command);
  argv_strings.insert(argv_strings.end(), spec.args.begin(), spec.args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  SpawnSetup setup;
  posix_spawn_file_actions_adddup2(&setup.actions, in->read.get(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, out->write.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, err->write.get(), STDERR_FILENO);
  // Nothing of the gateway's (sockets, other sessions' pipes) reaches the server.
  posix_spawn_file_actions_addclosefrom_np(&setup.actions, 3);
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&setup.actions, spec.cwd.c_str());
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
  int rc = ::posix_spawn(&pid, path->c_str(), &setup.actions, &setup.attr, argv.data(), envp.data());
  if (rc != 0) return std::unexpected(Error{errnoText(("cannot start " + *path).c_str(), rc)});

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
  setNonBlocking(child.stdin_fd.get());
  setNonBlocking(child.stdout_fd.get());
  setNonBlocking(child.stderr_fd.get());
  return child;
}

bool signalChild(const Child& child, int sig) {
  if (!child.pidfd.valid()) return false;
  return ::syscall(SYS_pidfd_send_signal, child.pidfd.get(), sig, nullptr, 0) == 0;
}

std::optional<int> tryReap(Child& child) {
  if (child.pid <= 0) return std::nullopt;
  int status = 0;
  pid_t r = ::waitpid(child.pid, &status, WNOHANG);
  if (r == child.pid) {
    child.pid = -1;
    child.pidfd.reset();
    return status;
  }
  return std::nullopt;
}

std::string describeExit(int wait_status) {
  if (WIFEXITED(wait_status)) return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) {
    return std::string("killed by signal ") + std::to_string(WTERMSIG(wait_status)) + " (" +
           ::strsignal(WTERMSIG(wait_status)) + ")";
  }
  return "ended with wait status " + std::to_string(wait_status);
}

}  // namespace mcpgate::sandbox
