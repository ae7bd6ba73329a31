#pragma once

// A POST from a modern (2026-07-28) client on /mcp/<server>: no session, the
// envelope in params._meta. Checked by the modern front (headers, version),
// then served through one of the client identity's lanes (LanePool): passed
// through to a modern server; to a legacy server, which the lane has
// initialized, with server/discover answered by the gateway, results stamped
// for the modern client, and the server's sampling and elicitation requests
// turned into an InputRequiredResult whose retry answers them (MRTR).

#include <boost/asio/awaitable.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "config/config.h"
#include "gateway/guard/generation.h"
#include "gateway/http/endpoint.h"
#include "gateway/mcp/message.h"
#include "gateway/session/sessions.h"

namespace mcpgate::gateway {

struct ModernPost {
  const HttpRequest& req;
  std::shared_ptr<const Generation> generation;
  const config::ServerConfig* server;  // null: the aggregate /mcp
  std::vector<std::string> aggregate;  // for /mcp: the servers this client may use
  std::string client;    // the authenticated client, empty without auth
  std::string identity;  // whose lanes: the client, or its address without auth
  bool accepts_sse = false;
  bool accepts_json = false;
};

// `message`: the POST's one message, parsed once (its era modern).
[[nodiscard]] boost::asio::awaitable<Plan> modernPost(SessionTable& sessions, ModernPost post,
                                                      mcp::Message message);

}  // namespace mcpgate::gateway
