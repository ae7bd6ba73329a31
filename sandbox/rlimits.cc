#include "sandbox/rlimits.h"

#include <sys/resource.h>

#include <string>

namespace mcpgate::sandbox {
namespace {

std::expected<void, Error> setLimit(int resource, const char* name, std::uint64_t value) {
  rlimit current{};
  if (::getrlimit(resource, &current) != 0)
    return std::unexpected(sysError(std::string("getrlimit ") + name));
  // Never raise: the hard limit we inherited may be lower (no CAP_SYS_RESOURCE).
  rlim_t v = static_cast<rlim_t>(value);
  if (current.rlim_max != RLIM_INFINITY && v > current.rlim_max) v = current.rlim_max;
  rlimit wanted{v, v};
  if (::setrlimit(resource, &wanted) != 0) {
    return std::unexpected(sysError(std::string("setrlimit ") + name + " to " + std::to_string(v)));
  }
  return {};
}

}  // namespace

std::expected<void, Error> applyDataLimit(std::uint64_t bytes) {
  return setLimit(RLIMIT_DATA, "RLIMIT_DATA", bytes);
}

std::expected<void, Error> applyRlimits(const Limits& limits) {
  if (auto r = setLimit(RLIMIT_CORE, "RLIMIT_CORE", 0); !r) return r;  // no core dumps of secrets
  if (limits.cpu_seconds != 0) {
    if (auto r = setLimit(RLIMIT_CPU, "RLIMIT_CPU", limits.cpu_seconds); !r) return r;
  }
  if (limits.open_files != 0) {
    if (auto r = setLimit(RLIMIT_NOFILE, "RLIMIT_NOFILE", limits.open_files); !r) return r;
  }
  if (limits.file_size_bytes != 0) {
    if (auto r = setLimit(RLIMIT_FSIZE, "RLIMIT_FSIZE", limits.file_size_bytes); !r) return r;
  }
  if (limits.processes != 0) {
    // Counted per user and per user namespace: the sandbox's own namespace
    // keeps other servers out of this count.
    if (auto r = setLimit(RLIMIT_NPROC, "RLIMIT_NPROC", limits.processes); !r) return r;
  }
  return {};
}

}  // namespace mcpgate::sandbox
