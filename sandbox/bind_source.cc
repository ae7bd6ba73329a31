#include "sandbox/bind_source.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <string_view>
#include <vector>

namespace mcpgate::sandbox {
namespace {

// Symlinks followed in one resolution, as the kernel's own limit (MAXSYMLINKS).
constexpr int kMaxLinks = 40;

bool trustedOwner(uid_t uid) { return uid == 0 || uid == ::geteuid(); }

std::string modeText(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// Writable by someone other than its owner: others, or a group that is not root's or ours.
bool sharedWritable(const struct stat& st) {
  if ((st.st_mode & S_IWOTH) != 0) return true;
  return (st.st_mode & S_IWGRP) != 0 && st.st_gid != 0 && st.st_gid != ::getegid();
}

void pushComponents(std::string_view path, std::vector<std::string>& todo) {
  // `todo` is a stack: the next component is at the back.
  std::vector<std::string> parts;
  std::size_t at = 0;
  while (at <= path.size()) {
    const std::size_t slash = std::min(path.find('/', at), path.size());
    if (slash > at) parts.emplace_back(path.substr(at, slash - at));
    at = slash + 1;
  }
  todo.insert(todo.end(), parts.rbegin(), parts.rend());
}

std::string joinPath(const std::vector<std::string>& names) {
  if (names.empty()) return "/";
  std::string out;
  for (const auto& n : names) out += "/" + n;
  return out;
}

}  // namespace

std::expected<ResolvedSource, Error> resolveBindSource(const std::string& src) {
  const auto refuse = [&src](const std::string& why) {
    return std::unexpected(Error{"bind source " + src + ": " + why});
  };
  if (src.empty() || src.front() != '/') return refuse("must be an absolute path");
  std::vector<std::string> todo;
  pushComponents(src, todo);
  std::vector<UniqueFd> parents;   // the directories above `cur`, for '..'
  std::vector<std::string> names;  // the path of `cur`
  UniqueFd cur(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!cur.valid()) return refuse(sysError("open /").message);
  int links = 0;
  while (!todo.empty()) {
    const std::string name = std::move(todo.back());
    todo.pop_back();
    if (name == ".") continue;
    if (name == "..") {
      if (!parents.empty()) {
        cur = std::move(parents.back());
        parents.pop_back();
        names.pop_back();
      }
      continue;
    }
    struct stat dir {};
    if (::fstat(cur.get(), &dir) != 0) return refuse(sysError("stat " + joinPath(names)).message);
    const std::string dir_path = joinPath(names);
    if (!trustedOwner(dir.st_uid)) {
      return refuse("the directory " + dir_path + " is owned by uid " + std::to_string(dir.st_uid) +
                    ", who could replace what lies under it with a symlink; a bind source must "
                    "lie under directories owned by root or uid " +
                    std::to_string(::geteuid()));
    }
    const bool shared = sharedWritable(dir);
    if (shared && (dir.st_mode & S_ISVTX) == 0) {
      return refuse("the directory " + dir_path + " is writable by others (mode " +
                    modeText(dir.st_mode) +
                    "), who could replace what lies under it with a symlink");
    }
    UniqueFd next(::openat(cur.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    names.push_back(name);
    if (!next.valid()) {
      if (errno == ENOENT)
        return std::unexpected(Error{"bind source does not exist on the host: " + src});
      return std::unexpected(sysError("open bind source " + joinPath(names)));
    }
    struct stat st {};
    if (::fstat(next.get(), &st) != 0) return refuse(sysError("stat " + joinPath(names)).message);
    // In a sticky directory others may create entries but not replace ours: only an entry that
    // root or the gateway's user owns stays put.
    if (shared && !trustedOwner(st.st_uid)) {
      return refuse(joinPath(names) + " is owned by uid " + std::to_string(st.st_uid) +
                    " in the shared directory " + dir_path +
                    ", so its owner could replace it with a symlink; put it in a directory "
                    "owned by root or uid " +
                    std::to_string(::geteuid()));
    }
    if (S_ISLNK(st.st_mode)) {
      if (++links > kMaxLinks) return refuse("too many levels of symbolic links");
      std::string target(PATH_MAX, '\0');
      const ssize_t n = ::readlinkat(next.get(), "", target.data(), target.size());
      if (n < 0) return refuse(sysError("readlink " + joinPath(names)).message);
      target.resize(static_cast<std::size_t>(n));
      names.pop_back();
      if (target.starts_with('/')) {
        cur.reset(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
        if (!cur.valid()) return refuse(sysError("open /").message);
        parents.clear();
        names.clear();
      }
      pushComponents(target, todo);
      continue;
    }
    if (!todo.empty() && !S_ISDIR(st.st_mode)) {
      return refuse(joinPath(names) + " is not a directory");
    }
    parents.push_back(std::move(cur));
    cur = std::move(next);
  }
  struct stat st {};
  if (::fstat(cur.get(), &st) != 0) return refuse(sysError("stat " + joinPath(names)).message);
  return ResolvedSource{joinPath(names), st.st_dev, st.st_ino};
}

std::expected<UniqueFd, Error> openResolvedSource(const std::string& src,
                                                  const ResolvedSource& resolved) {
  const auto refuse = [&src](const std::string& why) {
    return std::unexpected(Error{"bind source " + src + ": " + why});
  };
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  UniqueFd fd(
      static_cast<int>(::syscall(SYS_openat2, AT_FDCWD, resolved.path.c_str(), &how, sizeof how)));
  if (!fd.valid() && (errno == ENOSYS || errno == EPERM)) {
    // No openat2 here (before 5.6, or a seccomp filter refusing it): one O_NOFOLLOW step at a
    // time from /.
    fd.reset(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
    std::vector<std::string> todo;
    pushComponents(resolved.path, todo);
    while (fd.valid() && !todo.empty()) {
      fd.reset(::openat(fd.get(), todo.back().c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
      todo.pop_back();
    }
  }
  if (!fd.valid()) {
    if (errno == ELOOP) return refuse(resolved.path + " was replaced by a symlink");
    return refuse(sysError("open " + resolved.path).message);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return refuse(sysError("stat " + resolved.path).message);
  if (S_ISLNK(st.st_mode) || st.st_dev != resolved.dev || st.st_ino != resolved.ino) {
    return refuse(resolved.path + " was replaced while the sandbox was set up");
  }
  return fd;
}

}  // namespace mcpgate::sandbox
