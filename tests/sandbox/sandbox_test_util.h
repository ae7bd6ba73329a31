#pragma once

// What the sandbox tests share: where the runner, the init and escape_probe
// are, running a command with its output captured, the cgroups a sandbox
// leaves behind, and the root / unprivileged parameter.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace mcpgate::sandbox::tests {

namespace fs = std::filesystem;

inline constexpr const char* kRunner = SANDBOX_RUNNER;
inline constexpr const char* kInit = SANDBOX_INIT;  // mcpgate-sandbox-init, what the gateway starts
inline constexpr const char* kProbeDir = ESCAPE_PROBE_DIR;
inline constexpr const char* kProbe = "/opt/probe/escape_probe";  // where the tests bind it

struct Result {
  int code = -1;
  std::string out;
  std::string err;
  pid_t pid = -1;
  // "action" -> "ok ..." / "ENOENT ..." for every line escape_probe printed.
  [[nodiscard]] std::string action(const std::string& name) const {
    std::istringstream lines(out);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.starts_with(name + ": ")) return line.substr(name.size() + 2);
    }
    return "(no output for " + name + "; stderr: " + err + ")";
  }
};

// Runs argv with stdout and stderr captured, stdin from /dev/null, and a
// 60 s deadline after which the whole run is killed.
inline Result run(const std::vector<std::string>& argv) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) return {};
  pid_t pid = ::fork();
  if (pid == 0) {
    int null = ::open("/dev/null", O_RDONLY);
    ::dup2(null, 0);
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
  Result result;
  result.pid = pid;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int open_count = 2;
  while (open_count > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      ::kill(pid, SIGKILL);
      break;
    }
    if (::poll(fds, 2, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
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

// Directories where the sandbox creates its cgroups (our own groups).
inline std::vector<fs::path> cgroupParents() {
  std::vector<fs::path> parents;
  std::ifstream self("/proc/self/cgroup");
  std::string line;
  while (std::getline(self, line)) {
    auto a = line.find(':'), b = line.find(':', a + 1);
    std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    for (const char* c : {"memory", "pids", "cpu"}) {
      if (controllers == c) parents.push_back(fs::path("/sys/fs/cgroup") / c / path.substr(1));
    }
  }
  return parents;
}

inline std::vector<std::string> leftoverCgroups(pid_t supervisor) {
  std::vector<std::string> left;
  std::string prefix = "mcpgate-" + std::to_string(supervisor) + "-";
  for (const auto& parent : cgroupParents()) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(parent, ec)) {
      if (entry.path().filename().string().starts_with(prefix)) left.push_back(entry.path());
    }
  }
  return left;
}

enum class As { kRoot, kNobody };

inline std::string asName(const ::testing::TestParamInfo<As>& info) {
  return info.param == As::kRoot ? "Root" : "Unprivileged";
}

}  // namespace mcpgate::sandbox::tests
