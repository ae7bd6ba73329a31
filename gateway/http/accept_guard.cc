#include "gateway/http/accept_guard.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "gateway/mcp/jsonrpc.h"

namespace mcpgate::gateway {

AcceptGuard::AcceptGuard() : reserve_(::open("/dev/null", O_RDONLY | O_CLOEXEC)) {}

AcceptGuard::~AcceptGuard() {
  if (reserve_ >= 0) ::close(reserve_);
}

std::shared_ptr<void> ConnectionCounts::claim(const std::string& key, std::uint32_t cap) {
  std::lock_guard lock(counts_->mu);
  std::uint32_t& open = counts_->open[key];
  if (open >= cap) {
    if (open == 0) counts_->open.erase(key);
    return nullptr;
  }
  ++open;
  // Points at the counts (never null, never deleted through it); the deleter gives the slot back.
  return std::shared_ptr<void>(counts_.get(), [counts = counts_, key](void*) {
    std::lock_guard release(counts->mu);
    auto it = counts->open.find(key);
    if (it != counts->open.end() && --it->second == 0) counts->open.erase(it);
  });
}

bool AcceptGuard::shedOne(int listen_fd) {
  if (reserve_ >= 0) {
    ::close(reserve_);
    reserve_ = -1;
  }
  const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd >= 0) ::close(fd);
  reserve_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  return fd >= 0;
}

void AcceptGuard::refuseOverShare(int fd, std::uint32_t cap) {
  const std::string body = jsonrpc::errorResponse(
      nullptr, jsonrpc::kUpstreamError,
      "too many connections from this address (limits.max_connections_per_address is " +
          std::to_string(cap) + ")",
      {{"gateway", "mcpgate"}, {"reason", "too_many_connections"}});
  const std::string response =
      "HTTP/1.1 503 Service Unavailable\r\nServer: mcpgate\r\nContent-Type: application/json\r\n"
      "Connection: close\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  // Best effort: a fresh socket's send buffer takes this at once.
  (void)::send(fd, response.data(), response.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  ::shutdown(fd, SHUT_WR);
}

}  // namespace mcpgate::gateway
