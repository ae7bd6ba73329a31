#pragma once

// Passing descriptors over a unix socket (SCM_RIGHTS): the one home for the
// cmsghdr boilerplate. Used between the sandbox's init and its supervisor
// (cgroup files, the egress listener), from the supervisor to the gateway,
// and by the privileged spawner (spawner_client.h) to hand a server's pipes over.

#include <sys/types.h>

#include <cstddef>
#include <span>
#include <vector>

#include "sandbox/fd.h"

namespace mcpgate::sandbox {

// The most descriptors one message carries here.
inline constexpr std::size_t kMaxPassedFds = 8;

// One sendmsg of `size` bytes (at least one) with `fds` attached (at most
// kMaxPassedFds). True when every byte went out in that call. Never raises
// SIGPIPE; `flags` are added to sendmsg's (MSG_DONTWAIT).
[[nodiscard]] bool sendWithFds(int channel, const void* data, std::size_t size,
                               std::span<const int> fds, int flags = 0);

// One recvmsg into `buffer`: the bytes received (0 at EOF, -1 on an error or
// when descriptors were cut off), with every descriptor that came appended
// to `fds`, close-on-exec. Descriptors arrive only with the message's first
// byte, so a caller that reads the rest of a stream message with read() gets
// them all.
[[nodiscard]] ssize_t receiveWithFds(int channel, void* buffer, std::size_t size,
                                     std::vector<UniqueFd>& fds, int flags = 0);

// Reads or writes exactly `size` bytes, retrying on EINTR; false at EOF or on
// an error. For the fixed-size messages between the sandbox's processes.
[[nodiscard]] bool readAll(int fd, void* data, std::size_t size);
[[nodiscard]] bool writeAll(int fd, const void* data, std::size_t size);

// One descriptor with one byte of payload. receive: an invalid fd when the
// peer closed or sent none.
[[nodiscard]] bool sendDescriptor(int channel, int fd);
[[nodiscard]] UniqueFd receiveDescriptor(int channel);

}  // namespace mcpgate::sandbox
