#include "sandbox/socket_calls.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "egress/address.h"

namespace mcpgate::sandbox {
namespace {

constexpr std::size_t kMaxIov = 1024;  // UIO_MAXIOV: the kernel refuses more
// A send larger than this is cut (a stream socket may send less than asked)
// or refused (a datagram larger than any UDP payload).
constexpr std::size_t kStreamCopy = 1U << 20;
constexpr std::size_t kDatagramCopy = 65536;
constexpr std::size_t kMaxControl = 64U << 10;
constexpr std::size_t kMaxMessages = 64;  // sendmmsg: the rest is left for the next call

Answer fail(int error) { return {-1, error}; }

PreparedCall finalAnswer(Answer a) {
  PreparedCall p;
  p.answer = a;
  return p;
}

// The server's memory through /proc/PID/mem: where a container's seccomp
// profile denies process_vm_readv/writev (docker/seccomp.json does).
bool procMem(pid_t pid, std::uint64_t address, void* data, std::size_t size, bool write) {
  const std::string path = "/proc/" + std::to_string(pid) + "/mem";
  UniqueFd mem(::open(path.c_str(), (write ? O_WRONLY : O_RDONLY) | O_CLOEXEC));
  if (!mem.valid()) return false;
  const auto offset = static_cast<off_t>(address);
  const ssize_t n =
      write ? ::pwrite(mem.get(), data, size, offset) : ::pread(mem.get(), data, size, offset);
  return n == static_cast<ssize_t>(size);
}

// One read of the server's memory; false when any byte of it is not mapped.
bool readTarget(pid_t pid, std::uint64_t address, void* out, std::size_t size) {
  if (size == 0) return true;
  iovec local{out, size};
  // NOLINTNEXTLINE(performance-no-int-to-ptr): an address in the server's memory, never ours
  iovec remote{reinterpret_cast<void*>(address), size};
  const ssize_t n = ::process_vm_readv(pid, &local, 1, &remote, 1, 0);
  if (n < 0 && (errno == ENOSYS || errno == EPERM)) return procMem(pid, address, out, size, false);
  return n == static_cast<ssize_t>(size);
}

bool writeTarget(pid_t pid, std::uint64_t address, const void* data, std::size_t size) {
  iovec local{const_cast<void*>(data), size};
  // NOLINTNEXTLINE(performance-no-int-to-ptr): an address in the server's memory, never ours
  iovec remote{reinterpret_cast<void*>(address), size};
  const ssize_t n = ::process_vm_writev(pid, &local, 1, &remote, 1, 0);
  if (n < 0 && (errno == ENOSYS || errno == EPERM))
    return procMem(pid, address, const_cast<void*>(data), size, true);
  return n == static_cast<ssize_t>(size);
}

struct Address {
  sockaddr_storage storage{};
  socklen_t length = 0;
  bool present = false;
  [[nodiscard]] const sockaddr* get() const {
    return present ? reinterpret_cast<const sockaddr*>(&storage) : nullptr;
  }
};

// The kernel's own rule (move_addr_to_kernel): more than a sockaddr_storage is EINVAL.
std::optional<int> copyAddress(pid_t pid, std::uint64_t pointer, std::uint64_t length,
                               Address& out) {
  if (pointer == 0 || length == 0) return std::nullopt;
  if (length > sizeof out.storage) return EINVAL;
  if (!readTarget(pid, pointer, &out.storage, length)) return EFAULT;
  out.length = static_cast<socklen_t>(length);
  out.present = true;
  return std::nullopt;
}

// The decision on the copy. An address that is not IPv4 or IPv6 (AF_UNSPEC
// disconnects, another family fails in the kernel) reaches nothing to judge.
std::optional<Refusal> judge(const Address& address, const HostBlock& block) {
  if (!address.present) return std::nullopt;
  const auto* sa = address.get();
  std::uint16_t port = 0;
  if (sa->sa_family == AF_INET && address.length >= sizeof(sockaddr_in)) {
    port = ntohs(reinterpret_cast<const sockaddr_in*>(sa)->sin_port);
  } else if (sa->sa_family == AF_INET6 && address.length >= sizeof(sockaddr_in6)) {
    port = ntohs(reinterpret_cast<const sockaddr_in6*>(sa)->sin6_port);
  } else {
    return std::nullopt;
  }
  const auto ip = egress::fromSockaddr(sa);
  if (!ip) return std::nullopt;
  const egress::Decision d = egress::decideHost(block.allow, *ip, port, block.own);
  if (d.allowed) return std::nullopt;
  return Refusal{egress::formatIp(*ip), port, d.reason};
}

// A message as the supervisor sends it: its own copies of the name, the data
// (the server's iovecs joined: the same bytes in the same datagram or stream)
// and the control messages.
struct MessageCopy {
  Address name;
  std::vector<char> data;
  std::vector<char> control;
  iovec iov{};
  msghdr header{};

  msghdr& build() {
    iov = {data.data(), data.size()};
    header = {};
    header.msg_name = name.present ? &name.storage : nullptr;
    header.msg_namelen = name.present ? name.length : 0;
    header.msg_iov = &iov;
    header.msg_iovlen = 1;
    header.msg_control = control.empty() ? nullptr : control.data();
    header.msg_controllen = control.size();
    return header;
  }
};

std::optional<int> copyMessage(pid_t pid, const msghdr& user, bool stream, std::size_t& budget,
                               MessageCopy& out) {
  if (auto e = copyAddress(pid, reinterpret_cast<std::uint64_t>(user.msg_name), user.msg_namelen,
                           out.name)) {
    return e;
  }
  if (user.msg_iovlen > kMaxIov) return EMSGSIZE;
  std::vector<iovec> iovs(user.msg_iovlen);
  if (!readTarget(pid, reinterpret_cast<std::uint64_t>(user.msg_iov), iovs.data(),
                  iovs.size() * sizeof(iovec))) {
    return EFAULT;
  }
  std::size_t total = 0;
  for (const iovec& v : iovs) total += v.iov_len;
  if (!stream && total > std::min(budget, kDatagramCopy)) return EMSGSIZE;
  total = std::min(total, budget);
  out.data.resize(total);
  std::size_t at = 0;
  for (const iovec& v : iovs) {
    const std::size_t take = std::min(v.iov_len, total - at);
    if (!readTarget(pid, reinterpret_cast<std::uint64_t>(v.iov_base), out.data.data() + at, take))
      return EFAULT;
    at += take;
  }
  budget -= total;
  if (user.msg_control != nullptr && user.msg_controllen > 0) {
    if (user.msg_controllen > kMaxControl) return ENOBUFS;
    out.control.resize(user.msg_controllen);
    if (!readTarget(pid, reinterpret_cast<std::uint64_t>(user.msg_control), out.control.data(),
                    out.control.size())) {
      return EFAULT;
    }
  }
  return std::nullopt;
}

Answer result(ssize_t r) { return r < 0 ? fail(errno) : Answer{r, 0}; }

bool blocking(int sock, int flags) {
  const int status = ::fcntl(sock, F_GETFL);
  return status >= 0 && (status & O_NONBLOCK) == 0 && (flags & MSG_DONTWAIT) == 0;
}

// After the copies: still the waiting call's? Then the decision on the copied
// destination, and the call, to make if it is allowed.
PreparedCall decided(const Address& destination, const HostBlock& block,
                     const std::function<bool()>& still_waiting, int sock, int flags,
                     std::function<Answer()> call) {
  if (!still_waiting()) return finalAnswer(fail(EINTR));
  PreparedCall p;
  if ((p.refused = judge(destination, block))) {
    p.answer = fail(EACCES);
    return p;
  }
  p.may_block = blocking(sock, flags);
  p.call = std::move(call);
  return p;
}

PreparedCall prepareConnect(const Notice& n, const std::shared_ptr<UniqueFd>& sock,
                            const HostBlock& block, const std::function<bool()>& still_waiting) {
  auto address = std::make_shared<Address>();
  if (auto e = copyAddress(n.pid, n.args[1], static_cast<std::uint32_t>(n.args[2]), *address))
    return finalAnswer(fail(*e));
  if (!address->present) return finalAnswer(fail(EINVAL));
  return decided(*address, block, still_waiting, sock->get(), 0, [sock, address] {
    return result(::connect(sock->get(), address->get(), address->length));
  });
}

PreparedCall prepareSendto(const Notice& n, const std::shared_ptr<UniqueFd>& sock, bool stream,
                           const HostBlock& block, const std::function<bool()>& still_waiting) {
  auto message = std::make_shared<MessageCopy>();
  if (auto e =
          copyAddress(n.pid, n.args[4], static_cast<std::uint32_t>(n.args[5]), message->name)) {
    return finalAnswer(fail(*e));
  }
  const std::size_t length = n.args[2];
  if (!stream && length > kDatagramCopy) return finalAnswer(fail(EMSGSIZE));
  message->data.resize(std::min(length, kStreamCopy));
  if (!readTarget(n.pid, n.args[1], message->data.data(), message->data.size()))
    return finalAnswer(fail(EFAULT));
  const int flags = static_cast<int>(n.args[3]);
  return decided(message->name, block, still_waiting, sock->get(), flags, [sock, message, flags] {
    return result(::sendto(sock->get(), message->data.data(), message->data.size(),
                           flags | MSG_NOSIGNAL, message->name.get(), message->name.length));
  });
}

PreparedCall prepareSendmsg(const Notice& n, const std::shared_ptr<UniqueFd>& sock, bool stream,
                            const HostBlock& block, const std::function<bool()>& still_waiting) {
  msghdr user{};
  if (!readTarget(n.pid, n.args[1], &user, sizeof user)) return finalAnswer(fail(EFAULT));
  auto message = std::make_shared<MessageCopy>();
  std::size_t budget = kStreamCopy;
  if (auto e = copyMessage(n.pid, user, stream, budget, *message)) return finalAnswer(fail(*e));
  const int flags = static_cast<int>(n.args[2]);
  return decided(message->name, block, still_waiting, sock->get(), flags, [sock, message, flags] {
    return result(::sendmsg(sock->get(), &message->build(), flags | MSG_NOSIGNAL));
  });
}

// glibc's resolver sends its A and AAAA queries with one sendmmsg and checks
// each msg_len, which the supervisor writes back into the server's vector.
PreparedCall prepareSendmmsg(const Notice& n, const std::shared_ptr<UniqueFd>& sock, bool stream,
                             const HostBlock& block, const std::function<bool()>& still_waiting) {
  const std::size_t count = std::min<std::uint64_t>(n.args[2] & 0xffffffffU, kMaxMessages);
  if (count == 0) return finalAnswer({0, 0});
  std::vector<mmsghdr> user(count);
  if (!readTarget(n.pid, n.args[1], user.data(), count * sizeof(mmsghdr)))
    return finalAnswer(fail(EFAULT));
  auto messages = std::make_shared<std::vector<MessageCopy>>(count);
  std::size_t budget = kStreamCopy;
  std::size_t usable = count;
  std::optional<Refusal> refused;
  for (std::size_t i = 0; i < count; ++i) {
    if (auto e = copyMessage(n.pid, user[i].msg_hdr, stream, budget, (*messages)[i])) {
      if (i == 0) return finalAnswer(fail(*e));
      usable = i;  // as the kernel does: the messages before the bad one are sent
      break;
    }
  }
  if (!still_waiting()) return finalAnswer(fail(EINTR));
  for (std::size_t i = 0; i < usable; ++i) {
    if ((refused = judge((*messages)[i].name, block))) {
      usable = i;
      break;
    }
  }
  PreparedCall p;
  p.refused = refused;
  if (usable == 0) {
    p.answer = fail(EACCES);
    return p;
  }
  messages->resize(usable);
  const int flags = static_cast<int>(n.args[3]);
  p.may_block = blocking(sock->get(), flags);
  const pid_t pid = n.pid;
  const std::uint64_t vector = n.args[1];
  p.call = [sock, messages, flags, pid, vector] {
    std::vector<mmsghdr> out(messages->size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i].msg_hdr = (*messages)[i].build();
    const int sent = ::sendmmsg(sock->get(), out.data(), static_cast<unsigned>(out.size()),
                                flags | MSG_NOSIGNAL);
    if (sent < 0) return fail(errno);
    for (int i = 0; i < sent; ++i) {
      const std::uint64_t at =
          vector + static_cast<std::uint64_t>(i) * sizeof(mmsghdr) + offsetof(mmsghdr, msg_len);
      if (!writeTarget(pid, at, &out[static_cast<std::size_t>(i)].msg_len, sizeof(unsigned)))
        return fail(EFAULT);
    }
    return Answer{sent, 0};
  };
  return p;
}

}  // namespace

PreparedCall prepareCall(const Notice& notice, UniqueFd sock, const HostBlock& block,
                         const std::function<bool()>& still_waiting) {
  int type = 0;
  socklen_t size = sizeof type;
  if (::getsockopt(sock.get(), SOL_SOCKET, SO_TYPE, &type, &size) != 0)
    return finalAnswer(fail(errno));
  const bool stream = type == SOCK_STREAM;
  auto shared = std::make_shared<UniqueFd>(std::move(sock));
  switch (notice.nr) {
    case SYS_connect:
      return prepareConnect(notice, shared, block, still_waiting);
    case SYS_sendto:
      return prepareSendto(notice, shared, stream, block, still_waiting);
    case SYS_sendmsg:
      return prepareSendmsg(notice, shared, stream, block, still_waiting);
    case SYS_sendmmsg:
      return prepareSendmmsg(notice, shared, stream, block, still_waiting);
    default:
      return finalAnswer(fail(ENOSYS));
  }
}

}  // namespace mcpgate::sandbox
