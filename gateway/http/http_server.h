#pragma once

// MCP Streamable HTTP on /mcp/<server>: POST for client messages (answered as
// application/json or an SSE stream), GET for the server's stream, DELETE to
// end a session. Beast stays inside the connection files: it is slow to compile.

#include <boost/asio/ip/tcp.hpp>
#include <expected>
#include <memory>
#include <string>

#include "config/config.h"
#include "gateway/guard/generation.h"
#include "gateway/session/io_pool.h"
#include "gateway/session/sessions.h"

namespace mcpgate::gateway {

class HttpServer {
 public:
  // Each request is served with the generation current when it arrives.
  // Accepts on the pool's main worker; each connection runs on the next one.
  HttpServer(IoPool& pool, std::shared_ptr<const CurrentGeneration> current,
             SessionTable& sessions);
  ~HttpServer();

  // Binds and starts accepting; returns the bound address (port 0 picks one).
  [[nodiscard]] std::expected<boost::asio::ip::tcp::endpoint, std::string> listen(
      const std::string& host, unsigned short port);
  void stop();  // stop accepting; open connections finish on their own

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcpgate::gateway
