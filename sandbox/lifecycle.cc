#include "sandbox/lifecycle.h"

#include <poll.h>
#include <sys/wait.h>

#include <array>
#include <cerrno>

namespace mcpgate::sandbox {

sigset_t forwardedSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2}) sigaddset(&set, sig);
  return set;
}

sigset_t blockSupervisorSignals() {
  sigset_t set = forwardedSignals();
  sigaddset(&set, SIGCHLD);
  sigset_t old;
  sigprocmask(SIG_BLOCK, &set, &old);
  return old;
}

int superviseChild(pid_t child, bool reap_all) {
  sigset_t set = forwardedSignals();
  sigaddset(&set, SIGCHLD);
  for (;;) {
    // Reap first: the child may have exited before we started waiting.
    for (;;) {
      int status = 0;
      pid_t r = ::waitpid(reap_all ? -1 : child, &status, WNOHANG);
      if (r == child) return status;
      if (r <= 0) break;
    }
    siginfo_t info{};
    int sig = ::sigwaitinfo(&set, &info);
    if (sig < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (sig != SIGCHLD) ::kill(child, sig);
  }
}

int exitCodeOf(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 255;
}

int terminate(Child& child, std::chrono::milliseconds grace) {
  if (child.pid <= 0) return -1;
  signalChild(child, SIGTERM);
  pollfd pfd{child.pidfd.get(), POLLIN, 0};
  if (child.pidfd.valid()) {
    int r = 0;
    do {
      r = ::poll(&pfd, 1, static_cast<int>(grace.count()));
    } while (r < 0 && errno == EINTR);
    if (r == 0) signalChild(child, SIGKILL);
  } else {
    ::kill(child.pid, SIGKILL);
  }
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  child.pid = -1;
  child.pidfd.reset();
  return status;
}

}  // namespace mcpgate::sandbox
