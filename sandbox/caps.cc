#include "sandbox/caps.h"

#include <linux/capability.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>

namespace mcpgate::sandbox {

std::expected<void, Error> dropCapabilities() {
  // The bounding set and securebits need CAP_SETPCAP, so they go first.
  for (int cap = 0; cap <= 63; ++cap) {
    if (::prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0) break;  // past the kernel's last cap
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
      return std::unexpected(
          sysError("drop capability " + std::to_string(cap) + " from the bounding set"));
    }
  }
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) {
    return std::unexpected(sysError("clear ambient capabilities"));
  }
  // Locked, so that nothing the server runs can turn root semantics back on.
  unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                       SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
                       SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
  if (::prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) != 0)
    return std::unexpected(sysError("set securebits"));
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  if (::syscall(SYS_capset, &header, data) != 0)
    return std::unexpected(sysError("clear capabilities"));
  return {};
}

std::expected<void, Error> setNoNewPrivs() {
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return std::unexpected(sysError("PR_SET_NO_NEW_PRIVS"));
  return {};
}

}  // namespace mcpgate::sandbox
