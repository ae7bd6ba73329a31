#pragma once

// The transport's member functions: Writing an answer as an SSE stream.
// Apart so that each TLS piece compiles in a file of its own (connection_impl.h).

#include <algorithm>
#include <array>
#include <charconv>
#include <string_view>

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
  // Chunks are framed here (size in hex, CRLF, data, CRLF; the last one "0" CRLF CRLF), as
  // Beast's make_chunk would, but with one buffer type for every write: each buffer type
  // instantiates Beast's TLS write templates once more, which are slow to compile.
  using Chunk = std::array<asio::const_buffer, 3>;
  static constexpr std::string_view kCrLf = "\r\n";
  static constexpr std::string_view kLastChunk = "0\r\n\r\n";
  char size[24];
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
      char* end = std::to_chars(size, size + sizeof size - 2, events.size(), 16).ptr;
      end = std::copy_n(kCrLf.data(), kCrLf.size(), end);
      const Chunk chunk{asio::buffer(size, static_cast<std::size_t>(end - size)),
                        asio::buffer(events), asio::buffer(kCrLf)};
      std::tie(ec, n) = co_await asio::async_write(stream_, chunk, as_tuple(use_awaitable));
      if (ec) break;
    }
    if (batch.finished) {
      lowest().expires_after(kWriteTimeout);
      const Chunk last{asio::buffer(kLastChunk), asio::const_buffer(), asio::const_buffer()};
      std::tie(ec, n) = co_await asio::async_write(stream_, last, as_tuple(use_awaitable));
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
