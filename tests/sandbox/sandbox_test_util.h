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

#include "sandbox/policy.h"
#include "sandbox/spawn.h"
#include "tests/support/process.h"

namespace mcpgate::sandbox::tests {

namespace fs = std::filesystem;

inline constexpr const char* kRunner = SANDBOX_RUNNER;
inline constexpr const char* kInit = SANDBOX_INIT;  // mcpgate-sandbox-init, what the gateway starts
inline constexpr const char* kProbeDir = ESCAPE_PROBE_DIR;
inline constexpr const char* kProbe = "/opt/probe/escape_probe";  // where the tests bind it

struct Result : test_support::ProcessResult {
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
  return Result{test_support::runProcess(argv)};
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

// escape_probe with `actions`, sandboxed as the gateway would spawn it (its directory bound).
inline SpawnSpec sandboxedProbe(std::vector<std::string> actions) {
  SpawnSpec spec;
  spec.name = "probe";
  spec.command = kProbe;
  spec.args = std::move(actions);
  SandboxPolicy policy;
  policy.commands = {kProbe};
  policy.binds = {{kProbeDir, "/opt/probe", true}};
  spec.sandbox = policy;
  spec.init_binary = kInit;
  return spec;
}

enum class As { kRoot, kNobody };

inline std::string asName(const ::testing::TestParamInfo<As>& info) {
  return info.param == As::kRoot ? "Root" : "Unprivileged";
}

}  // namespace mcpgate::sandbox::tests
