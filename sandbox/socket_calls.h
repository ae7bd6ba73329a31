#pragma once

// The calls the supervisor makes on a host-network server's behalf
// (socket_notify.h): each one copied from the server's memory once, decided
// on the copy, then made on the server's own socket.

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <functional>
#include <optional>

#include "sandbox/fd.h"
#include "sandbox/socket_notify.h"

namespace mcpgate::sandbox {

// One notification: the waiting call.
struct Notice {
  std::uint64_t id = 0;
  pid_t pid = 0;  // the calling thread, in the supervisor's pid namespace
  int nr = 0;
  std::array<std::uint64_t, 6> args{};
};

// What the waiting call returns: `error` (an errno) or `value`.
struct Answer {
  std::int64_t value = 0;
  int error = 0;
};

struct PreparedCall {
  // Makes the call with the copies; empty when `answer` is already final.
  std::function<Answer()> call;
  Answer answer;
  std::optional<Refusal> refused;
  bool may_block = false;  // a blocking socket without MSG_DONTWAIT: run it on a thread
};

// Copies what the call names from the server's memory, checks with
// `still_waiting` that the copy belongs to the waiting call, and decides.
// `sock` is the server's IP socket, taken with pidfd_getfd.
[[nodiscard]] PreparedCall prepareCall(const Notice& notice, UniqueFd sock, const HostBlock& block,
                                       const std::function<bool()>& still_waiting);

}  // namespace mcpgate::sandbox
