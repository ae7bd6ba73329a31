#include "gateway/cli/stdio_modern.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "gateway/mcp/jsonrpc.h"
#include "gateway/modern/front.h"
#include "gateway/session/modern_flow.h"

// g++ 12 misreads Asio's coroutine frame allocator as a mismatched new/delete pair (as in
// session/aggregate.cc).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace mcpgate::gateway {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

// Whose lane it is, in a requestState's claims: the one client of this process.
constexpr std::string_view kIdentity = "stdio";

using Readied = std::expected<std::shared_ptr<Lane>, std::string>;

asio::awaitable<void> adoptInto(std::promise<Readied>& readied, std::shared_ptr<Session> session,
                                const config::ServerConfig& server) {
  readied.set_value(
      co_await LanePool::instance().adopt(std::move(session), server, std::string(kIdentity)));
}

}  // namespace

StdioModern::StdioModern(asio::io_context& io, std::shared_ptr<const CurrentGeneration> current,
                         const config::ServerConfig& server, std::shared_ptr<Mailbox> out)
    : io_(io), current_(std::move(current)), server_(server), out_(std::move(out)) {}

const Readied& StdioModern::lane() {
  if (!lane_) {
    std::promise<Readied> readied;
    auto future = readied.get_future();
    asio::co_spawn(io_, adoptInto(readied, session_, server_), asio::detached);
    lane_ = future.get();  // the reader waits: nothing is served before the era is known
  }
  return *lane_;
}

void StdioModern::fromClient(mcp::Message message) {
  active_ = true;
  if (message.isRequest()) {
    if (auto checked = modern::checkEnvelope(message.value); !checked) {
      out_->push(modern::errorBody(checked.error(), message.id));
      return;
    }
    const Readied& ready = lane();
    if (!ready) {
      out_->push(jsonrpc::errorResponse(
          message.id, jsonrpc::kUpstreamError,
          "cannot serve '" + server_.name + "' to a modern client: " + ready.error(),
          json{{"gateway", "mcpgate"}, {"reason", "lane_failed"}}));
      return;
    }
    begin();
    asio::co_spawn(io_, serve(std::move(message), *ready), asio::detached);
    return;
  }
  // A modern client cancels a request with notifications/cancelled on stdio
  // (on HTTP by closing its stream): the same here, the relay tells the server.
  if (message.isNotification() && message.method == "notifications/cancelled" &&
      message.value["params"].is_object()) {
    const std::string key =
        jsonrpc::idKey(message.value["params"].value("requestId", json(nullptr)));
    std::shared_ptr<Mailbox> stream;
    {
      std::lock_guard lock(mu_);
      if (auto it = in_flight_.find(key); it != in_flight_.end()) stream = it->second.lock();
    }
    if (stream) {
      stream->abandon();
      stream->finish();
    }
  }
  // Nothing else a modern client sends has anywhere to go: its answers to a
  // server's requests come back as inputResponses in a retry.
}

asio::awaitable<void> StdioModern::serve(mcp::Message message, std::shared_ptr<Lane> lane) {
  const std::string key = message.id_key;
  auto stream = std::make_shared<Mailbox>(io_.get_executor(), true, 1);
  {
    std::lock_guard lock(mu_);
    in_flight_[key] = stream;
  }
  ModernRequest request{current_->get(), &server_, {}, "", std::string(kIdentity), true,
                        std::move(lane), nullptr};
  std::optional<ModernReply> now =
      co_await serveModern(std::move(request), std::move(message), stream);
  if (now) {
    out_->push(std::move(now->body));
  } else {
    for (;;) {
      Mailbox::Batch batch = co_await stream->next();
      for (auto& text : batch.messages) {
        if (!text.empty()) out_->push(std::move(text));  // keepalives mean nothing on a pipe
      }
      if (batch.finished) break;
    }
  }
  {
    std::lock_guard lock(mu_);
    if (auto it = in_flight_.find(key); it != in_flight_.end() && it->second.lock() == stream) {
      in_flight_.erase(it);
    }
  }
  end();
}

void StdioModern::begin() { ++writing_; }

void StdioModern::end() {
  if (--writing_ == 0 && closing_) out_->finish();
}

void StdioModern::sessionClosed() {
  closing_ = true;
  if (writing_ == 0) out_->finish();
}

}  // namespace mcpgate::gateway
