#pragma once

#include <cerrno>
#include <cstring>
#include <string>

namespace mcpgate::sandbox {

// Every failure of this module carries a message an operator can act on:
// what was attempted, on which path or limit, and the kernel's answer.
struct Error {
  std::string message;
};

// "<what>: <strerror(err)>", for wrapping a failed system call.
[[nodiscard]] inline Error sysError(const std::string& what, int err = errno) {
  return Error{what + ": " + std::strerror(err)};
}

}  // namespace mcpgate::sandbox
