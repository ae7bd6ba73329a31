#pragma once

// The transport's member functions: Reading: the TLS handshake, each request read and handed to the
// endpoint, the shutdown. Apart so that each TLS piece compiles in a file of its own
// (connection_impl.h).

#include "gateway/http/connection_impl.h"

namespace mcpgate::gateway::transport {

template <typename Stream>
awaitable<void> Connection<Stream>::run() {
  if constexpr (kTls) {
    // A failed handshake (a plain-HTTP client, a scanner, an old TLS
    // version) ends this connection only; the socket closes with it.
    lowest().expires_after(kHandshakeTimeout);
    auto [ec] = co_await stream_.async_handshake(Stream::server, as_tuple(use_awaitable));
    if (ec) {
      log::debug("TLS handshake failed", {{"error", ec.message()}});
      co_return;
    }
  }
  beast::flat_buffer buffer;
  // Beast reads at most the buffer's free capacity (512 bytes when it is
  // empty), and a consumed buffer never grows: without this, every request
  // took a read per 512 bytes.
  buffer.reserve(16 * 1024);
  for (;;) {
    Exchange exchange = co_await readAndAnswer(buffer);
    if (exchange.close_quietly) break;
    const bool again = co_await send(exchange);
    stopWatch();
    if (!again) break;
  }
  if constexpr (kTls) {
    lowest().expires_after(kTlsShutdownTimeout);
    auto [ec] = co_await stream_.async_shutdown(as_tuple(use_awaitable));
    (void)ec;  // the peer may already be gone; the socket closes either way
  } else {
    beast::error_code ignored;
    lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
  }
}

template <typename Stream>
awaitable<Exchange> Connection<Stream>::readAndAnswer(beast::flat_buffer& buffer) {
  // Taken before reading, so the body limit and the request agree.
  const std::size_t body_limit = current_->get()->config->limits.max_body_bytes;
  http::request_parser<http::string_body> parser;
  parser.body_limit(body_limit);
  lowest().expires_after(kIdleConnectionTimeout);
  // The header section is looked at raw first: Beast joins folded lines.
  auto head = co_await readHeaderSection(buffer);
  if (head.first) co_return Exchange{Answer{}, 11, /*keep_alive=*/false, /*close_quietly=*/true};
  if (head.second) {
    co_return Exchange{
        {refuse(HttpStatus::bad_request, jsonrpc::kInvalidRequest, *head.second, "bad_http"), {}},
        11,
        /*keep_alive=*/false};
  }
  auto [ec, n] = co_await http::async_read(stream_, buffer, parser, as_tuple(use_awaitable));
  request_started_ = std::chrono::steady_clock::now();
  if (ec == http::error::body_limit) {
    co_return Exchange{
        {refuse(HttpStatus::payload_too_large, jsonrpc::kInvalidRequest,
                "request body exceeds the limit of " + std::to_string(body_limit) + " bytes",
                "max_body_bytes"),
         {}},
        parser.get().version(),
        /*keep_alive=*/false};
  }
  if (ec == http::error::end_of_stream || ec == asio::error::eof || ec == beast::error::timeout ||
      ec == asio::error::connection_reset || ec == asio::ssl::error::stream_truncated) {
    co_return Exchange{Answer{}, 11, /*keep_alive=*/false, /*close_quietly=*/true};
  }
  if (ec) {
    co_return Exchange{{refuse(HttpStatus::bad_request, jsonrpc::kInvalidRequest,
                               "malformed HTTP request: " + ec.message(), "bad_http"),
                        {}},
                       11,
                       /*keep_alive=*/false};
  }
  lowest().expires_never();
  Request req = parser.release();
  if (auto problem = framingProblem(req.count(http::field::transfer_encoding),
                                    view(req[http::field::transfer_encoding]),
                                    req.count(http::field::host), req.version())) {
    co_return Exchange{
        {refuse(HttpStatus::bad_request, jsonrpc::kInvalidRequest, *problem, "bad_http"), {}},
        req.version(),
        /*keep_alive=*/false};
  }
  HttpRequest in = endpointRequest(req);
  in.peer = this;
  Answer answer = co_await endpoint_.handle(in);
  const auto* reply = std::get_if<Reply>(&answer.plan);
  const bool keep_alive = req.keep_alive() && (reply == nullptr || !reply->close);
  co_return Exchange{std::move(answer), req.version(), keep_alive};
}

template <typename Stream>
awaitable<std::pair<beast::error_code, std::optional<std::string>>>
Connection<Stream>::readHeaderSection(beast::flat_buffer& buffer) {
  constexpr std::size_t kMaxHeaderBytes = 16 * 1024;  // above Beast's 8 KiB header limit
  for (;;) {
    const std::string_view data(static_cast<const char*>(buffer.data().data()), buffer.size());
    const std::size_t end = headerSectionEnd(data);
    if (end != std::string_view::npos) {
      co_return std::pair{beast::error_code{}, foldedHeaderProblem(data.substr(0, end))};
    }
    if (data.size() > kMaxHeaderBytes) co_return std::pair{beast::error_code{}, std::nullopt};
    auto [ec, n] =
        co_await stream_.async_read_some(buffer.prepare(16 * 1024), as_tuple(use_awaitable));
    if (ec) co_return std::pair{ec, std::nullopt};
    buffer.commit(n);
  }
}

}  // namespace mcpgate::gateway::transport
