#include "sandbox/user.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>

#include "sandbox/fd.h"

namespace mcpgate::sandbox {
namespace {

std::expected<void, Error> writeFile(const std::string& path, const std::string& text) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return std::unexpected(sysError("open " + path));
  if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    return std::unexpected(sysError("write '" + text.substr(0, text.size() - 1) + "' to " + path));
  }
  return {};
}

}  // namespace

HostIds sandboxHostIds() {
  if (::geteuid() == 0) return {kNobody, kNobody};
  return {::geteuid(), ::getegid()};
}

std::expected<void, Error> dropSupplementaryGroupsIfRoot() {
  if (::geteuid() != 0) return {};
  if (::setgroups(0, nullptr) != 0) return std::unexpected(sysError("setgroups(0) as root"));
  return {};
}

std::expected<void, Error> writeIdMaps(pid_t child, HostIds host) {
  std::string proc = "/proc/" + std::to_string(child);
  // Required before gid_map for an unprivileged writer; for root it also
  // stops the server from ever regaining groups.
  if (auto r = writeFile(proc + "/setgroups", "deny\n"); !r) return r;
  if (auto r = writeFile(proc + "/gid_map",
                         std::to_string(kSandboxGid) + " " + std::to_string(host.gid) + " 1\n");
      !r) {
    return r;
  }
  return writeFile(proc + "/uid_map",
                   std::to_string(kSandboxUid) + " " + std::to_string(host.uid) + " 1\n");
}

std::expected<void, Error> becomeSandboxUser() {
  // When the caller was root, our uid is still host root (unmapped here);
  // switching to the mapped id must not drop the namespace capabilities.
  if (::prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0)
    return std::unexpected(sysError("PR_SET_KEEPCAPS"));
  if (::setresgid(kSandboxGid, kSandboxGid, kSandboxGid) != 0) {
    return std::unexpected(sysError("setresgid to the sandbox gid"));
  }
  if (::setresuid(kSandboxUid, kSandboxUid, kSandboxUid) != 0) {
    return std::unexpected(sysError("setresuid to the sandbox uid"));
  }
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  if (::syscall(SYS_capget, &header, data) != 0) return std::unexpected(sysError("capget"));
  for (auto& d : data) d.effective = d.permitted;
  if (::syscall(SYS_capset, &header, data) != 0) return std::unexpected(sysError("capset"));
  if (::prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) != 0)
    return std::unexpected(sysError("PR_SET_KEEPCAPS"));
  return {};
}

}  // namespace mcpgate::sandbox
