#include "gateway/http/modern_post.h"

#include <boost/asio/this_coro.hpp>
#include <iterator>

#include "gateway/mcp/json_scan.h"
#include "gateway/mcp/jsonrpc.h"
#include "gateway/modern/front.h"
#include "gateway/session/lanes.h"
#include "gateway/session/modern_flow.h"

// g++ 12 misreads Asio's coroutine frame allocator as a mismatched new/delete pair (as in
// session/aggregate.cc).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace mcpgate::gateway {

namespace asio = boost::asio;
using asio::awaitable;
using nlohmann::json;
using Status = HttpStatus;

namespace {

Reply frontRefusal(const modern::FrontError& error, const json& id) {
  return Reply{static_cast<Status>(error.http_status), modern::errorBody(error, id), ""};
}

// JSON when only the response came; SSE as soon as anything else does.
awaitable<Plan> answer(const std::shared_ptr<Mailbox>& out, bool accepts_json, const json& id) {
  Mailbox::Batch first = co_await out->next();
  if (first.finished && first.messages.empty() && out->abandoned()) {
    // The client closed the connection (the peer watch): nothing to answer. A client that only
    // half-closed reads why rather than an empty 200; the connection ends after it.
    Reply gone{Status::ok,
               jsonrpc::errorResponse(id, jsonrpc::kRequestCancelled,
                                      "request cancelled: the client closed its stream"),
               ""};
    gone.close = true;
    co_return gone;
  }
  while (accepts_json && !first.finished && !first.has_intermediate) {
    Mailbox::Batch more = co_await out->next();
    first.messages.insert(first.messages.end(), std::make_move_iterator(more.messages.begin()),
                          std::make_move_iterator(more.messages.end()));
    first.has_intermediate = more.has_intermediate;
    first.finished = more.finished;
  }
  if (!accepts_json || !first.finished || first.has_intermediate) {
    co_return EventStream{"", out, std::move(first)};
  }
  std::string body;
  for (auto& m : first.messages) {
    if (!m.empty()) body = std::move(m);
  }
  // "If the server does not implement the requested RPC method, it MUST
  // respond with 404 Not Found" (streamable-http.mdx): the server's -32601
  // is told in HTTP terms too; -32021 is a 400 wherever it comes from.
  // Only the members before the result are read: a result is most of a body.
  Status status = Status::ok;
  const auto envelope = jsonscan::envelopeOf(body);
  if (!envelope || envelope->error != jsonscan::kBad) {
    json reply = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (reply.is_object() && reply.contains("error") && reply["error"].is_object()) {
      const int code = reply["error"].value("code", 0);
      if (code == -32601) status = Status::not_found;
      if (code == jsonrpc::kMissingRequiredClientCapability) status = Status::bad_request;
    }
  }
  co_return Reply{status, std::move(body), ""};
}

}  // namespace

awaitable<Plan> modernPost(SessionTable& sessions, ModernPost post, mcp::Message message) {
  const json& id = message.id;
  const std::string serverName = post.server != nullptr ? post.server->name : std::string();
  modern::RequestHeaders headers;
  if (!post.req.protocol_version.empty()) headers.protocol_version = post.req.protocol_version;
  headers.method = post.req.mcp_method;
  headers.name = post.req.mcp_name;
  headers.params = post.req.mcp_params;
  // A tools/call of a tool listed to this client is checked against its
  // x-mcp-header annotations too (Mcp-Param-*).
  std::optional<std::vector<modern::ParamHeader>> annotated;
  if (!message.tool.empty()) {
    auto known = LanePool::instance().toolHeaders(post.identity, serverName, message.tool);
    if (known && !*known) {
      co_return frontRefusal(
          modern::FrontError{400, jsonrpc::kInvalidParams,
                             "the tool's x-mcp-header annotations are invalid (spec: such a tool "
                             "is unusable over HTTP)"},
          id);
    }
    if (known) annotated = std::move(*known);
  }
  if (auto checked =
          modern::checkRequest(message.value, headers, annotated ? &*annotated : nullptr);
      !checked) {
    co_return frontRefusal(checked.error(), id);
  }
  // This revision defines no client notifications over HTTP: accepted, unused.
  if (!message.isRequest()) co_return Reply{Status::accepted, "", ""};
  ModernRequest request{post.generation, post.server,   std::move(post.aggregate),
                        post.client,     post.identity, post.accepts_sse,
                        nullptr,         &sessions};
  auto out = std::make_shared<Mailbox>(co_await asio::this_coro::executor, post.accepts_sse, 1);
  // Closing the stream is a modern client's cancellation: heard even while nothing is written.
  if (post.req.peer != nullptr) post.req.peer->abandonOnClose(out);
  std::optional<ModernReply> now =
      co_await serveModern(std::move(request), std::move(message), out);
  if (now) co_return Reply{static_cast<Status>(now->http_status), std::move(now->body), ""};
  Plan plan = co_await answer(out, post.accepts_json, id);
  co_return plan;
}

}  // namespace mcpgate::gateway
