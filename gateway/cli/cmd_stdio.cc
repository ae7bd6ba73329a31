// mcpgate stdio -c FILE SERVER: a desktop MCP client launches mcpgate in place
// of the server; messages pass through the same session and filters as HTTP.

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>

#include "config/config.h"
#include "gateway/cli/cli.h"
#include "gateway/cli/serve_common.h"
#include "gateway/cli/stdio_modern.h"
#include "gateway/guard/generation.h"
#include "gateway/mcp/jsonrpc.h"
#include "gateway/mcp/message.h"
#include "gateway/modern/front.h"
#include "gateway/observe/audit.h"
#include "gateway/observe/log.h"
#include "gateway/session/lanes.h"
#include "gateway/session/session.h"
#include "gateway/session/sessions.h"

namespace mcpgate::gateway {

namespace asio = boost::asio;

namespace {

void writeAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n <= 0) return;  // the client is gone; its stdin EOF ends us
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

// Every message for the client, in order, one line each on stdout.
asio::awaitable<void> writeToClient(std::shared_ptr<Mailbox> mailbox) {
  for (;;) {
    Mailbox::Batch batch = co_await mailbox->next();
    std::string out;
    for (auto& m : batch.messages) {
      if (m.empty()) continue;  // keepalives mean nothing on a pipe
      out += m;
      out += '\n';
    }
    writeAll(STDOUT_FILENO, out);
    if (batch.finished) co_return;
  }
}

// Reads client lines on a plain thread: stdin may be a pipe, a file or a tty.
// A modern client's messages go to `modern`; a legacy client's to the session,
// whose stream (what the server sends outside a request) is stdout from its
// first message on.
void readFromClient(const config::Config& config, const std::shared_ptr<Session>& session,
                    const std::shared_ptr<Mailbox>& mailbox, StdioModern& modern,
                    std::atomic<bool>& client_closed) {
  const std::uint64_t limit = config.limits.max_body_bytes;
  std::string buffer, line;
  bool skipping = false;  // inside a line that went over the limit
  bool stream_open = false;
  char chunk[65536];
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buffer.append(chunk, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (;;) {
      auto nl = buffer.find('\n', start);
      if (nl == std::string::npos) break;
      if (skipping) {
        skipping = false;
      } else {
        line.assign(buffer, start, nl - start);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") != std::string::npos) {
          // Parsed once, here: a single message keeps the line as the text
          // to forward (unless an object in it repeated a key).
          auto parsed =
              mcp::parseBody(std::move(line), config.limits.max_json_depth, Direction::kToServer);
          if (!parsed) {
            mailbox->push(
                jsonrpc::errorResponse(nullptr, parsed.error().code, parsed.error().message));
          } else {
            for (mcp::Message& m : parsed->messages) {
              if (m.kind == jsonrpc::Kind::kInvalid) {
                mailbox->push(
                    jsonrpc::errorResponse(m.id, jsonrpc::kInvalidRequest,
                                           "not a JSON-RPC 2.0 request, notification or response"));
                continue;
              }
              if (modern.active() || modern::eraOf(m.value, {}) == Era::kModern) {
                modern.fromClient(std::move(m));
                continue;
              }
              if (!stream_open) {
                (void)session->openStream(mailbox);
                stream_open = true;
              }
              std::vector<mcp::Message> one;
              one.push_back(std::move(m));
              if (session->fromClient(std::move(one), mailbox) == Session::Accepted::kClosed) {
                return;
              }
            }
          }
        }
      }
      start = nl + 1;
    }
    buffer.erase(0, start);
    if (buffer.size() > limit) {
      mailbox->push(jsonrpc::errorResponse(
          nullptr, jsonrpc::kInvalidRequest,
          "message exceeds the limit of " + std::to_string(limit) + " bytes"));
      buffer.clear();
      skipping = true;
    }
  }
  // Before the close: closing may end the process's io loop, and main reads this flag then.
  client_closed = true;
  session->close("the client closed stdin");
}

}  // namespace

int runStdio(Args args) {
  std::string config_path, server_name;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view a = args[i];
    if ((a == "-c" || a == "--config") && i + 1 < args.size()) {
      config_path = args[++i];
    } else if (server_name.empty() && !a.starts_with("-")) {
      server_name = a;
    } else {
      std::cerr << "usage: mcpgate stdio -c FILE SERVER\n";
      return 2;
    }
  }
  if (config_path.empty() || server_name.empty()) {
    std::cerr << "usage: mcpgate stdio -c FILE SERVER\n";
    return 2;
  }
  auto loaded = loadForServing(config_path);
  if (!loaded) return 1;
  auto it = (*loaded)->servers.find(server_name);
  if (it == (*loaded)->servers.end()) {
    std::cerr << "mcpgate stdio: no server '" << server_name << "' in " << config_path << "\n";
    return 1;
  }
  // The client owns the session's lifetime here: it never goes idle.
  auto config = std::make_shared<config::Config>(**loaded);
  config->session.idle_timeout = std::chrono::hours(24 * 365 * 100);
  const config::ServerConfig& server = config->servers.at(server_name);

  auto generation = buildGeneration(config);
  if (!generation) {
    std::cerr << "mcpgate stdio: " << generation.error() << "\n";
    return 1;
  }
  auto current = std::make_shared<const CurrentGeneration>(*generation);

  if (auto audit_log = audit::start(config->audit, /*stdout_is_mcp=*/true); !audit_log) {
    std::cerr << "mcpgate stdio: " << audit_log.error() << "\n";
    return 1;
  }

  ::signal(SIGPIPE, SIG_IGN);
  asio::io_context io(1);
  // Shared with the reader thread, which may outlive this function when the
  // server ends first and the client never closes stdin.
  auto client_closed = std::make_shared<std::atomic<bool>>(false);
  // Two things end the process: all output written, and the child reaped.
  int parts_left = 2;  // touched only on the io thread
  auto part_done = [&] {
    if (--parts_left == 0) io.stop();
  };
  auto mailbox = std::make_shared<Mailbox>(io.get_executor(), true, 0);
  auto modern = std::make_shared<StdioModern>(io, current, server, mailbox);
  // Weak: the session holds its hooks and `modern` holds the session.
  Session::Hooks hooks{[weak = std::weak_ptr<StdioModern>(modern)](const std::string&) {
                         if (auto m = weak.lock()) m->sessionClosed();
                       },
                       part_done};
  auto session = std::make_shared<Session>(newSessionId(), "", asio::make_strand(io), config,
                                           server, current, hooks);
  modern->attach(session);
  if (auto started = session->start(); !started) {
    std::cerr << "mcpgate stdio: cannot start MCP server '" << server_name
              << "': " << started.error() << "\n";
    return 1;
  }
  asio::co_spawn(io, writeToClient(mailbox), [&](std::exception_ptr) { part_done(); });
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](boost::system::error_code ec, int) {
    if (!ec) session->close("mcpgate received a termination signal");
  });
  std::thread reader([config, session, mailbox, modern, client_closed] {
    readFromClient(*config, session, mailbox, *modern, *client_closed);
  });
  reader.detach();  // a read() blocked on a silent client must not hold up exit
  io.run();
  LanePool::instance().clear();  // its timer and parked requests belong to `io`
  std::fflush(stdout);
  return *client_closed ? 0 : 1;
}

}  // namespace mcpgate::gateway
