#pragma once

// The transport's member functions: Writing an answer as an SSE stream.
// Apart so that each TLS piece compiles in a file of its own (connection_impl.h).

#include "gateway/http/connection_impl.h"

namespace mcpgate::gateway::transport {

// Sends the mailbox's messages as SSE events until it finishes or the
// client goes away.
template <typename Stream>
awaitable<bool> Connection<Stream>::streamEvents(const Exchange& exchange, EventStream& stream) {
  http::response<http::empty_body> res{http::status::ok, exchange.version};
  res.set(http::field::server, "mcpgate");
  res.set(http::field::content_type, "text/event-stream");
  res.set(http::field::cache_control, "no-cache");
  if (!stream.session_id.empty()) res.set("Mcp-Session-Id", stream.session_id);
  res.keep_alive(exchange.keep_alive);
  res.chunked(true);
  http::response_serializer<http::empty_body> serializer{res};
  lowest().expires_after(kWriteTimeout);
  metrics::httpReply(exchange.answer.metric_server, 200,
                     std::chrono::steady_clock::now() - request_started_);
  auto [ec, n] = co_await http::async_write_header(stream_, serializer, as_tuple(use_awaitable));
  Mailbox::Batch& batch = stream.first;
  std::string events;
  while (!ec) {
    events.clear();
    for (const auto& m : batch.messages) {
      if (m.empty()) {
        events += ": keepalive\n\n";
      } else {
        events += "event: message\ndata: ";
        events += m;
        events += "\n\n";
      }
    }
    if (!events.empty()) {
      lowest().expires_after(kWriteTimeout);
      std::tie(ec, n) = co_await asio::async_write(stream_, http::make_chunk(asio::buffer(events)),
                                                   as_tuple(use_awaitable));
      if (ec) break;
    }
    if (batch.finished) {
      lowest().expires_after(kWriteTimeout);
      std::tie(ec, n) =
          co_await asio::async_write(stream_, http::make_chunk_last(), as_tuple(use_awaitable));
      lowest().expires_never();
      co_return !ec && exchange.keep_alive;
    }
    lowest().expires_never();
    batch = co_await stream.mailbox->next();
  }
  stream.mailbox->abandon();
  co_return false;
}

}  // namespace mcpgate::gateway::transport
