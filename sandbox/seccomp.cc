#include "sandbox/seccomp.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <memory>
#include <string>

#include "sandbox/fd.h"

namespace mcpgate::sandbox {
namespace {

struct CtxDeleter {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};
using Ctx = std::unique_ptr<void, CtxDeleter>;

// Answered EPERM: as if the server lacked the privilege, which it does.
constexpr std::array kDenied = {"ptrace",
                                "process_vm_readv",
                                "process_vm_writev",
                                "kcmp",
                                "pidfd_getfd",
                                "perf_event_open",
                                "bpf",
                                "userfaultfd",
                                "keyctl",
                                "add_key",
                                "request_key",
                                "unshare",
                                "setns",
                                "mount",
                                "umount2",
                                "pivot_root",
                                "chroot",
                                "open_tree",
                                "move_mount",
                                "fsopen",
                                "fsconfig",
                                "fsmount",
                                "fspick",
                                "mount_setattr",
                                "open_by_handle_at",
                                "name_to_handle_at",
                                "init_module",
                                "finit_module",
                                "delete_module",
                                "kexec_load",
                                "kexec_file_load",
                                "reboot",
                                "swapon",
                                "swapoff",
                                "acct",
                                "quotactl",
                                "quotactl_fd",
                                "syslog",
                                "iopl",
                                "ioperm",
                                "settimeofday",
                                "clock_settime",
                                "clock_adjtime",
                                "adjtimex",
                                "modify_ldt",
                                "lookup_dcookie",
                                "vhangup",
                                "uselib",
                                "nfsservctl",
                                "sethostname",
                                "setdomainname",
                                "fanotify_init",
                                "io_uring_setup",
                                "io_uring_enter",
                                "io_uring_register"};

constexpr std::array<std::uint64_t, 7> kNamespaceCloneFlags = {
    CLONE_NEWNS,  CLONE_NEWUSER, CLONE_NEWPID,   CLONE_NEWNET,
    CLONE_NEWIPC, CLONE_NEWUTS,  CLONE_NEWCGROUP};

class Builder {
 public:
  explicit Builder(scmp_filter_ctx ctx) : ctx_(ctx) {}

  // Unknown names (a call this architecture lacks) are skipped, not fatal.
  void rule(const char* name, std::uint32_t action, std::span<const scmp_arg_cmp> cmps = {}) {
    if (!status_) return;
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) return;
    int rc =
        seccomp_rule_add_array(ctx_, action, nr, static_cast<unsigned>(cmps.size()), cmps.data());
    if (rc != 0) {
      status_ = std::unexpected(
          Error{std::string("seccomp rule for ") + name + ": " + std::strerror(-rc)});
    }
  }
  void rule(const char* name, std::uint32_t action, scmp_arg_cmp cmp) {
    rule(name, action, std::span<const scmp_arg_cmp>(&cmp, 1));
  }
  std::expected<void, Error> status() const { return status_; }

 private:
  scmp_filter_ctx ctx_;
  std::expected<void, Error> status_;
};

void denyNamespaceClones(Builder& b) {
  for (std::uint64_t flag : kNamespaceCloneFlags) {
    b.rule("clone", SCMP_ACT_ERRNO(EPERM), SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
  }
  // clone3 passes flags in memory seccomp cannot read: ENOSYS makes glibc,
  // Node and Python fall back to clone, which the rules above can check.
  b.rule("clone3", SCMP_ACT_ERRNO(ENOSYS));
}

// Only personality(PER_LINUX) and the query 0xffffffff: other personas turn
// off ASLR or make data executable. libseccomp allows one comparison per
// argument per rule, so "not 0 and not 0xffffffff" is spelled as a union.
void denyPersonalities(Builder& b) {
  const std::uint64_t top = 1ULL << 31;
  for (int bit = 0; bit < 31; ++bit) {  // bit 31 clear, some lower bit set
    std::uint64_t m = 1ULL << bit;
    b.rule("personality", SCMP_ACT_ERRNO(EPERM), SCMP_A0(SCMP_CMP_MASKED_EQ, top | m, m));
  }
  for (int bit = 0; bit < 31; ++bit) {  // bits above `bit` set, `bit` clear
    std::uint64_t mask = 0xffffffffULL & ~((1ULL << bit) - 1);
    std::uint64_t datum = mask & ~(1ULL << bit);
    b.rule("personality", SCMP_ACT_ERRNO(EPERM), SCMP_A0(SCMP_CMP_MASKED_EQ, mask, datum));
  }
  b.rule("personality", SCMP_ACT_ERRNO(EPERM), SCMP_A0(SCMP_CMP_GT, 0xffffffffULL));
}

// Injecting keystrokes into a terminal the server shares with a user. The
// kernel reads the request as 32 bits, so compare only those.
void denyTerminalInjection(Builder& b) {
  for (std::uint64_t request : {std::uint64_t{TIOCSTI}, std::uint64_t{TIOCLINUX}}) {
    b.rule("ioctl", SCMP_ACT_ERRNO(EPERM), SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffULL, request));
  }
}

// unix, inet, inet6 and netlink only: packet, vsock, bluetooth, alg (the
// kernel crypto API), ... are attack surface no MCP server needs.
void denySocketFamilies(Builder& b) {
  for (std::uint64_t family = 0; family < 17; ++family) {
    if (family == AF_UNIX || family == AF_INET || family == AF_INET6 || family == AF_NETLINK)
      continue;
    b.rule("socket", SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_A0(SCMP_CMP_EQ, family));
  }
  static_assert(AF_NETLINK == 16);
  b.rule("socket", SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_A0(SCMP_CMP_GE, std::uint64_t{17}));
}

// network: host: the calls that name a destination wait for the supervisor,
// which decides on its own copy of the address and makes the call itself
// (socket_notify.h). sendto without an address (send(), on a connected
// socket) reads none, so it runs; sendmsg and sendmmsg carry theirs in
// memory the filter cannot see.
void notifySocketCalls(Builder& b) {
  b.rule("connect", SCMP_ACT_NOTIFY);
  b.rule("sendto", SCMP_ACT_NOTIFY, SCMP_A4(SCMP_CMP_NE, 0));
  b.rule("sendmsg", SCMP_ACT_NOTIFY);
  b.rule("sendmmsg", SCMP_ACT_NOTIFY);
}

}  // namespace

std::expected<BpfProgram, Error> buildSeccompFilter(SocketCalls sockets) {
  Ctx ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (!ctx) return std::unexpected(Error{"seccomp_init failed"});
  // A 32-bit or x32 call would bypass every rule written for x86-64 numbers.
  if (seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) != 0) {
    return std::unexpected(Error{"seccomp: cannot set the bad-architecture action"});
  }
  // A binary tree on the syscall number instead of a linear list: the
  // kernel emulates the filter for every syscall when it is loaded (to cache
  // the always-allowed ones), and runs it for the rest; both get cheaper.
  if (seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_OPTIMIZE, 2) != 0) {
    return std::unexpected(Error{"seccomp: cannot select the binary-tree filter layout"});
  }
  Builder b(ctx.get());
  for (const char* name : kDenied) b.rule(name, SCMP_ACT_ERRNO(EPERM));
  denyNamespaceClones(b);
  denyPersonalities(b);
  denyTerminalInjection(b);
  denySocketFamilies(b);
  if (sockets == SocketCalls::kNotify) notifySocketCalls(b);
  if (auto s = b.status(); !s) return std::unexpected(s.error());

  UniqueFd mem(::memfd_create("mcpgate-seccomp", MFD_CLOEXEC));
  if (!mem.valid()) return std::unexpected(sysError("memfd_create for the seccomp program"));
  if (int rc = seccomp_export_bpf(ctx.get(), mem.get()); rc != 0) {
    return std::unexpected(Error{std::string("seccomp_export_bpf: ") + std::strerror(-rc)});
  }
  off_t size = ::lseek(mem.get(), 0, SEEK_END);
  if (size <= 0 || size % static_cast<off_t>(sizeof(sock_filter)) != 0) {
    return std::unexpected(Error{"seccomp: exported program has a bad size"});
  }
  BpfProgram program(static_cast<std::size_t>(size) / sizeof(sock_filter));
  if (::pread(mem.get(), program.data(), static_cast<std::size_t>(size), 0) != size) {
    return std::unexpected(sysError("reading the seccomp program"));
  }
  return program;
}

std::expected<void, Error> loadSeccompFilter(std::span<const sock_filter> program) {
  sock_fprog prog{static_cast<unsigned short>(program.size()),
                  const_cast<sock_filter*>(program.data())};
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) {
    return std::unexpected(sysError("load the seccomp filter"));
  }
  return {};
}

std::expected<UniqueFd, Error> loadSeccompFilterWithListener(std::span<const sock_filter> program) {
  sock_fprog prog{static_cast<unsigned short>(program.size()),
                  const_cast<sock_filter*>(program.data())};
  UniqueFd listener(static_cast<int>(
      ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog)));
  if (!listener.valid()) {
    return std::unexpected(sysError("load the seccomp filter with a notification listener"));
  }
  return listener;
}

}  // namespace mcpgate::sandbox
