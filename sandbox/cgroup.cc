#include "sandbox/cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string_view>
#include <thread>

#include "sandbox/fd.h"

namespace mcpgate::sandbox {
namespace {

constexpr const char* kPrefix = "mcpgate-";

struct MountEntry {
  std::string path;
  bool v2;
};

// /proc/self/mounts and /proc/self/cgroup, read once for all the controllers
// one spawn probes (each read of mounts walks every mount of the host).
struct HostView {
  std::string mounts;
  std::string groups;
};

std::string readText(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

HostView readHostView() { return {readText("/proc/self/mounts"), readText("/proc/self/cgroup")}; }

// Mount point of the v1 hierarchy carrying `controller`, or of the v2 one.
std::optional<MountEntry> findMount(const HostView& view, const std::string& controller) {
  std::istringstream mounts(view.mounts);
  std::string dev, path, type, opts, rest;
  std::optional<MountEntry> v2;
  while (mounts >> dev >> path >> type >> opts && std::getline(mounts, rest)) {
    if (type == "cgroup") {
      std::stringstream ss(opts);
      std::string opt;
      while (std::getline(ss, opt, ',')) {
        if (opt == controller) return MountEntry{path, false};
      }
    } else if (type == "cgroup2" && !v2) {
      v2 = MountEntry{path, true};
    }
  }
  return v2;
}

// Our own group in the hierarchy: "N:controller,...:/path" (v1) or "0::/path" (v2).
std::optional<std::string> ownGroup(const HostView& view, const std::string& controller, bool v2) {
  std::istringstream file(view.groups);
  std::string line;
  while (std::getline(file, line)) {
    auto a = line.find(':');
    auto b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string controllers = line.substr(a + 1, b - a - 1);
    std::string path = line.substr(b + 1);
    if (v2 ? (line.substr(0, a) == "0" && controllers.empty())
           : ("," + controllers + ",").find("," + controller + ",") != std::string::npos) {
      return path;
    }
  }
  return std::nullopt;
}

std::expected<void, Error> writeText(const std::string& path, const std::string& text) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return std::unexpected(sysError("open " + path));
  if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    return std::unexpected(sysError("write " + text + " to " + path));
  }
  return {};
}

bool fileExists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

// One attempt: kills what is left in the group and removes it; true once it is gone.
bool killAndRemoveOnce(const std::string& dir) {
  std::stringstream procs(readText(dir + "/cgroup.procs"));
  pid_t pid = 0;
  while (procs >> pid) ::kill(pid, SIGKILL);
  return ::rmdir(dir.c_str()) == 0 || errno == ENOENT;
}

void killAndRemove(const std::string& dir, int attempts = 200) {
  if (dir.empty()) return;
  if (fileExists(dir + "/cgroup.kill")) (void)writeText(dir + "/cgroup.kill", "1");
  // The pid namespace's init has usually taken everything with it already;
  // this catches the rest, then waits for the kernel to let the group go.
  for (int attempt = 0; attempt < attempts; ++attempt) {
    if (killAndRemoveOnce(dir)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

ControllerProbe probeController(const HostView& view, const std::string& controller) {
  ControllerProbe probe{controller, "", false, ""};
  auto mount = findMount(view, controller);
  if (!mount) {
    probe.why_not = "no cgroup v1 '" + controller + "' hierarchy and no cgroup v2 mounted";
    return probe;
  }
  probe.v2 = mount->v2;
  auto own = ownGroup(view, controller, mount->v2);
  if (!own) {
    probe.why_not = "this process is in no '" + controller + "' cgroup (/proc/self/cgroup)";
    return probe;
  }
  std::string dir = mount->path + (*own == "/" ? "" : *own);
  if (mount->v2) {
    // Our group must hand the controller down to the groups we create.
    std::string subtree = " " + readText(dir + "/cgroup.subtree_control") + " ";
    for (char& c : subtree) {
      if (c == '\n') c = ' ';
    }
    if (subtree.find(" " + controller + " ") == std::string::npos) {
      probe.why_not = "cgroup v2 group " + dir + " does not delegate the '" + controller +
                      "' controller (cgroup.subtree_control)";
      return probe;
    }
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    probe.why_not = "cannot create groups in " + dir + " (" + std::strerror(errno) +
                    "); run as root or delegate the cgroup to this user";
    return probe;
  }
  probe.parent = dir;
  return probe;
}

}  // namespace

ControllerProbe probeController(const std::string& controller) {
  return probeController(readHostView(), controller);
}

bool removeGroupsOf(pid_t supervisor) {
  // Cgroup::create's names: the supervisor's pid, then '-' (so 12 never matches 123's groups).
  const std::string prefix = std::string(kPrefix) + std::to_string(supervisor) + "-";
  const HostView view = readHostView();
  bool gone = true;
  for (const char* controller : {"memory", "pids", "cpu"}) {
    const ControllerProbe probe = probeController(view, controller);
    if (probe.parent.empty()) continue;
    DIR* entries = ::opendir(probe.parent.c_str());
    if (entries == nullptr) continue;
    while (const dirent* entry = ::readdir(entries)) {
      if (std::string_view(entry->d_name).starts_with(prefix) &&
          !killAndRemoveOnce(probe.parent + "/" + entry->d_name)) {
        gone = false;
      }
    }
    ::closedir(entries);
  }
  return gone;
}

Cgroup Cgroup::create(const std::string& name, const Request& request,
                      std::vector<std::string>& unavailable) {
  Cgroup group;
  std::string leaf = std::string(kPrefix) + std::to_string(::getpid()) + "-" + name;
  for (char& c : leaf) {
    if (c == '/' || c == '.') c = '_';
  }
  HostView view = readHostView();
  auto make = [&](const std::string& controller, std::string& dir, bool& v2) -> bool {
    auto probe = probeController(view, controller);
    if (probe.parent.empty()) {
      unavailable.push_back(controller + ": " + probe.why_not);
      return false;
    }
    dir = probe.parent + "/" + leaf;
    v2 = probe.v2;
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      unavailable.push_back(controller + ": " + sysError("mkdir " + dir).message);
      dir.clear();
      return false;
    }
    return true;
  };
  if (request.memory_bytes != 0 && make("memory", group.memory_dir_, group.memory_v2_)) {
    std::string bytes = std::to_string(request.memory_bytes);
    std::expected<void, Error> r;
    if (group.memory_v2_) {
      r = writeText(group.memory_dir_ + "/memory.max", bytes);
      if (r && fileExists(group.memory_dir_ + "/memory.swap.max")) {
        r = writeText(group.memory_dir_ + "/memory.swap.max", "0");
      }
    } else {
      r = writeText(group.memory_dir_ + "/memory.limit_in_bytes", bytes);
      // Without this, swap would let the server hold more than the limit.
      if (r && fileExists(group.memory_dir_ + "/memory.memsw.limit_in_bytes")) {
        r = writeText(group.memory_dir_ + "/memory.memsw.limit_in_bytes", bytes);
      }
    }
    if (!r) {
      unavailable.push_back("memory: " + r.error().message);
      killAndRemove(group.memory_dir_);
      group.memory_dir_.clear();
    }
  }
  if (request.processes != 0 && make("pids", group.pids_dir_, group.pids_v2_)) {
    if (auto r = writeText(group.pids_dir_ + "/pids.max", std::to_string(request.processes)); !r) {
      unavailable.push_back("pids: " + r.error().message);
      killAndRemove(group.pids_dir_);
      group.pids_dir_.clear();
    }
  }
  if (request.cpu_millicores != 0 && make("cpu", group.cpu_dir_, group.cpu_v2_)) {
    // A quota per period of 100 ms: 1.5 cores may run 150 ms in every 100 ms.
    constexpr std::uint64_t kPeriodUs = 100000;
    std::string quota = std::to_string(request.cpu_millicores * kPeriodUs / 1000);
    std::expected<void, Error> r;
    if (group.cpu_v2_) {
      r = writeText(group.cpu_dir_ + "/cpu.max", quota + " " + std::to_string(kPeriodUs));
    } else {
      r = writeText(group.cpu_dir_ + "/cpu.cfs_period_us", std::to_string(kPeriodUs));
      if (r) r = writeText(group.cpu_dir_ + "/cpu.cfs_quota_us", quota);
    }
    if (!r) {
      unavailable.push_back("cpu: " + r.error().message);
      killAndRemove(group.cpu_dir_);
      group.cpu_dir_.clear();
    }
  }
  return group;
}

Cgroup::Cgroup(Cgroup&& other) noexcept
    : memory_dir_(std::move(other.memory_dir_)),
      pids_dir_(std::move(other.pids_dir_)),
      cpu_dir_(std::move(other.cpu_dir_)),
      memory_v2_(other.memory_v2_),
      pids_v2_(other.pids_v2_),
      cpu_v2_(other.cpu_v2_) {
  other.memory_dir_.clear();
  other.pids_dir_.clear();
  other.cpu_dir_.clear();
}

Cgroup& Cgroup::operator=(Cgroup&& other) noexcept {
  if (this != &other) {
    destroy();
    memory_dir_ = std::exchange(other.memory_dir_, {});
    pids_dir_ = std::exchange(other.pids_dir_, {});
    cpu_dir_ = std::exchange(other.cpu_dir_, {});
    memory_v2_ = other.memory_v2_;
    pids_v2_ = other.pids_v2_;
    cpu_v2_ = other.cpu_v2_;
  }
  return *this;
}

Cgroup::~Cgroup() { destroy(); }

std::expected<std::vector<UniqueFd>, Error> Cgroup::openSelfJoin() const {
  std::vector<UniqueFd> fds;
  for (auto [dir, v2] : groups()) {
    if (dir->empty() || v2) continue;
    std::string tasks = *dir + "/tasks";
    UniqueFd fd(::open(tasks.c_str(), O_WRONLY | O_CLOEXEC));
    if (!fd.valid()) return std::unexpected(sysError("open " + tasks));
    fds.push_back(std::move(fd));
  }
  return fds;
}

std::expected<void, Error> Cgroup::joinSelf(const std::vector<UniqueFd>& fds) {
  for (const auto& fd : fds) {
    // "0" is the calling thread; a single-threaded process moves entirely.
    if (::write(fd.get(), "0", 1) != 1) return std::unexpected(sysError("join the sandbox cgroup"));
  }
  return {};
}

std::expected<void, Error> Cgroup::addProcess(pid_t pid) {
  for (auto [dir, v2] : groups()) {
    if (dir->empty() || !v2) continue;
    if (auto r = writeText(*dir + "/cgroup.procs", std::to_string(pid)); !r) return r;
  }
  return {};
}

bool Cgroup::memoryLimitHit() const {
  if (memory_dir_.empty()) return false;
  // v1 memory.oom_control and v2 memory.events both carry "oom_kill N".
  std::stringstream ss(
      readText(memory_dir_ + (memory_v2_ ? "/memory.events" : "/memory.oom_control")));
  std::string key;
  std::uint64_t value = 0;
  while (ss >> key >> value) {
    if (key == "oom_kill" && value > 0) return true;
  }
  return false;
}

void Cgroup::destroy() {
  // All groups in turn, round after round, for up to 10 s: on a loaded host a
  // group can stay busy for over a second after its last task was reaped (the
  // soak at 1,000 sessions left 374 memory groups when each group had 1 s).
  std::array<const std::string*, 3> left = {&memory_dir_, &pids_dir_, &cpu_dir_};
  for (const std::string* dir : left) {
    if (!dir->empty() && fileExists(*dir + "/cgroup.kill")) {
      (void)writeText(*dir + "/cgroup.kill", "1");
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (bool busy = true; busy && std::chrono::steady_clock::now() < deadline;) {
    busy = false;
    for (const std::string*& dir : left) {
      if (dir == nullptr || dir->empty()) continue;
      if (killAndRemoveOnce(*dir)) {
        dir = nullptr;
      } else {
        busy = true;
      }
    }
    if (busy) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  memory_dir_.clear();
  pids_dir_.clear();
  cpu_dir_.clear();
}

void Cgroup::removeStaleSiblings() const {
  for (const auto& group : groups()) {
    const std::string* dir = group.first;
    if (dir->empty()) continue;
    std::string parent = dir->substr(0, dir->rfind('/'));
    DIR* entries = ::opendir(parent.c_str());
    if (entries == nullptr) continue;
    while (dirent* entry = ::readdir(entries)) {
      std::string name = entry->d_name;
      if (!name.starts_with(kPrefix)) continue;
      pid_t owner = static_cast<pid_t>(std::atol(name.c_str() + std::string(kPrefix).size()));
      // Only groups whose supervisor is gone (ours is alive). Its init may
      // still be a zombie waiting for the host's init to reap it, which keeps
      // the group busy: one attempt, and a later sandbox retries.
      if (owner > 0 && ::kill(owner, 0) != 0 && errno == ESRCH) {
        killAndRemove(parent + "/" + name, 1);
      }
    }
    ::closedir(entries);
  }
}

}  // namespace mcpgate::sandbox
