// The egress proxy with real clients (curl, Python's urllib, Node's fetch)
// and real listeners, all on loopback: an allowed port is reached, another
// port, the gateway's own listener and a listed name that resolves to a
// blocked address are refused, and every decision is reported.

#include "egress/proxy.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <cstdio>
#include <mutex>
#include <thread>

namespace mcpgate::egress {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

// A loopback HTTP listener answering every request with its own name.
class Listener {
 public:
  explicit Listener(std::string name, const char* address = "127.0.0.1")
      : name_(std::move(name)), acceptor_(io_, tcp::endpoint(asio::ip::make_address(address), 0)) {
    thread_ = std::thread([this] {
      while (true) {
        boost::system::error_code ec;
        tcp::socket s(io_);
        acceptor_.accept(s, ec);
        if (ec || stopped_) return;
        char buffer[4096];
        std::string request;
        while (request.find("\r\n\r\n") == std::string::npos) {
          const std::size_t n = s.read_some(asio::buffer(buffer), ec);
          if (ec) break;
          request.append(buffer, n);
        }
        const std::string body = "hello from " + name_ + "\n";
        const std::string reply =
            "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) +
            "\r\nConnection: close\r\n\r\n" + body;
        asio::write(s, asio::buffer(reply), ec);
        s.shutdown(tcp::socket::shutdown_both, ec);
      }
    });
  }
  ~Listener() {
    stopped_ = true;
    boost::system::error_code ec;
    tcp::socket poke(io_);
    poke.connect(acceptor_.local_endpoint(), ec);
    thread_.join();
  }
  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

 private:
  std::string name_;
  asio::io_context io_;
  tcp::acceptor acceptor_;
  std::atomic<bool> stopped_ = false;
  std::thread thread_;
};

std::string run(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  ::pclose(pipe);
  return out;
}

class EgressProxyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    allowed_ = std::make_unique<Listener>("allowed");
    other_ = std::make_unique<Listener>("other");
    gateway_ = std::make_unique<Listener>("gateway", "127.0.0.2");
    auto settings = std::make_shared<ProxySettings>();
    settings->server = "api";
    settings->session = "s-1";
    // 127.0.0.2 with any port covers the gateway's listener there, which
    // still needs an entry naming that address and port.
    for (const std::string& e : {"127.0.0.1:" + std::to_string(allowed_->port()),
                                 std::string("rebound.test"), std::string("127.0.0.2")}) {
      settings->allow.push_back(*parseAllowEntry(e));
    }
    settings->own.listeners.push_back({*parseIp("127.0.0.2"), gateway_->port(), false});
    settings->static_hosts["rebound.test"] = {*parseIp("127.0.0.1")};
    settings->on_decision = [this](const ProxyEvent& e) {
      std::lock_guard lock(mu_);
      events_.push_back(e);
    };
    tcp::acceptor acceptor(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    proxy_port_ = acceptor.local_endpoint().port();
    proxy_ = Proxy::start(io_, std::move(acceptor), settings);
    thread_ = std::thread([this] { io_.run(); });
  }
  void TearDown() override {
    proxy_->stop();
    io_.stop();
    thread_.join();
  }
  std::string proxyUrl() const { return "http://127.0.0.1:" + std::to_string(proxy_port_); }
  std::string env() const {
    return "env -i PATH=/usr/bin:/bin http_proxy=" + proxyUrl() + " HTTP_PROXY=" + proxyUrl() +
           " https_proxy=" + proxyUrl() + " HTTPS_PROXY=" + proxyUrl() + " ";
  }
  std::string curl(const std::string& url) {
    return run(env() + "curl -s --max-time 10 " + url + " 2>&1");
  }
  std::vector<ProxyEvent> events() {
    std::lock_guard lock(mu_);
    return events_;
  }

  asio::io_context io_;
  std::thread thread_;
  std::shared_ptr<Proxy> proxy_;
  std::uint16_t proxy_port_ = 0;
  std::unique_ptr<Listener> allowed_, other_, gateway_;
  std::mutex mu_;
  std::vector<ProxyEvent> events_;
};

TEST_F(EgressProxyTest, CurlReachesTheAllowedPortOnlyAndEveryDecisionIsReported) {
  const std::string p1 = std::to_string(allowed_->port());
  EXPECT_EQ(curl("http://127.0.0.1:" + p1 + "/x"), "hello from allowed\n");
  const std::string refused = curl("http://127.0.0.1:" + std::to_string(other_->port()) + "/");
  EXPECT_NE(refused.find("mcpgate egress:"), std::string::npos) << refused;
  EXPECT_EQ(refused.find("hello"), std::string::npos);
  // CONNECT (what HTTPS clients send) to a refused port: curl reports the 403.
  const std::string tunnel =
      run(env() + "curl -s -p --max-time 10 -o /dev/null -w '%{http_connect}' http://127.0.0.1:" +
          std::to_string(other_->port()) + "/");
  EXPECT_EQ(tunnel, "403");
  const auto seen = events();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_TRUE(seen[0].allowed);
  EXPECT_EQ(seen[0].server, "api");
  EXPECT_EQ(seen[0].session, "s-1");
  EXPECT_EQ(seen[0].address, "127.0.0.1");
  EXPECT_EQ(seen[0].port, allowed_->port());
  EXPECT_FALSE(seen[1].allowed);
  EXPECT_EQ(seen[1].port, other_->port());
  EXPECT_FALSE(seen[2].allowed);
}

TEST_F(EgressProxyTest, TheGatewaysOwnListenerIsRefusedUnderABroadEntry) {
  const std::string reply =
      curl("http://127.0.0.2:" + std::to_string(gateway_->port()) + "/healthz");
  EXPECT_NE(reply.find("gateway's own listeners"), std::string::npos) << reply;
}

TEST_F(EgressProxyTest, AListedNameResolvingToLoopbackIsRefused) {
  const std::string reply =
      curl("http://rebound.test:" + std::to_string(allowed_->port() + 0) + "/");
  // rebound.test -> 127.0.0.1: allowed only because 127.0.0.1:P1 is listed itself.
  EXPECT_EQ(reply, "hello from allowed\n");
  const std::string refused = curl("http://rebound.test:" + std::to_string(other_->port()) + "/");
  EXPECT_NE(refused.find("resolved there"), std::string::npos) << refused;
  const std::string unlisted =
      curl("http://unlisted.test:" + std::to_string(allowed_->port()) + "/");
  EXPECT_NE(unlisted.find("matches no allow entry"), std::string::npos) << unlisted;
}

TEST_F(EgressProxyTest, PythonAndNodeClientsGoThroughWithTheProxyVariables) {
  const std::string url = "http://127.0.0.1:" + std::to_string(allowed_->port()) + "/";
  EXPECT_EQ(
      run(env() + "/usr/bin/python3 -c \"import urllib.request;print(urllib.request.urlopen('" +
          url + "').read().decode(),end='')\" 2>&1"),
      "hello from allowed\n");
  const std::string bootstrap = std::string(MCPGATE_SOURCE_DIR) + "/egress/node/env-proxy.cjs";
  const std::string node = env() + "NODE_PATH=" + MCPGATE_SOURCE_DIR +
                           "/node_modules NODE_OPTIONS='--require " + bootstrap +
                           "' node -e \"fetch('" + url +
                           "').then(r=>r.text()).then(t=>process.stdout.write(t),e=>console.log("
                           "String(e.cause||e)))\" 2>&1";
  EXPECT_EQ(run(node), "hello from allowed\n");
  const std::size_t before = events().size();
  const std::string refused_url = "http://127.0.0.1:" + std::to_string(other_->port()) + "/";
  const std::string node_refused =
      env() + "NODE_PATH=" + MCPGATE_SOURCE_DIR + "/node_modules NODE_OPTIONS='--require " +
      bootstrap + "' node -e \"fetch('" + refused_url +
      "').then(r=>console.log(r.status),e=>console.log(String(e.cause&&e.cause.cause||e)))\" 2>&1";
  // undici tunnels http:// too (CONNECT), so a refusal is a failed fetch naming the 403.
  const std::string refused = run(node_refused);
  EXPECT_NE(refused.find("Proxy response (403)"), std::string::npos) << refused;
  EXPECT_EQ(events().size(), before + 1);
}

}  // namespace
}  // namespace mcpgate::egress
