#include "sandbox/mount.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "sandbox/env.h"
#include "sandbox/fd.h"
#include "sandbox/user.h"

namespace mcpgate::sandbox {
namespace {

// While the root is built, the host's root is reachable under kOld and the
// new root is assembled under kNew; both live on a scratch tmpfs.
constexpr const char* kScratch = "/tmp";
constexpr std::string_view kOld = "/oldroot";
constexpr std::string_view kNew = "/newroot";

// Files and directories of /etc that runtimes read: name resolution, TLS
// roots, the dynamic loader's cache, Debian's alternatives symlinks.
constexpr std::array<std::string_view, 14> kEtcEntries = {
    "resolv.conf",  "hosts",           "nsswitch.conf",
    "host.conf",    "gai.conf",        "localtime",
    "ssl",          "ca-certificates", "ca-certificates.conf",
    "alternatives", "ld.so.cache",     "ld.so.conf",
    "ld.so.conf.d", "mime.types"};

// Top-level entries that are symlinks into /usr on usrmerge systems; on other
// systems they are directories and are bound read-only.
constexpr std::array<std::string_view, 6> kUsrLinks = {"bin",   "sbin",  "lib",
                                                       "lib32", "lib64", "libx32"};

constexpr std::array<std::string_view, 5> kDevices = {"null", "zero", "full", "random", "urandom"};

std::string newPath(std::string_view inside) { return std::string(kNew) + std::string(inside); }
std::string oldPath(std::string_view host) { return std::string(kOld) + std::string(host); }

std::expected<void, Error> doMount(const char* src, const std::string& dst, const char* type,
                                   unsigned long flags, const char* data = nullptr) {
  if (::mount(src, dst.c_str(), type, flags, data) != 0) {
    return std::unexpected(sysError(std::string("mount ") +
                                    (type  ? type
                                     : src ? src
                                           : "") +
                                    " on " + dst));
  }
  return {};
}

// Tightens every mount under `path` (a recursive bind has several) without
// touching flags the kernel has locked from the parent namespace.
std::expected<void, Error> restrict(const std::string& path, std::uint64_t attrs) {
  mount_attr attr{};
  attr.attr_set = attrs;
  if (::syscall(SYS_mount_setattr, AT_FDCWD, path.c_str(), AT_RECURSIVE, &attr, sizeof attr) != 0) {
    return std::unexpected(sysError("mount_setattr on " + path));
  }
  return {};
}

std::expected<void, Error> mkdirs(const std::string& path, mode_t mode = 0755) {
  for (std::size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos != path.size() && path[pos] != '/') continue;
    std::string prefix = path.substr(0, pos);
    if (::mkdir(prefix.c_str(), mode) != 0 && errno != EEXIST) {
      return std::unexpected(sysError("mkdir " + prefix));
    }
  }
  return {};
}

// A mount point of the same kind as `src`: a directory, or an empty file
// (for files, device nodes and unix sockets).
std::expected<void, Error> makeMountPoint(const std::string& src, const std::string& dst) {
  struct stat st {};
  if (::stat(src.c_str(), &st) != 0) return std::unexpected(sysError("stat " + src));
  if (S_ISDIR(st.st_mode)) return mkdirs(dst);
  auto slash = dst.rfind('/');
  if (auto r = mkdirs(dst.substr(0, slash)); !r) return r;
  UniqueFd fd(::open(dst.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid() && errno != EEXIST) return std::unexpected(sysError("create mount point " + dst));
  return {};
}

std::expected<void, Error> bindMount(const std::string& host, std::string_view inside, bool ro,
                                     std::uint64_t extra_attrs = MOUNT_ATTR_NODEV) {
  std::string src = oldPath(host);
  std::string dst = newPath(inside);
  if (auto r = makeMountPoint(src, dst); !r) return r;
  if (auto r = doMount(src.c_str(), dst, nullptr, MS_BIND | MS_REC); !r) {
    return std::unexpected(Error{"bind " + std::string(host) + " to " + std::string(inside) + ": " +
                                 r.error().message});
  }
  return restrict(dst, MOUNT_ATTR_NOSUID | extra_attrs | (ro ? MOUNT_ATTR_RDONLY : 0));
}

std::expected<void, Error> tmpfs(std::string_view inside, std::uint64_t size, const char* mode,
                                 unsigned long flags = MS_NOSUID | MS_NODEV) {
  std::string dst = newPath(inside);
  if (auto r = mkdirs(dst); !r) return r;
  std::string data = std::string("mode=") + mode;
  if (size != 0) data += ",size=" + std::to_string(size);
  return doMount("tmpfs", dst, "tmpfs", flags, data.c_str());
}

std::expected<void, Error> writeNewFile(std::string_view inside, std::string_view text) {
  std::string path = newPath(inside);
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd.valid()) return std::unexpected(sysError("create " + path));
  if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    return std::unexpected(sysError("write " + path));
  }
  return {};
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::expected<void, Error> systemDirs() {
  if (auto r = bindMount("/usr", "/usr", true); !r) return r;
  for (std::string_view name : kUsrLinks) {
    std::string host = "/" + std::string(name);
    struct stat st {};
    if (::lstat(oldPath(host).c_str(), &st) != 0) continue;
    if (S_ISLNK(st.st_mode)) {
      std::array<char, 4096> target{};
      ssize_t n = ::readlink(oldPath(host).c_str(), target.data(), target.size() - 1);
      if (n < 0) return std::unexpected(sysError("readlink " + host));
      if (::symlink(target.data(), newPath(host).c_str()) != 0) {
        return std::unexpected(sysError("symlink " + host));
      }
    } else if (S_ISDIR(st.st_mode)) {
      if (auto r = bindMount(host, host, true); !r) return r;
    }
  }
  return {};
}

std::expected<void, Error> etc() {
  if (auto r = mkdirs(newPath("/etc")); !r) return r;
  for (std::string_view name : kEtcEntries) {
    std::string host = "/etc/" + std::string(name);
    if (!exists(oldPath(host))) continue;  // follows symlinks: a dangling one is skipped
    if (auto r = bindMount(host, host, true); !r) return r;
  }
  // Runtimes look the current user up (os.userInfo(), getpass.getuser()).
  std::string uid = std::to_string(kSandboxUid), gid = std::to_string(kSandboxGid);
  if (auto r = writeNewFile("/etc/passwd", "root:x:0:0:root:/root:/usr/sbin/nologin\nmcp:x:" + uid +
                                               ":" + gid + ":mcp:" + kSandboxHome +
                                               ":/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/"
                                               "nonexistent:/usr/sbin/nologin\n");
      !r) {
    return r;
  }
  return writeNewFile("/etc/group", "root:x:0:\nmcp:x:" + gid + ":\nnogroup:x:65534:\n");
}

std::expected<void, Error> dev() {
  // Device nodes cannot be created in a user namespace: bind the host's.
  if (auto r = tmpfs("/dev", 64 * 1024, "0755", MS_NOSUID | MS_NOEXEC); !r) return r;
  for (std::string_view name : kDevices) {
    std::string host = "/dev/" + std::string(name);
    if (auto r = bindMount(host, host, false, MOUNT_ATTR_NOEXEC); !r) return r;
  }
  const std::array<std::pair<const char*, const char*>, 5> links = {
      {{"/proc/self/fd", "/dev/fd"},
       {"/proc/self/fd/0", "/dev/stdin"},
       {"/proc/self/fd/1", "/dev/stdout"},
       {"/proc/self/fd/2", "/dev/stderr"},
       {"/tmp", "/dev/shm"}}};
  for (const auto& [target, link] : links) {
    if (::symlink(target, newPath(link).c_str()) != 0)
      return std::unexpected(sysError("symlink " + std::string(link)));
  }
  return restrict(newPath("/dev"), MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
}

std::expected<void, Error> writable(const SandboxPolicy& policy) {
  // noexec unless the policy allows it: what a server downloads or writes
  // there cannot be run (scripts through an interpreter still can).
  auto flags = [](bool exec) -> unsigned long {
    return MS_NOSUID | MS_NODEV | (exec ? 0UL : static_cast<unsigned long>(MS_NOEXEC));
  };
  if (auto r = tmpfs("/tmp", policy.limits.tmpfs_bytes, "1777", flags(policy.tmp_exec)); !r)
    return r;
  if (auto r = tmpfs(kSandboxHome, policy.limits.tmpfs_bytes, "0700", flags(policy.home_exec)); !r)
    return r;
  // The tmpfs root belongs to the namespace's (unmapped) root; hand HOME to the server's user.
  if (::chown(newPath(kSandboxHome).c_str(), kSandboxUid, kSandboxGid) != 0) {
    return std::unexpected(sysError("chown " + std::string(kSandboxHome)));
  }
  return {};
}

// The host directory is the overlay's lower layer; the upper layer and the
// overlay's work dir live on a tmpfs of their own, so writes cost sandbox
// memory (capped like /tmp) and never reach the host.
std::expected<void, Error> overlayMount(const Bind& bind, const std::string& from,
                                        std::size_t index, std::uint64_t size) {
  // Overlay options are a comma-separated list with ':' between lower dirs.
  if (bind.src.find_first_of(",:\\") != std::string::npos) {
    return std::unexpected(Error{"overlay bind source contains ',', ':' or '\\': " + bind.src});
  }
  const std::string lower = oldPath(from);
  struct stat st {};
  if (::stat(lower.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return std::unexpected(Error{"overlay bind source is not a directory: " + bind.src});
  }
  // On the scratch root, which is detached with the host root; the overlay
  // keeps its layers alive.
  const std::string layers = "/overlay-" + std::to_string(index);
  if (::mkdir(layers.c_str(), 0700) != 0) return std::unexpected(sysError("mkdir " + layers));
  std::string data = "mode=0755";
  if (size != 0) data += ",size=" + std::to_string(size);
  if (auto r = doMount("tmpfs", layers, "tmpfs", MS_NOSUID | MS_NODEV, data.c_str()); !r) return r;
  const std::string upper = layers + "/upper", work = layers + "/work";
  if (::mkdir(upper.c_str(), st.st_mode & 07777) != 0 || ::mkdir(work.c_str(), 0700) != 0) {
    return std::unexpected(sysError("mkdir overlay layers"));
  }
  // The merged root takes the upper dir's owner: keep the lower's.
  if (::chown(upper.c_str(), st.st_uid, st.st_gid) != 0) {
    return std::unexpected(sysError("chown overlay upper layer"));
  }
  const std::string dst = newPath(bind.dst);
  if (auto r = mkdirs(dst); !r) return r;
  const std::string options = "lowerdir=" + lower + ",upperdir=" + upper + ",workdir=" + work;
  if (auto r = doMount("overlay", dst, "overlay", MS_NOSUID | MS_NODEV, options.c_str()); !r) {
    return std::unexpected(
        Error{"overlay " + bind.src + " on " + bind.dst + ": " + r.error().message});
  }
  return {};
}

// A bind source as a path the mount calls can use once the host root is at
// kOld: its fd's magic link, which the kernel resolves without a path lookup.
std::string sourcePath(const UniqueFd& source) {
  return "/proc/self/fd/" + std::to_string(source.get());
}

// Whether a mount lies beneath the host directory `host` (seen under kOld):
// a recursive bind shows it, an overlay of the directory would not.
bool hasSubmounts(const std::string& host) {
  std::ifstream in("/proc/self/mountinfo");
  const std::string under = oldPath(host) + "/";
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string id, parent, device, root, point;
    fields >> id >> parent >> device >> root >> point;
    if (point.starts_with(under)) return true;
  }
  return false;
}

// A read-only bind of a directory, as an overlay of it over an empty
// directory: the same files, read-only, but the sandbox's mountinfo shows the
// overlay's root ("/") and the fd path it was given, where a bind mount shows
// the directory's path on the host (the kernel prints a bind's root as its
// path inside its filesystem). False when the overlay cannot be made (a lower
// layer overlayfs refuses): the caller binds instead.
bool hiddenReadOnlyBind(const std::string& from, std::string_view inside, std::size_t index) {
  const std::string lower = oldPath(from);
  struct stat st {};
  if (::stat(lower.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  // On the scratch root, detached with the host root; the overlay keeps it alive.
  const std::string empty = "/overlay-ro-" + std::to_string(index);
  if (::mkdir(empty.c_str(), 0555) != 0) return false;
  const std::string dst = newPath(inside);
  if (!mkdirs(dst)) return false;
  // Two lower layers and no upper: overlayfs's read-only form.
  const std::string options = "lowerdir=" + lower + ":" + empty;
  return doMount("overlay", dst, "overlay", MS_RDONLY | MS_NOSUID | MS_NODEV, options.c_str())
      .has_value();
}

std::expected<void, Error> operatorBinds(const SandboxPolicy& policy,
                                         const std::vector<UniqueFd>& sources) {
  if (sources.size() != policy.binds.size()) {
    return std::unexpected(Error{"bind sources were not opened before building the root"});
  }
  for (std::size_t i = 0; i < policy.binds.size(); ++i) {
    const Bind& bind = policy.binds[i];
    const std::string from = sourcePath(sources[i]);
    if (bind.ro && !bind.overlay && !hasSubmounts(bind.src) &&
        hiddenReadOnlyBind(from, bind.dst, i)) {
      continue;
    }
    auto r = bind.overlay ? overlayMount(bind, from, i, policy.limits.tmpfs_bytes)
                          : bindMount(from, bind.dst, bind.ro);
    if (!r) return std::unexpected(Error{"bind " + bind.src + ": " + r.error().message});
  }
  return {};
}

// Moves the process into the new root and drops every reference to the host's.
std::expected<void, Error> enterNewRoot() {
  if (::umount2(std::string(kOld).c_str(), MNT_DETACH) != 0) {
    return std::unexpected(sysError("detach the host root"));
  }
  if (::chdir(std::string(kNew).c_str()) != 0) return std::unexpected(sysError("chdir new root"));
  // pivot_root(".", ".") stacks the old root on top of the new one; the
  // detach below then leaves only the new root.
  if (::syscall(SYS_pivot_root, ".", ".") != 0)
    return std::unexpected(sysError("pivot_root to the new root"));
  if (::umount2(".", MNT_DETACH) != 0) return std::unexpected(sysError("detach the scratch root"));
  if (::chdir("/") != 0) return std::unexpected(sysError("chdir /"));
  // The root itself holds only mount points and two generated /etc files.
  if (::mount(nullptr, "/", nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
              nullptr) != 0) {
    return std::unexpected(sysError("remount / read-only"));
  }
  return {};
}

}  // namespace

std::expected<std::vector<UniqueFd>, Error> openBindSources(
    const SandboxPolicy& policy, const std::vector<ResolvedSource>& resolved) {
  if (resolved.size() != policy.binds.size()) {
    return std::unexpected(Error{"bind sources were not resolved before the sandbox started"});
  }
  std::vector<UniqueFd> sources;
  for (std::size_t i = 0; i < policy.binds.size(); ++i) {
    auto fd = openResolvedSource(policy.binds[i].src, resolved[i]);
    if (!fd) return std::unexpected(fd.error());
    sources.push_back(std::move(*fd));
  }
  return sources;
}

std::expected<void, Error> buildRoot(const SandboxPolicy& policy,
                                     const std::vector<UniqueFd>& sources) {
  // Nothing we mount may propagate back to the host.
  if (auto r = doMount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE); !r) return r;
  if (auto r = doMount("tmpfs", kScratch, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755");
      !r) {
    return r;
  }
  std::string scratch_old = std::string(kScratch) + std::string(kOld);
  std::string scratch_new = std::string(kScratch) + std::string(kNew);
  if (::mkdir(scratch_old.c_str(), 0755) != 0 || ::mkdir(scratch_new.c_str(), 0755) != 0) {
    return std::unexpected(sysError("mkdir on the scratch tmpfs"));
  }
  if (::syscall(SYS_pivot_root, kScratch, scratch_old.c_str()) != 0) {
    return std::unexpected(sysError("pivot_root to the scratch tmpfs"));
  }
  if (::chdir("/") != 0) return std::unexpected(sysError("chdir /"));
  if (auto r =
          doMount("tmpfs", std::string(kNew), "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755");
      !r) {
    return r;
  }
  if (auto r = systemDirs(); !r) return r;
  if (auto r = etc(); !r) return r;
  if (auto r = dev(); !r) return r;
  if (auto r = writable(policy); !r) return r;
  if (auto r = operatorBinds(policy, sources); !r) return r;
  // The kernel mounts a new proc only while a full one is still visible in
  // this namespace, i.e. before the host root is detached.
  if (auto r = mkdirs(newPath("/proc")); !r) return r;
  if (auto r = doMount("proc", newPath("/proc"), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC); !r) {
    return r;
  }
  return enterNewRoot();
}

}  // namespace mcpgate::sandbox
