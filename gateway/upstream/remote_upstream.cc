#include "gateway/upstream/remote_upstream.h"

#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "config/address.h"
#include "config/units.h"
#include "gateway/mcp/jsonrpc.h"
#include "gateway/mcp/message.h"
#include "gateway/observe/log.h"
#include "gateway/upstream/remote_connection.h"
#include "gateway/upstream/remote_outgoing.h"
#include "gateway/upstream/sse_parser.h"

namespace mcpgate::gateway {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using asio::as_tuple;
using asio::use_awaitable;
using nlohmann::json;
using tcp = asio::ip::tcp;
using remote::closeConnection;
using remote::Connection;
using remote::describe;
using remote::Failure;
using remote::Outgoing;

// Connections kept open for the next request. More are opened while more
// requests are in flight; past this many idle ones the extra are closed.
constexpr std::size_t kMaxIdleConnections = 4;
// A response's headers, and the body of an error status (read and dropped).
constexpr std::uint32_t kMaxHeaderBytes = 64 * 1024;
constexpr std::size_t kMaxErrorBodyBytes = 64 * 1024;
// After a GET stream ends, how long before it is opened again.
constexpr auto kStreamRetry = std::chrono::seconds(2);
constexpr auto kMaxDeleteWait = std::chrono::seconds(5);
// Messages a client may send before initialize is answered (see send()).
constexpr std::size_t kMaxHeldMessages = 256;
// Failure::reason of a modern request the client cancelled (nobody is told).
constexpr std::string_view kCancelled = "cancelled";

class RemoteUpstream final : public Upstream, public std::enable_shared_from_this<RemoteUpstream> {
 public:
  RemoteUpstream(asio::any_io_executor executor, const config::RemoteConfig& remote,
                 std::chrono::milliseconds request_timeout, Options options, Callbacks callbacks,
                 std::shared_ptr<ssl::context> tls)
      : executor_(std::move(executor)),
        remote_(remote),
        request_timeout_(request_timeout),
        options_(std::move(options)),
        callbacks_(std::move(callbacks)),
        tls_(std::move(tls)),
        origin_(std::string(remote.tls ? "https://" : "http://") +
                config::formatHostPort(remote.host, remote.port)) {
    const bool default_port = remote.port == (remote.tls ? 443 : 80);
    host_header_ =
        remote.host.find(':') != std::string::npos ? "[" + remote.host + "]" : remote.host;
    if (!default_port) host_header_ += ":" + std::to_string(remote.port);
  }

  void send(mcp::Message message) override {
    if (terminating_) return;
    Outgoing outgoing = describe(message);
    if (!outgoing.cancels.empty() && (outgoing.modern || open_.contains(outgoing.cancels))) {
      // A modern request is cancelled by closing its stream; a modern client's front sends
      // the gateway's own notifications/cancelled, without the envelope, for the same.
      cancel(outgoing.cancels);
      return;
    }
    if (initializing_ && !outgoing.modern) {
      // Until initialize is answered there is no session id or protocol
      // version to send; a client that does not wait (a stdio client piping
      // its first lines) would otherwise be refused.
      if (held_.size() >= kMaxHeldMessages) {
        // The remote is slow to answer initialize and the client does not
        // wait: refuse rather than buffer without end.
        outgoing.initialize = false;  // refusing this one must not end the session
        fail(outgoing, Failure{"too many messages sent before MCP server '" + options_.server +
                                   "' answered initialize",
                               "upstream_not_initialized"});
        return;
      }
      held_.push_back(std::move(message));
      return;
    }
    if (outgoing.initialize) initializing_ = true;
    if (outgoing.modern) outgoing.modern->params = remote::paramHeadersOf(message, tools_);
    asio::co_spawn(
        executor_,
        [self = shared_from_this(), body = std::move(message.wire()),
         outgoing = std::move(outgoing)]() mutable {
          return self->postMessage(std::move(body), std::move(outgoing));
        },
        asio::detached);
  }

  void terminate(std::string why) override {
    if (terminating_) return;
    terminating_ = true;
    reason_ = std::move(why);
    for (auto& connection : idle_) closeConnection(*connection);
    idle_.clear();
    for (Connection* connection : active_) closeConnection(*connection);
    asio::co_spawn(
        executor_, [self = shared_from_this()] { return self->finish(); }, asio::detached);
  }

 private:
  asio::awaitable<std::expected<std::unique_ptr<Connection>, Failure>> connect() {
    const std::string what = "cannot reach MCP server '" + options_.server + "' at " + origin_;
    auto connected = co_await remote::connect(executor_, remote_, tls_.get(), what, active_);
    co_return connected;
  }

  void prepare(http::request<http::string_body>& request,
               const Outgoing* outgoing = nullptr) const {
    request.version(11);
    request.target(remote_.target);
    request.set(http::field::host, host_header_);
    request.set(http::field::user_agent, "mcpgate");
    for (const auto& [name, value] : remote_.headers) request.set(name, value);
    if (outgoing != nullptr && outgoing->modern) {
      // No session: the message says all (remote_modern.h).
      request.set("MCP-Protocol-Version", outgoing->modern->protocol_version);
      request.set("Mcp-Method", outgoing->modern->method);
      if (outgoing->modern->name) request.set("Mcp-Name", *outgoing->modern->name);
      for (const auto& [name, value] : outgoing->modern->params)
        request.set("Mcp-Param-" + name, value);
      return;
    }
    if (!session_id_.empty()) request.set("Mcp-Session-Id", session_id_);
    if (!protocol_version_.empty()) request.set("MCP-Protocol-Version", protocol_version_);
  }

  asio::awaitable<void> postMessage(std::string body, Outgoing outgoing) {
    http::request<http::string_body> request;
    request.method(http::verb::post);
    prepare(request, &outgoing);
    request.set(http::field::accept, "application/json, text/event-stream");
    request.set(http::field::content_type, "application/json");
    request.body() = std::move(body);
    request.prepare_payload();
    bool answered = false;
    auto failure = co_await exchange(request, outgoing, answered);
    while (!failure && !answered && outgoing.request && outgoing.resume.pending() && !terminating_)
      failure = co_await resume(outgoing, answered);
    if (terminating_ || reported_) co_return;
    if (failure && failure->reason == kCancelled) co_return;  // nobody waits for it
    if (failure) {
      fail(outgoing, *failure);
    } else if (outgoing.request && !answered && !stream_open_) {
      // A 202, or a stream that ended before the answer. The spec lets a
      // server answer on the GET stream after a 202; without one, say so now
      // rather than leave the client waiting for the request timeout.
      fail(outgoing,
           Failure{"MCP server '" + options_.server + "' ended its response without answering",
                   "upstream_no_response"});
    } else if (outgoing.initialized && !stream_started_) {
      stream_started_ = true;
      asio::co_spawn(
          executor_, [self = shared_from_this()] { return self->listen(); }, asio::detached);
    }
    // What waited for initialize goes out now, with the session id and
    // protocol version (or, if initialize failed, is dropped with the session).
    if (outgoing.initialize) releaseHeld();
  }

  asio::awaitable<std::optional<Failure>> resume(const Outgoing& outgoing, bool& answered) {
    asio::steady_timer wait(executor_, outgoing.resume.delay());
    co_await wait.async_wait(as_tuple(use_awaitable));
    http::request<http::string_body> request{http::verb::get, remote_.target, 11};
    prepare(request);
    request.set(http::field::accept, "text/event-stream");
    request.set("Last-Event-ID", outgoing.resume.take());
    request.prepare_payload();
    co_return co_await exchange(request, outgoing, answered);
  }

  // On Streamable HTTP a modern request is cancelled by closing its stream
  // (streamable-http.mdx "Cancellation"); the notification is not posted.
  void cancel(const std::string& key) {
    auto it = open_.find(key);
    if (it == open_.end()) return;
    cancelled_.insert(key);
    closeConnection(*it->second);
  }

  void releaseHeld() {
    initializing_ = false;
    std::deque<mcp::Message> held = std::move(held_);
    held_.clear();
    while (!held.empty()) {
      send(std::move(held.front()));
      held.pop_front();
    }
  }

  void fail(const Outgoing& outgoing, const Failure& failure) {
    log::warn("remote server request failed", {{"server", options_.server},
                                               {"remote", origin_},
                                               {"method", outgoing.method},
                                               {"error", failure.message}});
    if (failure.status == 404 && !session_id_.empty()) {
      // The remote no longer knows the session: every later request would
      // fail the same way. The client must start a new one.
      session_id_.clear();
      terminate("lost its remote session (the remote answered 404 Not Found to its session id)");
      return;
    }
    if (!outgoing.request) return;
    json data = {{"gateway", "mcpgate"}, {"reason", failure.reason}, {"server", options_.server}};
    if (failure.status != 0) data["status"] = failure.status;
    deliver(mcp::Message::of(
        json{{"jsonrpc", "2.0"},
             {"id", outgoing.id},
             {"error",
              {{"code", jsonrpc::kUpstreamError}, {"message", failure.message}, {"data", data}}}},
        Direction::kToClient));
    if (outgoing.initialize && session_id_.empty()) {
      // A session that never started holds a slot of limits.max_sessions
      // for nothing: a client retrying against a remote that is down would
      // fill the table. The client gets its error first.
      terminate("could not be initialized: " + failure.message);
    }
  }

  void deliver(mcp::Message message) {
    if (reported_) return;
    callbacks_.on_message(std::move(message));
  }

  // One body (JSON or one SSE event): one message, or a batch of them,
  // parsed here once and handed on parsed. Returns whether it held the
  // answer to `outgoing`, or the parse error when it is not JSON-RPC text.
  std::expected<bool, jsonrpc::ParseError> deliverBody(std::string text, const Outgoing& outgoing) {
    auto body = mcp::parseBody(std::move(text), options_.max_json_depth, Direction::kToClient);
    if (!body) return std::unexpected(std::move(body.error()));
    bool answered = false;
    for (mcp::Message& message : body->messages) {
      answered = inspect(message, outgoing) || answered;
      deliver(std::move(message));
    }
    return answered;
  }

  void dropUnparsed(const jsonrpc::ParseError& error) const {
    // Never log the text: it may carry exactly what DLP exists to protect.
    log::warn("server sent a line that is not one JSON-RPC message; dropped",
              {{"server", options_.server},
               {"session", options_.session},
               {"error", error.message.substr(0, 200)}});
  }

  // Whether `message` answers `outgoing`; notes the negotiated protocol version, and
  // a modern tools/list's x-mcp-header annotations (Mcp-Param-* of later calls).
  bool inspect(const mcp::Message& message, const Outgoing& outgoing) {
    if (!remote::answers(message, outgoing)) return false;
    if (outgoing.initialize) {
      if (auto version = remote::negotiatedVersion(message))
        protocol_version_ = std::move(*version);
    }
    if (outgoing.modern && outgoing.method == "tools/list")
      remote::learnParamHeaders(message, tools_);
    return true;
  }

  // Sends `request` and hands each message of the answer to deliverBody.
  asio::awaitable<std::optional<Failure>> exchange(http::request<http::string_body>& request,
                                                   const Outgoing& outgoing, bool& answered) {
    for (int attempt = 0;; ++attempt) {
      std::unique_ptr<Connection> connection;
      if (!idle_.empty()) {
        connection = std::move(idle_.back());
        idle_.pop_back();
        connection->reused = true;
      } else {
        auto connected = co_await connect();
        if (!connected) co_return connected.error();
        connection = std::move(*connected);
      }
      if (terminating_) co_return std::nullopt;  // it ended while this connected
      active_.insert(connection.get());
      // A modern request is cancelled by closing its stream: findable by id.
      const std::string open_key =
          outgoing.modern && outgoing.request ? jsonrpc::idKey(outgoing.id) : std::string();
      if (!open_key.empty()) open_[open_key] = connection.get();
      bool keep_alive = false;
      std::optional<Failure> failure =
          co_await roundTripOn(*connection, request, outgoing, answered, keep_alive);
      active_.erase(connection.get());
      if (!open_key.empty()) {
        open_.erase(open_key);
        if (cancelled_.erase(open_key) > 0) co_return Failure{"cancelled", std::string(kCancelled)};
      }
      if (failure && failure->retry && connection->reused && attempt == 0 && !terminating_) {
        // The remote closed an idle connection (a keep-alive timeout, a
        // restart): the request never reached it. The other idle ones are
        // likely as stale; the retry takes a fresh one.
        for (auto& stale : idle_) closeConnection(*stale);
        idle_.clear();
        continue;
      }
      if (!failure && keep_alive && !terminating_ && idle_.size() < kMaxIdleConnections) {
        idle_.push_back(std::move(connection));
      }
      co_return failure;
    }
  }

  asio::awaitable<std::optional<Failure>> roundTripOn(Connection& connection,
                                                      http::request<http::string_body>& request,
                                                      const Outgoing& outgoing, bool& answered,
                                                      bool& keep_alive) {
    if (connection.tls) {
      co_return co_await roundTrip(*connection.tls, connection, request, outgoing, answered,
                                   keep_alive);
    }
    co_return co_await roundTrip(*connection.plain, connection, request, outgoing, answered,
                                 keep_alive);
  }

  template <class Stream>
  asio::awaitable<std::optional<Failure>> roundTrip(Stream& stream, Connection& connection,
                                                    http::request<http::string_body>& request,
                                                    const Outgoing& outgoing, bool& answered,
                                                    bool& keep_alive) {
    const std::string who = "MCP server '" + options_.server + "'";
    // A GET stream lives as long as the session, a modern subscriptions/listen as long as its
    // subscription; anything else (a resumed stream too) is bounded.
    if ((request.method() == http::verb::get && request.find("Last-Event-ID") == request.end()) ||
        (outgoing.modern && outgoing.modern->method == "subscriptions/listen")) {
      connection.lowest().expires_never();
    } else {
      connection.lowest().expires_after(request_timeout_);
    }
    auto [write_ec, written] = co_await http::async_write(stream, request, as_tuple(use_awaitable));
    (void)written;
    if (write_ec) {
      co_return Failure{"cannot send to " + who + " at " + origin_ + ": " + write_ec.message(),
                        "upstream_unreachable", 0, true};
    }
    http::response_parser<http::buffer_body> parser;
    parser.header_limit(kMaxHeaderBytes);
    parser.body_limit(boost::none);  // limited per message below
    auto [header_ec, header_bytes] = co_await http::async_read_header(
        stream, connection.buffer, parser, as_tuple(use_awaitable));
    (void)header_bytes;
    if (header_ec) {
      const bool closed = header_ec == http::error::end_of_stream ||
                          header_ec == asio::error::eof ||
                          header_ec == asio::error::connection_reset;
      if (header_ec.category() == asio::error::get_ssl_category()) {
        // TLS 1.3 sends the server's verdict on a client certificate after
        // the handshake: a refusal arrives here.
        co_return Failure{
            who + " at " + origin_ + " refused the TLS connection: " + header_ec.message(),
            "upstream_tls_failed"};
      }
      std::string why = header_ec == beast::error::timeout
                            ? "did not answer within " + config::formatDuration(request_timeout_)
                            : "connection failed before an answer: " + header_ec.message();
      co_return Failure{who + " " + why,
                        header_ec == beast::error::timeout ? "upstream_timeout" : "upstream_error",
                        0, closed};
    }
    auto& response = parser.get();
    const int status = static_cast<int>(response.result_int());
    const std::string content_type(response[http::field::content_type]);
    if (outgoing.initialize && status == 200) {
      std::string session(response["Mcp-Session-Id"]);
      if (!session.empty()) session_id_ = std::move(session);
    }

    using Body = remote::BodyKind;
    const auto phrase = response.reason();
    auto [kind, failure, limit] =
        remote::judgeAnswer(status, std::string_view(phrase.data(), phrase.size()), content_type,
                            who, options_.max_line_bytes, kMaxErrorBodyBytes);

    SseParser sse(options_.max_line_bytes);
    std::string body;
    std::size_t dropped = 0;
    std::array<char, 16384> chunk;
    while (!parser.is_done()) {
      response.body().data = chunk.data();
      response.body().size = chunk.size();
      // read_some: a stream's events are handed on as they arrive, not when
      // the chunk buffer is full.
      auto [read_ec, read_bytes] = co_await http::async_read_some(stream, connection.buffer, parser,
                                                                  as_tuple(use_awaitable));
      (void)read_bytes;
      if (read_ec == http::error::need_buffer) read_ec = {};
      const std::size_t got = chunk.size() - response.body().size;
      const std::string_view piece(chunk.data(), got);
      if (read_ec) {
        if (failure) break;
        std::string why =
            read_ec == beast::error::timeout
                ? "did not finish its answer within " + config::formatDuration(request_timeout_)
                : "connection failed during its answer: " + read_ec.message();
        co_return Failure{who + " " + why,
                          read_ec == beast::error::timeout ? "upstream_timeout" : "upstream_error"};
      }
      if (terminating_) co_return std::nullopt;
      bool fits = true;
      if (kind == Body::kSse) {
        fits = sse.feed(piece, [&](std::string event) {
          auto delivered = deliverBody(std::move(event), outgoing);
          if (!delivered) {
            dropUnparsed(delivered.error());
          } else {
            answered = *delivered || answered;
          }
        });
      } else if (kind == Body::kJson) {
        fits = body.size() + piece.size() <= limit;
        if (fits) body.append(piece);
      } else {
        dropped += piece.size();
        if (dropped > limit) break;               // not worth reading to the end; not kept alive
        if (outgoing.modern) body.append(piece);  // its error may be the answer
      }
      if (!fits) {
        // One message (a JSON answer or one event) over the limit; the
        // connection is dropped rather than read to its end.
        co_return Failure{who + " sent an answer larger than max_line_bytes (" +
                              std::to_string(options_.max_line_bytes) + " bytes)",
                          "upstream_too_large"};
      }
      // The clients do not take what is queued for them: the socket is not
      // read until they do, so the remote's writes wait, not the gateway's memory.
      if (kind == Body::kSse) {
        co_await waitWhileHeld(executor_, callbacks_.hold, [this] { return !terminating_; });
        if (terminating_) co_return std::nullopt;
      }
    }
    keep_alive = parser.is_done() && parser.keep_alive();
    if (kind == Body::kSse) outgoing.resume.noteStream(sse);
    if (failure && outgoing.modern && outgoing.request && dropped <= limit) {
      // A modern server's refusal (HeaderMismatch, -32022, ...) is the answer.
      if (auto answer = remote::modernErrorAnswer(status, body, outgoing.id)) {
        deliver(mcp::Message::of(std::move(*answer), Direction::kToClient));
        answered = true;
        co_return std::nullopt;
      }
    }
    if (failure) co_return failure;
    if (kind == Body::kJson) {
      auto delivered = deliverBody(std::move(body), outgoing);
      if (delivered) {
        answered = *delivered || answered;
      } else if (delivered.error().code == jsonrpc::kParseError) {
        co_return Failure{who + " answered with a body that is not valid JSON",
                          "upstream_bad_response", status};
      } else {
        dropUnparsed(delivered.error());  // valid JSON, nested deeper than allowed
      }
    }
    co_return std::nullopt;
  }

  // The GET stream: messages the remote sends outside any request
  // (list_changed, logging, its own requests). 405 means it has none.
  asio::awaitable<void> listen() {
    asio::steady_timer retry(executor_);
    while (!terminating_) {
      http::request<http::string_body> request;
      request.method(http::verb::get);
      prepare(request);
      request.set(http::field::accept, "text/event-stream");
      request.prepare_payload();
      const Outgoing none;
      bool answered = false;
      auto connected = co_await connect();
      if (!connected) {
        log::warn("remote server stream failed", {{"server", options_.server},
                                                  {"remote", origin_},
                                                  {"error", connected.error().message}});
      } else {
        std::unique_ptr<Connection> connection = std::move(*connected);
        active_.insert(connection.get());
        stream_open_ = true;
        bool keep_alive = false;
        std::optional<Failure> failure =
            co_await roundTripOn(*connection, request, none, answered, keep_alive);
        stream_open_ = false;
        active_.erase(connection.get());
        if (terminating_) co_return;
        if (failure && failure->status == 405) {
          log::debug("remote server offers no GET stream", {{"server", options_.server}});
          co_return;
        }
        if (failure && failure->status == 404) {
          fail(none, *failure);
          co_return;
        }
        if (failure) {
          log::warn(
              "remote server stream failed",
              {{"server", options_.server}, {"remote", origin_}, {"error", failure->message}});
          // Any answer but a stream means there is none to wait for.
          if (failure->status != 0) co_return;
        }
      }
      retry.expires_after(kStreamRetry);
      auto [ec] = co_await retry.async_wait(as_tuple(use_awaitable));
      (void)ec;
    }
  }

  // After terminate(): ends the remote session, then reports the end once.
  asio::awaitable<void> finish() {
    if (!session_id_.empty()) {
      http::request<http::string_body> request;
      request.method(http::verb::delete_);
      prepare(request);
      request.prepare_payload();
      auto connected = co_await connect();
      const auto wait = std::min<std::chrono::milliseconds>(
          {options_.grace, request_timeout_,
           std::chrono::duration_cast<std::chrono::milliseconds>(kMaxDeleteWait)});
      boost::system::error_code ec;
      if (connected)
        ec = co_await remote::sendAndDrop(**connected, request, kMaxErrorBodyBytes, wait);
      if (ec) {
        log::debug("remote session DELETE failed",
                   {{"server", options_.server}, {"error", ec.message()}});
      }
    }
    reported_ = true;
    log::info("remote server disconnected", {{"server", options_.server}, {"reason", reason_}});
    if (callbacks_.on_exit) callbacks_.on_exit("disconnected", reason_);
  }

  asio::any_io_executor executor_;
  const config::RemoteConfig remote_;
  const std::chrono::milliseconds request_timeout_;
  Options options_;
  Callbacks callbacks_;
  std::shared_ptr<ssl::context> tls_;  // null for plain http
  const std::string origin_;           // scheme://host:port, for messages and logs
  std::string host_header_;
  std::string session_id_;
  std::string protocol_version_;
  std::vector<std::unique_ptr<Connection>> idle_;
  std::set<Connection*> active_;             // closed by terminate()
  remote::ToolParamHeaders tools_;           // x-mcp-header annotations, by tool name
  std::map<std::string, Connection*> open_;  // modern requests in flight, by id key
  std::set<std::string> cancelled_;          // of those, closed by a cancellation
  bool initializing_ = false;                // an initialize is waiting for its answer
  std::deque<mcp::Message> held_;            // what the client sent meanwhile
  bool terminating_ = false;
  bool reported_ = false;
  bool stream_started_ = false;
  bool stream_open_ = false;
  std::string reason_;
};

}  // namespace

std::string remoteEndpoint(const config::RemoteConfig& remote) {
  return std::string(remote.tls ? "https://" : "http://") +
         config::formatHostPort(remote.host, remote.port) + remote.target;
}

std::expected<std::shared_ptr<Upstream>, std::string> startRemoteUpstream(
    asio::any_io_executor executor, const config::RemoteConfig& remote,
    std::chrono::milliseconds request_timeout, Upstream::Options options,
    Upstream::Callbacks callbacks) {
  std::shared_ptr<ssl::context> tls;
  if (remote.tls) {
    auto context = remote::makeTlsContext(remote);
    if (!context) return std::unexpected(context.error());
    tls = std::move(*context);
  }
  log::info("remote server session starting", {{"server", options.server}});
  return std::make_shared<RemoteUpstream>(std::move(executor), remote, request_timeout,
                                          std::move(options), std::move(callbacks), std::move(tls));
}

}  // namespace mcpgate::gateway
