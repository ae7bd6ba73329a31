#pragma once

// cgroup limits for the whole process tree of one server: memory (the only
// memory cap that does not break V8), process count and CPU bandwidth. cgroup v2 where the
// host delegates the controllers to us, v1 where that is what the host has.
// Each sandbox gets its own group under the caller's own group, removed when
// the sandbox ends.

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sandbox/error.h"
#include "sandbox/fd.h"

namespace mcpgate::sandbox {

struct ControllerProbe {
  std::string controller;  // "memory", "pids" or "cpu"
  std::string parent;      // directory we would create our group in; empty when unavailable
  bool v2 = false;
  std::string why_not;  // set when unavailable
};

// Where this process could create a group with `controller`, or why it cannot.
[[nodiscard]] ControllerProbe probeController(const std::string& controller);

// For the process that started the sandbox supervisor `supervisor` (a child of ours, in our
// cgroups) and reaped it after a SIGKILL, which left the supervisor no time to remove its groups:
// kills what is left in them and removes them, in one attempt. True once none is left; a group
// stays busy for a moment after its last task exited, so the caller tries again while false.
[[nodiscard]] bool removeGroupsOf(pid_t supervisor);

class Cgroup {
 public:
  // Creates one group per requested controller. A controller that is
  // unavailable is reported in `unavailable` (with the reason) and skipped.
  struct Request {
    std::uint64_t memory_bytes = 0;  // 0: not requested
    std::uint64_t processes = 0;     // 0: not requested
    std::uint64_t cpu_millicores = 0;  // 0: not requested
  };
  [[nodiscard]] static Cgroup create(const std::string& name, const Request& request,
                                     std::vector<std::string>& unavailable);

  Cgroup() = default;
  Cgroup(Cgroup&&) noexcept;
  Cgroup& operator=(Cgroup&&) noexcept;
  Cgroup(const Cgroup&) = delete;
  Cgroup& operator=(const Cgroup&) = delete;
  ~Cgroup();

  [[nodiscard]] bool hasMemory() const { return !memory_dir_.empty(); }
  [[nodiscard]] bool hasPids() const { return !pids_dir_.empty(); }
  [[nodiscard]] bool hasCpu() const { return !cpu_dir_.empty(); }

  // Moving another process into a group takes the kernel's global
  // threadgroup lock for writing, which waits for an RCU grace period (~10 ms,
  // most of a spawn). A thread moving only itself through a v1 `tasks` file
  // skips that lock, so for v1 the sandbox's init joins by itself: these fds
  // are opened here, with our credentials (the kernel checks the opener's),
  // and inherited by the init, which calls joinSelf() before it forks.
  [[nodiscard]] std::expected<std::vector<UniqueFd>, Error> openSelfJoin() const;
  [[nodiscard]] static std::expected<void, Error> joinSelf(const std::vector<UniqueFd>& fds);

  // Moves `pid` into the groups the init cannot join by itself (cgroup v2).
  [[nodiscard]] std::expected<void, Error> addProcess(pid_t pid);

  // True if the kernel killed a process of the group for exceeding the memory limit.
  [[nodiscard]] bool memoryLimitHit() const;

  // Kills what is left in the groups and removes them.
  void destroy();

  // Removes leftover groups beside ours of sandboxes whose supervisor was
  // SIGKILLed. Called once a sandbox ended, so that no spawn waits for it
  // before its server runs, and without probing the host again.
  void removeStaleSiblings() const;

 private:
  // The groups in a fixed order (memory, pids, cpu), for the loops over all.
  [[nodiscard]] std::array<std::pair<const std::string*, bool>, 3> groups() const {
    return {{{&memory_dir_, memory_v2_}, {&pids_dir_, pids_v2_}, {&cpu_dir_, cpu_v2_}}};
  }

  std::string memory_dir_;
  std::string pids_dir_;
  std::string cpu_dir_;
  bool memory_v2_ = false;
  bool pids_v2_ = false;
  bool cpu_v2_ = false;
};

}  // namespace mcpgate::sandbox
