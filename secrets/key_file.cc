#include "secrets/key_file.h"

#include <fcntl.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "common/encoding.h"
#include "common/errno_text.h"

namespace mcpgate::secrets {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxKeyFileBytes = 4096;

// Creates `dir` 0700 when missing (its parents as the umask allows).
std::expected<void, std::string> makePrivateDir(const fs::path& dir) {
  std::error_code ec;
  if (dir.empty() || fs::exists(dir, ec)) return {};
  if (dir.has_parent_path()) fs::create_directories(dir.parent_path(), ec);
  if (ec) {
    return std::unexpected("cannot create " + dir.parent_path().string() + ": " + ec.message());
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return std::unexpected("cannot create " + dir.string() + ": " + common::errnoText(errno));
  }
  return {};
}

std::expected<void, std::string> createKey(const std::string& path, std::string_view what) {
  if (auto made = makePrivateDir(fs::path(path).parent_path()); !made) {
    return std::unexpected(std::string(what) + ": " + made.error());
  }
  auto text = newKeyText();
  if (!text) return std::unexpected(std::string(what) + ": " + text.error());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return {};  // another process made it first: use theirs
    return std::unexpected("cannot create the " + std::string(what) + " file " + path + ": " +
                           common::errnoText(errno));
  }
  *text += "\n";
  const bool written =
      ::write(fd, text->data(), text->size()) == static_cast<ssize_t>(text->size()) &&
      ::fsync(fd) == 0;
  const int error = errno;
  ::close(fd);
  if (!written) {
    ::unlink(path.c_str());
    return std::unexpected("cannot write the " + std::string(what) + " file " + path + ": " +
                           common::errnoText(error));
  }
  return {};
}

}  // namespace

std::expected<std::string, std::string> newKeyText() {
  std::array<unsigned char, 32> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    return std::unexpected("the CSPRNG (OpenSSL RAND_bytes) failed");
  }
  return common::toHex(bytes);
}

std::expected<std::string, std::string> loadKeyFile(const std::string& path, std::string_view what,
                                                    bool create) {
  const std::string name(what);
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT || !create) {
      return std::unexpected("cannot read the " + name + " file " + path + ": " + common::errnoText(errno));
    }
    if (auto created = createKey(path, what); !created) return std::unexpected(created.error());
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    return std::unexpected("cannot read the " + name + " file " + path + ": " + common::errnoText(errno));
  }
  std::string key;
  std::string problem;
  if (::fstat(fd, &st) != 0) {
    problem = common::errnoText(errno);
  } else if (!S_ISREG(st.st_mode)) {
    problem = "not a regular file";
  } else if (st.st_uid != ::geteuid()) {
    problem = "owned by another user (uid " + std::to_string(st.st_uid) + ")";
  } else if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    problem = std::string("group or others have access (mode ") + mode + "); chmod 600 " + path;
  } else {
    char buffer[kMaxKeyFileBytes + 1];
    ssize_t n = 0;
    while ((n = ::read(fd, buffer, sizeof buffer)) > 0 && key.size() <= kMaxKeyFileBytes) {
      key.append(buffer, static_cast<std::size_t>(n));
    }
    if (n < 0) problem = common::errnoText(errno);
  }
  ::close(fd);
  if (problem.empty() && key.size() > kMaxKeyFileBytes) {
    problem = "larger than " + std::to_string(kMaxKeyFileBytes) + " bytes";
  }
  while (!key.empty() &&
         (key.back() == '\n' || key.back() == '\r' || key.back() == ' ' || key.back() == '\t')) {
    key.pop_back();
  }
  if (problem.empty() && key.size() < kMinKeyBytes) {
    problem = "the key must be at least " + std::to_string(kMinKeyBytes) + " bytes (it has " +
              std::to_string(key.size()) + ")";
  }
  if (!problem.empty()) {
    return std::unexpected("refusing the " + name + " file " + path + ": " + problem);
  }
  return key;
}

std::expected<void, std::string> replacePrivateFile(const std::string& path,
                                                    std::string_view bytes) {
  if (auto made = makePrivateDir(fs::path(path).parent_path()); !made) {
    return std::unexpected(made.error());
  }
  const std::string temp = path + ".tmp";
  ::unlink(temp.c_str());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return std::unexpected("cannot create " + temp + ": " + common::errnoText(errno));
  const bool written =
      ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()) &&
      ::fsync(fd) == 0;
  const int error = errno;
  ::close(fd);
  if (!written || ::rename(temp.c_str(), path.c_str()) != 0) {
    const int failure = written ? errno : error;
    ::unlink(temp.c_str());
    return std::unexpected("cannot write " + path + ": " + common::errnoText(failure));
  }
  return {};
}

}  // namespace mcpgate::secrets
