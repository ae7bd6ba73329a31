#pragma once

// One request of a modern (2026-07-28) client served through a lane
// (session/lanes.h), whatever carried it: an HTTP POST on /mcp/<server> or
// /mcp (http/modern_post.cc, which checks the request headers first), or a
// line of `mcpgate stdio`'s client (cli/stdio_modern.cc). Passed through to a
// modern server; to a legacy server, which the lane has initialized, with
// server/discover answered by the gateway, results stamped for the modern
// client, and the server's sampling and elicitation requests turned into an
// InputRequiredResult whose retry answers them (MRTR).

#include <boost/asio/awaitable.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "gateway/guard/generation.h"
#include "gateway/mcp/message.h"
#include "gateway/session/lanes.h"
#include "gateway/session/mailbox.h"
#include "gateway/session/sessions.h"

namespace mcpgate::gateway {

struct ModernRequest {
  std::shared_ptr<const Generation> generation;
  const config::ServerConfig* server = nullptr;  // null: the aggregate /mcp
  std::vector<std::string> aggregate;            // for /mcp: the servers this client may use
  std::string client;                            // the authenticated client, empty without auth
  std::string identity;  // whose lanes: the client, or its address without auth
  // The client takes a stream of messages before its answer (SSE; stdio
  // always): progress, log messages, a listen stream's notifications.
  bool streams = false;
  // The lane to serve it on when the caller keeps one (mcpgate stdio: one
  // client, one lane); else one of the pool's, started in `sessions`.
  std::shared_ptr<Lane> lane;
  SessionTable* sessions = nullptr;
};

// An answer the gateway gives at once, and the HTTP status it means.
struct ModernReply {
  unsigned http_status = 200;
  std::string body;
};

// Serves one modern request whose envelope was checked (modern::checkRequest
// or checkEnvelope), parsed once where it came in: its bytes are what reaches
// the server, with the gateway's id in place of the client's. Its answer comes back at once, or
// (nullopt) goes to `out` with whatever the server sends before it (progress, an
// InputRequiredResult, a listen stream's notifications); `out` takes one
// final message.
// A fresh id the gateway gives a request it sends a lane's server ("mcpgate-N").
[[nodiscard]] std::string nextGatewayId();

[[nodiscard]] boost::asio::awaitable<std::optional<ModernReply>> serveModern(
    ModernRequest request, mcp::Message message, std::shared_ptr<Mailbox> out);

}  // namespace mcpgate::gateway
