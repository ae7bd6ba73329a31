#pragma once

// What keeps the accept loop alive under a hostile client: connections
// counted per client address (limits.max_connections_per_address), and one
// file descriptor held in reserve, so that out of descriptors (EMFILE) a
// pending connection can still be taken off the queue and closed rather than
// left to wake the loop again and again.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace mcpgate::gateway {

// Open connections counted by a key (a client address, a client name): a
// claim holds one until the returned pointer is released.
class ConnectionCounts {
 public:
  // One more connection for `key`; null when `key` has `cap` open already.
  [[nodiscard]] std::shared_ptr<void> claim(const std::string& key, std::uint32_t cap);

 private:
  struct Counts {
    std::mutex mu;
    std::unordered_map<std::string, std::uint32_t> open;
  };
  std::shared_ptr<Counts> counts_ = std::make_shared<Counts>();
};

class AcceptGuard {
 public:
  AcceptGuard();  // opens the reserve descriptor
  ~AcceptGuard();
  AcceptGuard(const AcceptGuard&) = delete;
  AcceptGuard& operator=(const AcceptGuard&) = delete;

  // One more connection from `address`, held as long as the connection
  // lives; null when the address has `cap` open already.
  [[nodiscard]] std::shared_ptr<void> claim(const std::string& address, std::uint32_t cap) {
    return per_address_.claim(address, cap);
  }

  // Out of descriptors: frees the reserve, accepts and closes one pending
  // connection on `listen_fd`, takes the reserve back. True if one was shed.
  bool shedOne(int listen_fd);

  // Writes a 503 (reason too_many_connections) to a just-accepted socket,
  // without waiting, before the caller closes it.
  static void refuseOverShare(int fd, std::uint32_t cap);

 private:
  ConnectionCounts per_address_;
  int reserve_ = -1;
};

}  // namespace mcpgate::gateway
