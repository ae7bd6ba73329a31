#pragma once

// Runs a command as the tests' user would from a shell: argv (argv[0] a path),
// `input` on stdin (/dev/null when empty), stdout and stderr captured apart, and
// a deadline after which the run is killed. One helper for every test that runs
// a binary (the sandbox runner, the mcpgate CLI).

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

namespace mcpgate::test_support {

struct ProcessResult {
  int code = -1;  // the exit status, or 128 + the signal
  std::string out;
  std::string err;
  pid_t pid = -1;
};

inline ProcessResult runProcess(const std::vector<std::string>& argv,
                                const std::string& input = "",
                                std::chrono::seconds deadline = std::chrono::seconds(60)) {
  int in[2] = {-1, -1}, out[2], err[2];
  if ((!input.empty() && ::pipe2(in, O_CLOEXEC) != 0) || ::pipe2(out, O_CLOEXEC) != 0 ||
      ::pipe2(err, O_CLOEXEC) != 0) {
    return {};
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(input.empty() ? ::open("/dev/null", O_RDONLY | O_CLOEXEC) : in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  ProcessResult result;
  result.pid = pid;
  if (!input.empty()) {
    ::close(in[0]);
    // Small inputs (a secret, a line of JSON): they fit the pipe, so the child is not read first.
    (void)!::write(in[1], input.data(), input.size());
    ::close(in[1]);
  }
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  const auto end = std::chrono::steady_clock::now() + deadline;
  int open_count = 2;
  while (open_count > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      ::kill(pid, SIGKILL);
      break;
    }
    if (::poll(fds, 2, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      } else {
        (i == 0 ? result.out : result.err).append(buf, static_cast<std::size_t>(n));
      }
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) ::close(f.fd);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace mcpgate::test_support
