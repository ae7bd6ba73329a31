#include "egress/proxy.h"

#include <array>
#include <atomic>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <charconv>
#include <optional>
#include <string_view>

#include "egress/address.h"

namespace mcpgate::egress {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using namespace asio::experimental::awaitable_operators;
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

constexpr std::size_t kMaxHead = 16 * 1024;
constexpr auto kHeadTimeout = std::chrono::seconds(15);
constexpr auto kConnectTimeout = std::chrono::seconds(15);

struct Target {
  bool tunnel = false;
  std::string host;
  std::uint16_t port = 0;
  std::string head;  // plain HTTP: the head to send upstream (origin-form)
};

// "host:port", "[v6]:port", or without a port (then `fallback`).
bool splitAuthority(std::string_view authority, std::uint16_t fallback, Target& t) {
  std::string_view host = authority, port;
  if (authority.starts_with('[')) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return false;
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return false;
      port = authority.substr(close + 2);
    }
  } else if (const std::size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty() || host.find_first_of(" \t/@") != std::string_view::npos) return false;
  t.host = std::string(host);
  if (port.empty()) {
    t.port = fallback;
    return fallback != 0;
  }
  auto p = parsePort(port);
  if (!p) return false;
  t.port = *p;
  return true;
}

bool iequalsPrefix(std::string_view line, std::string_view name) {
  if (line.size() < name.size() + 1 || line[name.size()] != ':') return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return false;
  }
  return true;
}

// The request head: CONNECT authority, or METHOD http://authority/path.
std::optional<Target> parseHead(std::string_view head, std::string& error) {
  const std::size_t eol = head.find("\r\n");
  const std::string_view line = head.substr(0, eol);
  const std::size_t s1 = line.find(' '), s2 = line.rfind(' ');
  if (s1 == std::string_view::npos || s2 == s1) {
    error = "malformed request line";
    return std::nullopt;
  }
  const std::string_view method = line.substr(0, s1), uri = line.substr(s1 + 1, s2 - s1 - 1),
                         version = line.substr(s2 + 1);
  if (!version.starts_with("HTTP/1.")) {
    error = "only HTTP/1.x proxy requests are served";
    return std::nullopt;
  }
  Target t;
  if (method == "CONNECT") {
    t.tunnel = true;
    if (!splitAuthority(uri, 0, t)) {
      error = "CONNECT needs host:port";
      return std::nullopt;
    }
    return t;
  }
  constexpr std::string_view kScheme = "http://";
  if (uri.size() < kScheme.size() ||
      !std::equal(kScheme.begin(), kScheme.end(), uri.begin(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(b)) == a;
      })) {
    error = "a proxy request needs an absolute http:// URI (use CONNECT for https)";
    return std::nullopt;
  }
  const std::string_view rest = uri.substr(kScheme.size());
  const std::size_t slash = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, slash);
  if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
    authority = authority.substr(at + 1);  // userinfo never goes upstream in the line
  }
  if (!splitAuthority(authority, 80, t)) {
    error = "bad host in the request URI";
    return std::nullopt;
  }
  std::string path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  if (path.front() == '?') path.insert(0, "/");
  t.head = std::string(method) + " " + path + " " + std::string(version) + "\r\n";
  // Headers as sent, minus the proxy's own; one request per connection.
  std::size_t at = eol + 2;
  while (at < head.size()) {
    const std::size_t end = head.find("\r\n", at);
    const std::string_view h = head.substr(at, end - at);
    at = end + 2;
    if (h.empty()) break;
    if (iequalsPrefix(h, "proxy-connection") || iequalsPrefix(h, "proxy-authorization") ||
        iequalsPrefix(h, "connection") || iequalsPrefix(h, "keep-alive")) {
      continue;
    }
    t.head.append(h).append("\r\n");
  }
  t.head += "Connection: close\r\n\r\n";
  return t;
}

class ProxyImpl : public Proxy, public std::enable_shared_from_this<ProxyImpl> {
 public:
  ProxyImpl(asio::any_io_executor executor, tcp::acceptor acceptor,
            std::shared_ptr<const ProxySettings> settings)
      : io_(std::move(executor)), acceptor_(std::move(acceptor)), settings_(std::move(settings)) {}

  void run() {
    asio::co_spawn(
        io_, [self = shared_from_this()] { return self->acceptLoop(); }, asio::detached);
  }

  void stop() override {
    asio::post(io_, [self = shared_from_this()] {
      boost::system::error_code ignored;
      self->acceptor_.close(ignored);
    });
  }

 private:
  asio::awaitable<void> acceptLoop() {
    while (acceptor_.is_open()) {
      if (active_ >= settings_->max_connections) {
        asio::steady_timer wait(io_, std::chrono::milliseconds(50));
        co_await wait.async_wait(kTuple);
        continue;
      }
      auto [ec, socket] = co_await acceptor_.async_accept(kTuple);
      if (ec == asio::error::operation_aborted || !acceptor_.is_open()) break;
      if (ec) continue;
      ++active_;
      asio::co_spawn(
          io_,
          [self = shared_from_this(), s = std::move(socket)]() mutable {
            return self->serve(std::move(s));
          },
          asio::detached);
    }
  }

  void report(const Target& t, const std::string& address, const Decision& d) {
    if (!settings_->on_decision) return;
    settings_->on_decision(ProxyEvent{settings_->server, settings_->session, t.host, address,
                                      t.port, d.allowed, d.entry, d.reason});
  }

  static asio::awaitable<void> refuse(tcp::socket& client, int status, std::string_view why) {
    const std::string text = "mcpgate egress: " + std::string(why) + "\n";
    const std::string reply =
        "HTTP/1.1 " + std::to_string(status) +
        (status == 403   ? " Forbidden"
         : status == 502 ? " Bad Gateway"
                         : " Bad Request") +
        "\r\nContent-Type: text/plain\r\nContent-Length: " + std::to_string(text.size()) +
        "\r\nConnection: close\r\n\r\n" + text;
    co_await asio::async_write(client, asio::buffer(reply), kTuple);
  }

  // The addresses of `host`: a literal, a static entry, or DNS (only for a
  // name an entry lists, so refusals need no lookup).
  asio::awaitable<std::vector<IpAddress>> resolve(const Target& t, std::string& error) {
    if (auto literal = parseIp(t.host)) co_return std::vector<IpAddress>{*literal};
    const std::string name = normalizeHost(t.host);
    if (!nameListed(settings_->allow, name, t.port)) {
      error = t.host + " port " + std::to_string(t.port) + " matches no allow entry";
      co_return std::vector<IpAddress>{};
    }
    if (auto it = settings_->static_hosts.find(name); it != settings_->static_hosts.end()) {
      co_return it->second;
    }
    tcp::resolver resolver(io_);
    auto [ec, results] = co_await resolver.async_resolve(name, std::to_string(t.port), kTuple);
    std::vector<IpAddress> out;
    if (ec) {
      error = "cannot resolve " + t.host + ": " + ec.message();
      co_return out;
    }
    for (const auto& r : results) {
      auto a = parseIp(r.endpoint().address().to_string());
      if (a && std::ranges::find(out, *a) == out.end()) out.push_back(*a);
    }
    co_return out;
  }

  static asio::awaitable<void> pump(tcp::socket& from, tcp::socket& to) {
    std::array<char, 16384> buffer;
    while (true) {
      auto [ec, n] = co_await from.async_read_some(asio::buffer(buffer), kTuple);
      if (ec || n == 0) break;
      auto [wec, written] = co_await asio::async_write(to, asio::buffer(buffer.data(), n), kTuple);
      if (wec) break;
    }
    boost::system::error_code ignored;
    to.shutdown(tcp::socket::shutdown_send, ignored);
  }

  asio::awaitable<void> serve(tcp::socket client) {
    struct Done {
      std::size_t& n;
      ~Done() { --n; }
    } done{active_};
    asio::streambuf head_buffer(kMaxHead);
    asio::steady_timer timer(io_, kHeadTimeout);
    timer.async_wait([&client](boost::system::error_code ec) {
      if (!ec) {
        boost::system::error_code ignored;
        client.cancel(ignored);
      }
    });
    auto [ec, head_size] = co_await asio::async_read_until(client, head_buffer, "\r\n\r\n", kTuple);
    timer.cancel();
    if (ec) {
      if (ec == asio::error::not_found) co_await refuse(client, 400, "request head too large");
      co_return;
    }
    const std::string all(asio::buffers_begin(head_buffer.data()),
                          asio::buffers_end(head_buffer.data()));
    const std::string head = all.substr(0, head_size);
    const std::string rest = all.substr(head_size);
    std::string error;
    auto target = parseHead(head, error);
    if (!target) {
      co_await refuse(client, 400, error);
      co_return;
    }
    auto addresses = co_await resolve(*target, error);
    if (addresses.empty()) {
      Decision d;
      d.reason = error.empty() ? target->host + " has no address" : error;
      report(*target, "", d);
      co_await refuse(client, 403, d.reason);
      co_return;
    }
    tcp::socket upstream(io_);
    std::optional<Decision> first_refusal;
    std::string refused_address;
    bool connected = false;
    std::string connect_error;
    for (const IpAddress& a : addresses) {
      const Decision d = decide(settings_->allow, target->host, a, target->port, settings_->own);
      if (!d.allowed) {
        if (!first_refusal) {
          first_refusal = d;
          refused_address = formatIp(a);
        }
        continue;
      }
      // Connect to exactly the address that was decided on.
      const tcp::endpoint endpoint(asio::ip::make_address(formatIp(a)), target->port);
      asio::steady_timer limit(io_, kConnectTimeout);
      limit.async_wait([&upstream](boost::system::error_code e) {
        if (!e) {
          boost::system::error_code ignored;
          upstream.close(ignored);
        }
      });
      auto [cec] = co_await upstream.async_connect(endpoint, kTuple);
      limit.cancel();
      if (cec) {
        connect_error = formatIp(a) + ": " + cec.message();
        boost::system::error_code ignored;
        upstream.close(ignored);
        continue;
      }
      report(*target, formatIp(a), d);
      connected = true;
      break;
    }
    if (!connected) {
      if (first_refusal && connect_error.empty()) {
        report(*target, refused_address, *first_refusal);
        co_await refuse(client, 403, first_refusal->reason);
      } else {
        co_await refuse(client, 502, "cannot connect: " + connect_error);
      }
      co_return;
    }
    if (target->tunnel) {
      constexpr std::string_view kOk = "HTTP/1.1 200 Connection established\r\n\r\n";
      auto [wec, n] = co_await asio::async_write(client, asio::buffer(kOk), kTuple);
      if (wec) co_return;
    } else {
      auto [wec, n] = co_await asio::async_write(upstream, asio::buffer(target->head), kTuple);
      if (wec) co_return;
    }
    if (!rest.empty()) {
      auto [wec, n] = co_await asio::async_write(upstream, asio::buffer(rest), kTuple);
      if (wec) co_return;
    }
    co_await (pump(client, upstream) && pump(upstream, client));
  }

  // Every coroutine of this proxy runs here: give it a strand (or a
  // single-threaded io_context), since `active_` is not atomic.
  asio::any_io_executor io_;
  tcp::acceptor acceptor_;
  std::shared_ptr<const ProxySettings> settings_;
  std::size_t active_ = 0;
};

}  // namespace

std::shared_ptr<Proxy> Proxy::start(asio::any_io_executor executor, tcp::acceptor acceptor,
                                    std::shared_ptr<const ProxySettings> settings) {
  auto proxy = std::make_shared<ProxyImpl>(std::move(executor), std::move(acceptor),
                                           std::move(settings));
  proxy->run();
  return proxy;
}

std::shared_ptr<Proxy> Proxy::start(asio::io_context& io, tcp::acceptor acceptor,
                                    std::shared_ptr<const ProxySettings> settings) {
  return start(io.get_executor(), std::move(acceptor), std::move(settings));
}

}  // namespace mcpgate::egress
