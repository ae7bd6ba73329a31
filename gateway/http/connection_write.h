#pragma once

// The transport's member functions: Writing a whole answer.
// Apart so that each TLS piece compiles in a file of its own (connection_impl.h).

#include "gateway/http/connection_impl.h"

namespace mcpgate::gateway::transport {

// The one place an answer leaves: whole, or as an event stream.
template <typename Stream>
awaitable<bool> Connection<Stream>::send(Exchange& exchange) {
  if (auto* reply = std::get_if<Reply>(&exchange.answer.plan)) {
    const bool again = co_await write(exchange, *reply);
    co_return again;
  }
  const bool again = co_await streamEvents(exchange, std::get<EventStream>(exchange.answer.plan));
  co_return again;
}

// The body is moved into the response, not copied.
template <typename Stream>
awaitable<bool> Connection<Stream>::write(const Exchange& exchange, Reply& reply) {
  http::response<http::string_body> res{reply.status, exchange.version};
  res.set(http::field::server, "mcpgate");
  if (!reply.body.empty()) res.set(http::field::content_type, reply.content_type);
  if (!reply.session_id.empty()) res.set("Mcp-Session-Id", reply.session_id);
  for (const auto& [name, value] : reply.headers) res.set(name, value);
  res.body() = std::move(reply.body);
  res.keep_alive(exchange.keep_alive);
  res.prepare_payload();
  metrics::httpReply(exchange.answer.metric_server, static_cast<unsigned>(reply.status),
                     std::chrono::steady_clock::now() - request_started_);
  lowest().expires_after(kWriteTimeout);
  auto [ec, n] = co_await http::async_write(stream_, res, as_tuple(use_awaitable));
  lowest().expires_never();
  co_return !ec && exchange.keep_alive;
}

}  // namespace mcpgate::gateway::transport
