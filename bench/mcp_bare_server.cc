// mcp_bare_server: the ceiling of the throughput comparison. A bare Beast
// HTTP/1.1 server that answers MCP POSTs on /mcp* itself with the same echo
// logic as mcp_echo_server: what an HTTP MCP endpoint costs with no gateway,
// no child process and no pipes.
//
// With --relay CMD it answers nothing itself: each connection (the load
// generator opens one per MCP session) gets its own child CMD, every POST body
// goes to the child's stdin as one line, and a request's answer is the next
// line on the child's stdout. No parsing, no checks, no sandbox: the least
// work any stdio-to-HTTP gateway does per call, so the ceiling for one.
//
// Shaped like mcpgate's own server for a fair comparison: one io_context run
// by N threads, one coroutine per connection (its operations never overlap,
// so no strand is needed), error codes rather than exceptions on the I/O
// path, a reused read buffer and the same 64 MiB body limit.

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench/echo_logic.h"

// g++ 12 misreads Asio's coroutine frame allocator in large coroutines as a
// mismatched new/delete pair (as in gateway/aggregate.cc).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::awaitable;
using asio::ip::tcp;

constexpr auto kUse = asio::as_tuple(asio::use_awaitable);
constexpr std::uint64_t kBodyLimit = 64ull << 20;
constexpr std::size_t kReadChunk = 64 * 1024;

void usage() {
  std::fputs("usage: mcp_bare_server [--listen HOST:PORT] [--threads N] [--relay CMD]\n", stderr);
}

extern "C" char** environ;

// --relay: the command each connection's child runs; empty: answer in-process.
std::string g_relay;

// Whether the client waits for an answer to this body: a request has an id,
// a notification has none. Enough for the load generator's messages.
bool expectsAnswer(std::string_view body) {
  return body.find("\"id\"") != std::string_view::npos &&
         body.find("\"method\":\"notifications/") == std::string_view::npos;
}

// A connection's child: its stdin and stdout, and what was read past the last
// line. Closing stdin (the destructor) ends it; SIGCHLD is ignored, so the
// kernel reaps it.
struct RelayChild {
  asio::posix::stream_descriptor in;
  asio::posix::stream_descriptor out;
  std::string read;

  explicit RelayChild(const asio::any_io_executor& executor) : in(executor), out(executor) {}

  bool start() {
    int to_child[2], from_child[2];
    if (::pipe2(to_child, O_CLOEXEC) != 0) return false;
    if (::pipe2(from_child, O_CLOEXEC) != 0) {
      ::close(to_child[0]);
      ::close(to_child[1]);
      return false;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
    char* argv[] = {g_relay.data(), nullptr};
    const int failed = ::posix_spawn(nullptr, g_relay.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(to_child[0]);
    ::close(from_child[1]);
    in.assign(to_child[1]);
    out.assign(from_child[0]);
    return failed == 0;
  }

  // Sends one message as a line and, for a request, puts the child's next
  // line in `answer`: what appendAnswer would have done in-process. nullopt:
  // the child's pipes failed.
  awaitable<std::optional<mcpgate::bench::Handled>> exchange(std::string& body,
                                                             std::string& answer) {
    // One line per message; a newline in a JSON body is whitespace.
    std::replace(body.begin(), body.end(), '\n', ' ');
    body += '\n';
    const asio::const_buffer message = asio::buffer(body);
    auto [in_ec, in_n] = co_await asio::async_write(in, message, kUse);
    if (in_ec) co_return std::nullopt;
    if (!expectsAnswer(body)) co_return mcpgate::bench::Handled{};
    auto buffer = asio::dynamic_buffer(read);
    auto [out_ec, line_n] = co_await asio::async_read_until(out, buffer, '\n', kUse);
    if (out_ec) co_return std::nullopt;
    answer.assign(read, 0, line_n - 1);
    read.erase(0, line_n);
    co_return mcpgate::bench::Handled{
        .answered = true,
        .initialize = body.find("\"method\":\"initialize\"") != std::string::npos};
  }
};

std::string randomHex() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  char out[32];
  for (int half = 0; half < 2; ++half) {
    const std::uint64_t v = rng();
    for (int i = 0; i < 16; ++i) out[half * 16 + i] = "0123456789abcdef"[(v >> (i * 4)) & 15];
  }
  return std::string(out, sizeof out);
}

awaitable<void> serve(tcp::socket socket) {
  beast::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  beast::flat_buffer buffer;
  // Beast reads at most the buffer's free capacity (512 bytes when empty):
  // without this a 64 KiB body takes 128 recv calls.
  buffer.reserve(kReadChunk);
  // Kept across requests so their strings keep their capacity.
  http::request<http::string_body> request;
  std::string answer;
  std::optional<RelayChild> child;
  for (;;) {
    request.clear();
    request.body().clear();
    http::request_parser<http::string_body> parser(std::move(request));
    parser.body_limit(kBodyLimit);
    auto [read_ec, read_n] = co_await http::async_read(socket, buffer, parser, kUse);
    if (read_ec) break;  // end of stream, reset, or a request over the limit
    request = parser.release();

    http::response<http::string_body> response;
    response.version(request.version());
    response.keep_alive(request.keep_alive());
    answer.clear();
    if (request.method() == http::verb::post && request.target().starts_with("/mcp")) {
      std::optional<mcpgate::bench::Handled> handled;
      if (g_relay.empty()) {
        handled = mcpgate::bench::appendAnswer(request.body(), answer);
      } else {
        if (!child) {
          child.emplace(socket.get_executor());
          if (!child->start()) break;
        }
        handled = co_await child->exchange(request.body(), answer);
      }
      if (!handled) break;
      if (handled->answered) {
        response.result(http::status::ok);
        response.set(http::field::content_type, "application/json");
        if (handled->initialize) response.set("Mcp-Session-Id", randomHex());
      } else {
        response.result(http::status::accepted);
      }
    } else if (request.method() == http::verb::delete_) {
      response.result(http::status::ok);
    } else if (request.method() == http::verb::post) {
      response.result(http::status::not_found);
    } else {
      response.result(http::status::method_not_allowed);
      response.set(http::field::allow, "POST, DELETE");
    }
    response.body() = std::move(answer);
    response.prepare_payload();
    auto [write_ec, write_n] = co_await http::async_write(socket, response, kUse);
    answer = std::move(response.body());
    if (write_ec || !response.keep_alive()) break;
  }
  socket.shutdown(tcp::socket::shutdown_send, ignored);
}

awaitable<void> accept(tcp::acceptor& acceptor) {
  auto executor = co_await asio::this_coro::executor;
  for (;;) {
    auto [ec, socket] = co_await acceptor.async_accept(kUse);
    if (ec == asio::error::operation_aborted) co_return;
    if (ec) {
      // Out of descriptors or a connection reset before accept: retry shortly
      // rather than spin.
      asio::steady_timer pause(executor, std::chrono::milliseconds(10));
      co_await pause.async_wait(kUse);
      continue;
    }
    asio::co_spawn(executor, serve(std::move(socket)), asio::detached);
  }
}

void raiseDescriptorLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string listen = "127.0.0.1:0";
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--listen" && i + 1 < argc) {
      listen = argv[++i];
    } else if (arg == "--relay" && i + 1 < argc) {
      g_relay = argv[++i];
    } else if (arg == "--threads" && i + 1 < argc) {
      const std::string_view v = argv[++i];
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), threads);
      if (ec != std::errc{} || p != v.data() + v.size() || threads == 0) {
        usage();
        return 2;
      }
    } else {
      usage();
      return 2;
    }
  }
  const std::size_t colon = listen.rfind(':');
  if (colon == std::string::npos) {
    usage();
    return 2;
  }
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  unsigned short port = 0;
  {
    const std::string_view v = std::string_view(listen).substr(colon + 1);
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), port);
    if (ec != std::errc{} || p != v.data() + v.size()) {
      usage();
      return 2;
    }
  }
  beast::error_code ec;
  const asio::ip::address address = asio::ip::make_address(host, ec);
  if (ec) {
    std::fprintf(stderr, "mcp_bare_server: bad address %s: %s\n", host.c_str(),
                 ec.message().c_str());
    return 2;
  }
  raiseDescriptorLimit();
  if (!g_relay.empty()) {
    if (::access(g_relay.c_str(), X_OK) != 0) {
      std::fprintf(stderr, "mcp_bare_server: --relay %s: not an executable\n", g_relay.c_str());
      return 2;
    }
    std::signal(SIGCHLD, SIG_IGN);  // children are reaped by the kernel
    std::signal(SIGPIPE, SIG_IGN);  // a child that died is an error on its pipe
  }

  asio::io_context io(static_cast<int>(threads));
  tcp::acceptor acceptor(io);
  const tcp::endpoint endpoint(address, port);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    std::fprintf(stderr, "mcp_bare_server: listen on %s: %s\n", listen.c_str(),
                 ec.message().c_str());
    return 1;
  }
  const tcp::endpoint bound = acceptor.local_endpoint();
  const std::string shown = bound.address().is_v6() ? "[" + bound.address().to_string() + "]"
                                                    : bound.address().to_string();
  std::printf("listening %s:%u\n", shown.c_str(), static_cast<unsigned>(bound.port()));
  std::fflush(stdout);

  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&io](const beast::error_code&, int) { io.stop(); });
  asio::co_spawn(io, accept(acceptor), asio::detached);

  std::vector<std::jthread> workers;
  for (unsigned i = 1; i < threads; ++i) workers.emplace_back([&io] { io.run(); });
  io.run();
  return 0;
}
