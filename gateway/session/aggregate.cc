#include "gateway/session/aggregate.h"

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "config/units.h"
#include "gateway/mcp/jsonrpc.h"
#include "gateway/mcp/message.h"
#include "gateway/observe/log.h"
#include "gateway/session/session.h"

// g++ 12 misreads Asio's coroutine frame allocator (awaitable_frame_base's
// own operator new and delete) in large coroutines as a mismatched pair.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace mcpgate::gateway {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t kBacklogLimit = 1000;
// Backpressure: how often a full client stream is looked at again.
constexpr auto kClientPoll = std::chrono::milliseconds(20);
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
// A server request relayed to the client gets an id the aggregate can route
// the answer back by: "mcpgate:<server>:<the server's id as JSON>".
constexpr std::string_view kRelayedIdPrefix = "mcpgate:";
constexpr std::string_view kOwnIdPrefix = "mcpgate-aggregate-";

json errorData(std::string_view reason, const std::string& server = {}) {
  json data = {{"gateway", "mcpgate"}, {"reason", reason}};
  if (!server.empty()) data["server"] = server;
  return data;
}

// The value jsonrpc::errorResponse writes as text.
json errorOf(const json& id, int code, const std::string& message, const json& data) {
  return {{"jsonrpc", "2.0"},
          {"id", id},
          {"error", {{"code", code}, {"message", message}, {"data", data}}}};
}

// A request of the gateway's own (initialize, a list, a notification) as a
// message: built as a value, its facts read from it.
mcp::Message own(json value) { return mcp::Message::of(std::move(value), Direction::kToServer); }

bool isRequest(const json& m) { return jsonrpc::classify(m) == jsonrpc::Kind::kRequest; }

}  // namespace

const std::string AggregateSession::kNoServer;

AggregateSession::AggregateSession(std::string id, std::string client, asio::any_io_executor strand,
                                   std::shared_ptr<const Generation> generation,
                                   std::vector<std::string> servers, Hooks hooks)
    : ClientSession(std::move(id), std::move(client)),
      strand_(strand),
      generation_(std::move(generation)),
      servers_(std::move(servers)),
      separator_(generation_->config->aggregate.separator),
      hooks_(std::move(hooks)),
      timer_(strand),
      last_activity_(Clock::now()) {}

void AggregateSession::start() { scheduleTick(); }

ClientSession::Accepted AggregateSession::fromClient(std::vector<mcp::Message> messages,
                                                     const std::shared_ptr<Mailbox>& mailbox) {
  if (closed_) return Accepted::kClosed;
  used_ = Clock::now();
  for (mcp::Message& message : messages) {
    if (message.isRequest()) ++requests_open_;
    // The coroutine holds the session: a close meanwhile must not free it under it.
    asio::co_spawn(
        strand_,
        [self = shared_from_this(), m = std::move(message), mailbox]() mutable {
          return self->handle(std::move(m), mailbox);
        },
        asio::detached);
  }
  return Accepted::kOk;
}

ClientSession::StreamResult AggregateSession::openStream(const std::shared_ptr<Mailbox>& mailbox) {
  if (closed_) return StreamResult::kClosed;
  std::lock_guard lock(stream_mu_);
  if (stream_ && !stream_->abandoned()) return StreamResult::kConflict;
  stream_ = mailbox;
  while (!backlog_.empty()) {
    mailbox->push(std::move(backlog_.front()));
    backlog_.pop_front();
  }
  backlog_bytes_ = 0;
  return StreamResult::kOk;
}

std::optional<std::chrono::steady_clock::time_point> AggregateSession::idleSince() const {
  if (requests_open_ > 0) return std::nullopt;
  return used_.load();
}

void AggregateSession::close(const std::string& reason) {
  if (closed_.exchange(true)) return;
  {
    std::lock_guard lock(stream_mu_);
    close_reason_ = reason;
  }
  log::info("session closed", {{"session", id_}, {"endpoint", "/mcp"}, {"reason", reason}});
  if (hooks_.on_closed) hooks_.on_closed(id_);
  asio::post(strand_, [self = shared_from_this(), reason] {
    self->timer_.cancel();
    for (auto& [name, inner] : self->inners_) {
      if (inner.session) inner.session->close(reason);
    }
    self->inners_.clear();
    std::lock_guard lock(self->stream_mu_);
    if (self->stream_) self->stream_->finish();
    self->stream_.reset();
  });
}

std::string AggregateSession::closeReason() const {
  std::lock_guard lock(stream_mu_);
  return close_reason_;
}

awaitable<void> AggregateSession::handle(mcp::Message message, std::shared_ptr<Mailbox> out) {
  last_activity_ = Clock::now();
  switch (message.kind) {
    case jsonrpc::Kind::kRequest: {
      const json id = message.id;
      json response = co_await answer(std::move(message), out);
      if (!response.is_null()) {
        response["id"] = id;
        std::string text = jsonrpc::serialize(response);
        out->pushFinal(std::move(text), &response);
      }
      used_ = Clock::now();
      --requests_open_;
      break;
    }
    case jsonrpc::Kind::kNotification: {
      const std::string& method = message.method;
      if (method == "notifications/initialized") break;  // each server had its own
      if (method == "notifications/cancelled") {
        auto params = message.value.find("params");
        if (params != message.value.end() && params->is_object() && params->contains("requestId")) {
          auto it = in_flight_.find(jsonrpc::idKey((*params)["requestId"]));
          auto inner = it == in_flight_.end() ? inners_.end() : inners_.find(it->second);
          if (inner != inners_.end() && inner->second.session) {
            std::vector<mcp::Message> one;
            one.push_back(std::move(message));
            (void)inner->second.session->fromClient(std::move(one), nullptr);
          }
        }
        break;
      }
      toEveryServer(message);
      break;
    }
    case jsonrpc::Kind::kResponse:
      fromClientResponse(std::move(message));
      break;
    case jsonrpc::Kind::kInvalid:
      break;
  }
  last_activity_ = Clock::now();
}

// The response to one client request, with any id (handle() sets the
// client's); null when route() already answered through `out`.
awaitable<json> AggregateSession::answer(mcp::Message message, std::shared_ptr<Mailbox> out) {
  json& request = message.value;
  const std::string method = message.method;
  const json params = request.value("params", json::object());
  const json id = message.id;
  if (method == "initialize") {
    initialize_params_ = params;
    std::string version = params.value("protocolVersion", "");
    if (!jsonrpc::isSupportedProtocolVersion(version)) version = "2025-11-25";
    batches_allowed_ = version == "2025-03-26";
    json capabilities = {{"tools", {{"listChanged", true}}},
                         {"prompts", {{"listChanged", true}}},
                         {"resources", {{"listChanged", true}}},
                         {"logging", json::object()}};
    co_return json{{"jsonrpc", "2.0"},
                   {"result",
                    {{"protocolVersion", version},
                     {"capabilities", capabilities},
                     {"serverInfo", {{"name", "mcpgate"}, {"version", "aggregate"}}},
                     {"instructions",
                      "Tools, prompts and resources of several MCP servers; "
                      "names are prefixed with the server's name and '" +
                          separator_ + "'."}}}};
  }
  if (method == "ping") co_return json{{"jsonrpc", "2.0"}, {"result", json::object()}};
  for (const ListKind& kind : kLists) {
    if (method == kind.method) {
      const std::string key(kind.key);
      json listed = co_await listAll(method, key);
      co_return json{{"jsonrpc", "2.0"}, {"result", std::move(listed)}};
    }
  }
  if (method == "tools/call" || method == "prompts/get") {
    const std::string name = params.is_object() ? params.value("name", "") : "";
    auto target = targetOf(name);
    if (!target) co_return errorOf(id, kInvalidParams, target.error(), errorData("unknown_name"));
    request["params"]["name"] = target->name;
    if (message.isRequest() && method == "tools/call") message.tool = target->name;
    message.text.clear();  // changed: sent serialised
    co_return co_await route(target->server, std::move(message), out);
  }
  if (method == "resources/read" || method == "resources/subscribe" ||
      method == "resources/unsubscribe" || method == "completion/complete") {
    std::string uri = params.is_object() ? params.value("uri", "") : "";
    if (method == "completion/complete" && params.is_object() && params.contains("ref") &&
        params["ref"].is_object()) {
      const json& ref = params["ref"];
      if (ref.value("type", "") == "ref/prompt") {
        auto target = targetOf(ref.value("name", ""));
        if (!target) {
          co_return errorOf(id, kInvalidParams, target.error(), errorData("unknown_name"));
        }
        request["params"]["ref"]["name"] = target->name;
        message.text.clear();  // changed: sent serialised
        co_return co_await route(target->server, std::move(message), out);
      }
      uri = ref.value("uri", "");
    }
    auto it = resources_.find(uri);
    if (it == resources_.end()) {
      // Not listed (yet): a template's URI; find the server whose template
      // prefix it starts with.
      for (const auto& [known, server] : resources_) {
        const std::string prefix = known.substr(0, known.find('{'));
        if (known.find('{') != std::string::npos && !prefix.empty() && uri.starts_with(prefix)) {
          it = resources_.find(known);
          break;
        }
      }
    }
    if (it == resources_.end()) {
      co_return errorOf(
          id, kInvalidParams,
          "no server of this endpoint has listed the resource '" + uri + "'; list resources first",
          errorData("unknown_resource"));
    }
    co_return co_await route(it->second, std::move(message), out);
  }
  if (method == "logging/setLevel") {
    for (const std::string& server : servers_) {
      auto it = inners_.find(server);
      if (it == inners_.end() || !it->second.session || it->second.starting) continue;
      const std::shared_ptr<Session> session = it->second.session;
      json copy = request;
      (void)co_await ask(session, std::move(copy));
    }
    co_return json{{"jsonrpc", "2.0"}, {"result", json::object()}};
  }
  co_return errorOf(id, kMethodNotFound,
                    "method '" + method +
                        "' is not supported on the aggregate endpoint /mcp; use "
                        "/mcp/<server>",
                    errorData("method_not_found"));
}

// A client request for one server: its messages (progress, the server's own
// requests) go to the client as they come, its response is returned.
awaitable<json> AggregateSession::route(const std::string& server, mcp::Message request,
                                        std::shared_ptr<Mailbox> out) {
  const json id = request.id;
  auto session = co_await inner(server);
  if (!session) {
    co_return errorOf(id, jsonrpc::kUpstreamError,
                      "cannot start MCP server '" + server + "': " + session.error(),
                      errorData("spawn_failed", server));
  }
  const std::string key = request.id_key;
  in_flight_[key] = server;
  auto mailbox = std::make_shared<Mailbox>(strand_, out && out->streaming(), 1);
  std::vector<mcp::Message> one;
  one.push_back(std::move(request));
  json response;
  if ((*session)->fromClient(std::move(one), mailbox) == ClientSession::Accepted::kClosed) {
    response = errorOf(id, jsonrpc::kUpstreamError,
                       "MCP server '" + server + "' ended; call again to restart it",
                       errorData("session_closed", server));
  }
  while (response.is_null()) {
    if (out && !co_await clientKeepsUp(*out)) {
      // The client does not read this request's stream: it ends with the
      // error, and what the server still sends for it is dropped.
      response = errorOf(id, jsonrpc::kUpstreamError, stalledReason(),
                         errorData("stream_overflow", server));
      out->overflow({response.dump(-1, ' ', false, json::error_handler_t::replace)});
      mailbox->abandon();
      static log::Limiter limiter;
      limiter.warn("client stream ended: the client does not read it",
                   {{"server", server}, {"session", id_}, {"endpoint", "/mcp"}});
      break;
    }
    Mailbox::Batch batch = co_await mailbox->next();
    for (std::string& line : batch.messages) {
      if (line.empty()) {
        if (out) out->pushKeepalive();
        continue;
      }
      std::optional<json> message = readLine(line);
      if (!message) continue;
      const jsonrpc::Kind kind = jsonrpc::classify(*message);
      if (kind == jsonrpc::Kind::kResponse && (*message)["id"] == id) {
        response = std::move(*message);
      } else if (out) {
        if (kind == jsonrpc::Kind::kRequest) {
          (*message)["id"] =
              std::string(kRelayedIdPrefix) + server + ":" + jsonrpc::idKey((*message)["id"]);
          out->push(jsonrpc::serialize(*message));
        } else {
          out->push(std::move(line));  // unchanged: as its session sent it
        }
      }
    }
    if (batch.finished && response.is_null()) {
      response = errorOf(id, jsonrpc::kUpstreamError, "MCP server '" + server + "' ended",
                         errorData("session_closed", server));
    }
  }
  in_flight_.erase(key);
  // The server's answer goes out unchanged: DLP and policy ran in its session.
  co_return response;
}

awaitable<std::expected<std::shared_ptr<Session>, std::string>> AggregateSession::inner(
    const std::string& server) {
  // Checked against the config of now, not of initialize: a reload may have
  // removed the server or taken it from this client.
  const std::shared_ptr<const Generation> now = hooks_.current();
  auto config_it = now->config->servers.find(server);
  if (config_it == now->config->servers.end()) {
    co_return std::unexpected("server '" + server + "' is no longer in the config");
  }
  if (now->authenticator && !now->authenticator->mayUse(client_, server)) {
    co_return std::unexpected("client '" + client_ + "' may no longer use server '" + server + "'");
  }
  for (;;) {
    Inner& slot = inners_[server];
    if (slot.session && !slot.starting) co_return slot.session;
    if (!slot.starting) break;
    // Another request is starting it: wait for that.
    asio::steady_timer wait(strand_, std::chrono::milliseconds(5));
    co_await wait.async_wait(use_awaitable);
  }
  if (closed_) co_return std::unexpected(std::string("the session is closed"));
  inners_[server].starting = true;
  auto created = hooks_.create_inner(now, config_it->second, client_);
  if (!created) {
    inners_[server].starting = false;
    co_return std::unexpected(created.error());
  }
  std::shared_ptr<Session> session = *created;
  json init = {{"jsonrpc", "2.0"}, {"method", "initialize"}, {"params", initialize_params_}};
  json response = co_await ask(session, std::move(init));
  if (!response.contains("result")) {
    inners_[server].starting = false;
    session->close("the server refused initialize");
    co_return std::unexpected("initialize failed: " + response.value("error", json()).dump());
  }
  if (closed_) {
    // Closed while the server started: close() saw no session to end.
    inners_.erase(server);
    session->close("the aggregate session ended");
    co_return std::unexpected(std::string("the session is closed"));
  }
  std::vector<mcp::Message> initialized;
  initialized.push_back(own({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}));
  (void)session->fromClient(std::move(initialized), nullptr);
  auto stream = std::make_shared<Mailbox>(strand_, true, 0);
  (void)session->openStream(stream);
  asio::co_spawn(
      strand_,
      [self = shared_from_this(), server, stream]() { return self->relayStream(server, stream); },
      asio::detached);
  inners_[server] = Inner{session, false};
  co_return session;
}

awaitable<json> AggregateSession::ask(const std::shared_ptr<Session>& session, json request) {
  const json id = std::string(kOwnIdPrefix) + std::to_string(next_id_++);
  request["id"] = id;
  auto mailbox = std::make_shared<Mailbox>(strand_, false, 1);
  std::vector<mcp::Message> one;
  one.push_back(own(std::move(request)));
  if (session->fromClient(std::move(one), mailbox) == ClientSession::Accepted::kClosed) {
    co_return errorOf(id, jsonrpc::kUpstreamError, "the server's session ended",
                      errorData("session_closed", session->server()));
  }
  for (;;) {
    Mailbox::Batch batch = co_await mailbox->next();
    for (const std::string& line : batch.messages) {
      std::optional<json> message = readLine(line);
      if (message && jsonrpc::classify(*message) == jsonrpc::Kind::kResponse &&
          (*message)["id"] == id) {
        co_return std::move(*message);
      }
    }
    if (batch.finished) {
      co_return errorOf(id, jsonrpc::kUpstreamError, "the server's session ended",
                        errorData("session_closed", session->server()));
    }
  }
}

// The server's GET stream, into the client's: list changes, logging, and its
// requests outside any client request.
awaitable<void> AggregateSession::relayStream(std::string server, std::shared_ptr<Mailbox> from) {
  for (;;) {
    std::shared_ptr<Mailbox> client;
    {
      std::lock_guard lock(stream_mu_);
      client = stream_;
    }
    if (client && !co_await clientKeepsUp(*client)) {
      std::lock_guard lock(stream_mu_);
      if (stream_ == client) {
        stream_->overflow({});
        stream_.reset();
        static log::Limiter limiter;
        limiter.warn("client stream ended: the client does not read it",
                     {{"session", id_}, {"endpoint", "/mcp"}, {"reason", stalledReason()}});
      }
    }
    Mailbox::Batch batch = co_await from->next();
    for (std::string& line : batch.messages) {
      if (line.empty()) continue;
      std::optional<json> message = readLine(line);
      if (!message) continue;
      if (isRequest(*message)) {
        (*message)["id"] =
            std::string(kRelayedIdPrefix) + server + ":" + jsonrpc::idKey((*message)["id"]);
        toStream(jsonrpc::serialize(*message));
      } else {
        toStream(std::move(line));  // unchanged: as its session sent it
      }
    }
    if (batch.finished) {
      // The server's session ended (idle, crash, reload): forget it, so the
      // next use starts it again.
      auto it = inners_.find(server);
      if (it != inners_.end() && !it->second.starting) inners_.erase(it);
      co_return;
    }
  }
}

void AggregateSession::toStream(std::string message) {
  std::lock_guard lock(stream_mu_);
  if (stream_ && !stream_->abandoned()) {
    stream_->push(std::move(message));
    return;
  }
  // Bounded in count and in bytes (a stream's budget); the oldest go first.
  while (!backlog_.empty() &&
         (backlog_.size() >= kBacklogLimit ||
          backlog_bytes_ + message.size() > generation_->config->limits.max_stream_queue_bytes)) {
    backlog_bytes_ -= backlog_.front().size();
    backlog_.pop_front();
  }
  backlog_bytes_ += message.size();
  backlog_.push_back(std::move(message));
}

awaitable<bool> AggregateSession::clientKeepsUp(const Mailbox& out) {
  const config::LimitsConfig& limits = generation_->config->limits;
  asio::steady_timer wait(strand_);
  while (!closed_ && !out.abandoned() && out.queuedBytes() > limits.max_stream_queue_bytes) {
    if (Clock::now() - out.lastTaken() >= limits.stream_stall_timeout) co_return false;
    wait.expires_after(kClientPoll);
    co_await wait.async_wait(asio::as_tuple(use_awaitable));
  }
  co_return true;
}

std::string AggregateSession::stalledReason() const {
  const config::LimitsConfig& limits = generation_->config->limits;
  return "the client did not read its stream: more than " +
         config::formatSize(limits.max_stream_queue_bytes) + " queued and nothing taken for " +
         config::formatDuration(limits.stream_stall_timeout) +
         " (limits.max_stream_queue_bytes, limits.stream_stall_timeout)";
}

// The client's answer to a request a server made through this endpoint.
void AggregateSession::fromClientResponse(mcp::Message message) {
  const json& id = message.id;
  if (!id.is_string() || !id.get_ref<const std::string&>().starts_with(kRelayedIdPrefix)) return;
  const std::string text = id.get<std::string>().substr(kRelayedIdPrefix.size());
  const auto colon = text.find(':');
  if (colon == std::string::npos) return;
  auto inner = inners_.find(text.substr(0, colon));
  if (inner == inners_.end() || !inner->second.session) return;
  // The server's id, as JSON text (a string or a number): read as the one
  // element of an array, since the reader takes only messages and batches.
  auto original = jsonrpc::parse("[" + text.substr(colon + 1) + "]", 2);
  if (!original || original->size() != 1) return;
  json forwarded = std::move(message.value);
  forwarded["id"] = std::move(original->front());
  std::vector<mcp::Message> one;
  one.push_back(mcp::Message::of(std::move(forwarded), Direction::kToServer));
  (void)inner->second.session->fromClient(std::move(one), nullptr);
}

void AggregateSession::toEveryServer(const mcp::Message& notification) {
  for (auto& [name, inner] : inners_) {
    if (inner.session && !inner.starting) {
      std::vector<mcp::Message> one{notification};
      (void)inner.session->fromClient(std::move(one), nullptr);
    }
  }
}

std::optional<json> AggregateSession::readLine(std::string_view line) const {
  auto parsed = jsonrpc::parse(line, generation_->config->limits.max_json_depth);
  if (!parsed) return std::nullopt;
  return std::move(*parsed);
}

void AggregateSession::scheduleTick() {
  const auto idle = generation_->config->session.idle_timeout;
  timer_.expires_after(std::clamp<std::chrono::milliseconds>(
      idle / 4, std::chrono::milliseconds(50), std::chrono::milliseconds(1000)));
  timer_.async_wait([weak = weak_from_this(), idle](boost::system::error_code ec) {
    if (ec) return;
    auto self = weak.lock();
    if (!self) return;
    if (self->in_flight_.empty() && Clock::now() - self->last_activity_ >= idle) {
      self->close("idle for longer than the idle timeout");
      return;
    }
    self->scheduleTick();
  });
}

}  // namespace mcpgate::gateway
