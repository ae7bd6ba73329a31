#include "sandbox/probe.h"

#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "sandbox/cgroup.h"
#include "sandbox/seccomp.h"
#include "sandbox/socket_notify.h"

namespace mcpgate::sandbox {
namespace {

// errno of unshare(CLONE_NEWUSER) then unshare(flag) in a throwaway child; 0 on success.
int tryUnshare(int flag) {
  pid_t pid = ::fork();
  if (pid < 0) return errno;
  if (pid == 0) {
    if (::unshare(CLONE_NEWUSER) != 0) ::_exit(errno);
    if (flag != CLONE_NEWUSER && ::unshare(flag) != 0) ::_exit(errno);
    ::_exit(0);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : EINVAL;
}

LayerStatus namespaceLayer(const char* layer, int flag, const char* what) {
  int err = tryUnshare(flag);
  if (err == 0) return {layer, true, what};
  std::string why = std::string("unshare failed: ") + std::strerror(err);
  if (flag == CLONE_NEWUSER) {
    why +=
        " (check kernel.unprivileged_userns_clone, user.max_user_namespaces, or a container "
        "seccomp profile that blocks unshare)";
  } else {
    why += " inside a new user namespace";
  }
  return {layer, false, why};
}

LayerStatus cgroupLayer(const char* layer, const char* controller, const char* file) {
  auto probe = probeController(controller);
  if (probe.parent.empty()) return {layer, false, probe.why_not};
  return {layer, true,
          std::string(probe.v2 ? "cgroup v2 " : "cgroup v1 ") + file + " under " + probe.parent};
}

LayerStatus seccompLayer() {
  if (::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
    return {"seccomp", false, std::string("kernel without seccomp: ") + std::strerror(errno)};
  }
  auto program = buildSeccompFilter();
  if (!program) return {"seccomp", false, program.error().message};
  return {"seccomp", true,
          "libseccomp deny list, " + std::to_string(program->size()) + " BPF instructions"};
}

LayerStatus mountApiLayer() {
  // EINVAL for bad arguments means the call exists; ENOSYS means a kernel older than 5.12.
  long r = ::syscall(SYS_mount_setattr, -1, "", 0, nullptr, 0);
  if (r != 0 && errno == ENOSYS) {
    return {"mount", false,
            "mount_setattr missing (kernel < 5.12): read-only binds cannot be made recursive"};
  }
  int err = tryUnshare(CLONE_NEWNS);
  if (err != 0) return {"mount", false, std::string("unshare(CLONE_NEWNS): ") + std::strerror(err)};
  return {"mount", true,
          "tmpfs root, pivot_root, read-only /usr and /etc files, tmpfs /tmp and HOME "
          "(noexec unless the policy allows)"};
}

}  // namespace

std::vector<LayerStatus> probeHost() {
  std::vector<LayerStatus> layers;
  layers.push_back(
      namespaceLayer("user", CLONE_NEWUSER,
                     "server runs as uid 1000 inside, mapped to nobody (root) or the caller"));
  layers.push_back(
      namespaceLayer("pid", CLONE_NEWPID, "own PID namespace, init as PID 1, fresh /proc"));
  layers.push_back(mountApiLayer());
  layers.push_back(namespaceLayer("network", CLONE_NEWNET, "own network namespace, loopback only"));
  layers.push_back(namespaceLayer("ipc", CLONE_NEWIPC, "own System V IPC and POSIX queues"));
  layers.push_back(namespaceLayer("uts", CLONE_NEWUTS, "own hostname mcp-<server>"));
  LayerStatus memory = cgroupLayer("cgroup-memory", "memory", "memory limit");
  if (!memory.available) {
    memory.detail +=
        "; with on_unavailable: degrade, memory is capped per process by RLIMIT_DATA instead";
  }
  layers.push_back(memory);
  layers.push_back(cgroupLayer("cgroup-pids", "pids", "pids.max"));
  layers.push_back(cgroupLayer("cgroup-cpu", "cpu", "CPU quota (cpu.max / cpu.cfs_quota_us)"));
  layers.push_back(
      {"rlimits", true, "CPU seconds, open files, file size, processes, no core dumps"});
  layers.push_back(seccompLayer());
  // network: host only: the supervisor answers the server's connects.
  const auto notify = socketNotifyAvailable();
  layers.push_back({"network-host-block", notify.has_value(),
                    notify ? "network: host: connects to metadata, link-local and the gateway's "
                             "ports refused (seccomp user notification, pidfd_getfd)"
                           : notify.error().message});
  bool nnp = ::prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) >= 0;
  layers.push_back(
      {"no_new_privs", nnp,
       nnp ? "setuid and file capabilities ignored" : "prctl(PR_GET_NO_NEW_PRIVS) failed"});
  layers.push_back(
      {"capabilities", true,
       "bounding, ambient, inheritable, permitted, effective all empty; securebits locked"});
  layers.push_back(
      {"environment", true, "declared variables only, denylist enforced, fixed PATH/HOME/TMPDIR"});
  return layers;
}

}  // namespace mcpgate::sandbox
