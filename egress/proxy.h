#pragma once

// The egress proxy a sandboxed server's connections leave through. It speaks
// what HTTP_PROXY/HTTPS_PROXY clients send: CONNECT host:port (a tunnel, for
// HTTPS) and plain HTTP with an absolute URI. For each request it resolves the
// name (only names an entry lists), decides on every resolved address
// (allowlist.h), and connects to an address it checked: no second lookup, so
// a name cannot be re-pointed between the check and the connect. Every
// decision goes to `on_decision` (the gateway's log line and audit record).

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "egress/allowlist.h"

namespace mcpgate::egress {

struct ProxyEvent {
  std::string server;
  std::string session;
  std::string host;     // as the client asked
  std::string address;  // the address decided on ("" when nothing resolved)
  std::uint16_t port = 0;
  bool allowed = false;
  std::string entry;   // the allow entry that matched
  std::string reason;  // why it was refused
};

struct ProxySettings {
  std::string server;
  std::string session;
  std::vector<AllowEntry> allow;
  OwnEndpoints own;
  // Names answered without DNS (like a hosts file): tests map a name to a
  // blocked address with it; operators may pin a name.
  std::map<std::string, std::vector<IpAddress>> static_hosts;
  std::size_t max_connections = 64;  // per proxy; more wait in the accept queue
  std::function<void(const ProxyEvent&)> on_decision;
};

class Proxy {
 public:
  // Serves connections accepted on `acceptor` (already listening) until
  // stop() or destruction. Everything runs on `executor`: a strand, or a
  // single-threaded io_context.
  static std::shared_ptr<Proxy> start(boost::asio::any_io_executor executor,
                                      boost::asio::ip::tcp::acceptor acceptor,
                                      std::shared_ptr<const ProxySettings> settings);
  static std::shared_ptr<Proxy> start(boost::asio::io_context& io,
                                      boost::asio::ip::tcp::acceptor acceptor,
                                      std::shared_ptr<const ProxySettings> settings);
  virtual ~Proxy() = default;
  virtual void stop() = 0;
};

}  // namespace mcpgate::egress
