#include "gateway/session/session.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <optional>

#include "config/units.h"
#include "gateway/guard/ambiguity.h"
#include "gateway/mcp/jsonrpc.h"
#include "gateway/observe/audit.h"
#include "gateway/observe/log.h"
#include "gateway/observe/metrics.h"
#include "gateway/upstream/remote_upstream.h"
#include "gateway/upstream/egress_link.h"
#include "gateway/upstream/spawn_spec.h"
#include "gateway/upstream/era_bridge.h"
#include "gateway/upstream/upstream.h"

namespace mcpgate::gateway {

namespace asio = boost::asio;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

constexpr auto kKeepaliveEvery = std::chrono::seconds(15);
constexpr std::size_t kBacklogLimit = 1000;

json gatewayData(std::string_view reason, const std::string& server) {
  return {{"gateway", "mcpgate"}, {"reason", reason}, {"server", server}};
}

}  // namespace

Session::Session(std::string id, std::string client, asio::any_io_executor strand,
                 std::shared_ptr<const config::Config> config, const config::ServerConfig& server,
                 std::shared_ptr<const CurrentGeneration> current, Hooks hooks)
    : ClientSession(std::move(id), std::move(client)),
      strand_(strand),
      config_(std::move(config)),
      server_(server),
      current_(std::move(current)),
      hooks_(std::move(hooks)),
      timer_(strand),
      last_activity_(Clock::now()),
      last_keepalive_(Clock::now()) {}

std::expected<void, std::string> Session::start() {
  std::weak_ptr<Session> weak = weak_from_this();
  Upstream::Callbacks callbacks{
      [weak](mcp::Message message) {
        if (auto self = weak.lock()) self->fromServer(std::move(message));
      },
      [weak, hooks = hooks_](const std::string& status, const std::string& stopped_because) {
        if (auto self = weak.lock()) self->upstreamExited(status, stopped_because);
        if (hooks.on_child_gone) hooks.on_child_gone();
      },
      [weak] {
        auto self = weak.lock();
        return self && self->overBudget();
      }};
  // What the server has not read yet may be many requests' worth, not one.
  Upstream::Options options{server_.name, config_->limits.max_line_bytes, config_->session.grace,
                            std::max<std::uint64_t>(16 * config_->limits.max_body_bytes, 1 << 20)};
  options.session = id_;
  options.max_json_depth = config_->limits.max_json_depth;
  options.stderr_limits = server_.sandbox.stderr_limits;
  if (server_.sandbox.network == sandbox::NetworkMode::kAllowlist) {
    options.egress = egressSettings(server_.sandbox, server_.name, id_);
  }
  auto upstream = [&]() -> std::expected<std::shared_ptr<Upstream>, std::string> {
    // Between the two: the era of the server, and the bridge when a legacy
    // client meets a modern server (upstream/era_bridge.h).
    if (server_.remote) {
      const config::RemoteConfig& remote = *server_.remote;
      return EraBridge::start(
          strand_, server_.protocol, server_.name, config_->limits.max_json_depth,
          std::move(callbacks),
          [&](Upstream::Callbacks inner) {
            return startRemoteUpstream(strand_, remote, config_->session.request_timeout,
                                       options, std::move(inner));
          },
          {bridge::ProbeTransport::kHttp, remoteEndpoint(remote)});
    }
    const auto spec = spawnSpecFor(*config_, server_);
    if (!spec) return std::unexpected(spec.error());
    return EraBridge::start(strand_, server_.protocol, server_.name,
                            config_->limits.max_json_depth, std::move(callbacks),
                            [&](Upstream::Callbacks inner) {
                              return ChildUpstream::start(strand_, *spec, options,
                                                          std::move(inner));
                            });
  }();
  if (!upstream) return std::unexpected(upstream.error());
  upstream_ = std::move(*upstream);
  scheduleTick();
  return {};
}

Session::Accepted Session::fromClient(std::vector<mcp::Message> messages,
                                      const std::shared_ptr<Mailbox>& mailbox) {
  // Scanned before taking the lock: a long scan must not hold up the server's
  // answers (or other clients' requests) in this session.
  std::vector<Verdict> verdicts(messages.size());
  const std::shared_ptr<const FilterChain> filters = current_->get()->filters;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    mcp::Message& message = messages[i];
    MessageContext context{server_.name, id_, Direction::kToServer, {}, client_, message.tool};
    if (std::optional<Verdict> refused = ambiguity(message, server_.name)) {
      audit::decision(context, message.method, refused->data["reason"].get<std::string>(),
                      refused->message);
      verdicts[i] = std::move(*refused);
    } else if (!filters->empty()) {
      verdicts[i] = filters->run(context, message);
    }
  }
  std::vector<mcp::Message> to_send;
  if (mailbox) mailbox->chargeTo(queued_);
  {
    std::lock_guard lock(mu_);
    if (closed_) return Accepted::kClosed;
    auto now = Clock::now();
    last_activity_ = now;
    for (std::size_t i = 0; i < messages.size(); ++i) {
      mcp::Message& message = messages[i];
      const Verdict& verdict = verdicts[i];
      const jsonrpc::Kind kind = message.kind;
      if (kind == jsonrpc::Kind::kRequest && pending_.contains(message.id_key)) {
        metrics::requestDone(server_.name, message.method, "invalid", {});
        mailbox->pushFinal(
            jsonrpc::errorResponse(message.id, jsonrpc::kInvalidRequest,
                                   "a request with this id is already pending in this session",
                                   gatewayData("duplicate_id", server_.name)));
        continue;
      }
      if (verdict.action == Verdict::Action::kReject) {
        std::string error =
            kind == jsonrpc::Kind::kInvalid
                ? std::string()
                : jsonrpc::errorResponse(message.id, verdict.code, verdict.message, verdict.data);
        if (kind == jsonrpc::Kind::kRequest) {
          metrics::requestDone(server_.name, message.method, "blocked", {});
          mailbox->pushFinal(std::move(error));
        } else if (kind == jsonrpc::Kind::kResponse) {
          // The client's answer to a server request (sampling, elicitation):
          // the server gets the error in its place rather than waiting forever.
          to_send.push_back(mcp::Message::made(std::move(error), jsonrpc::Kind::kResponse,
                                               Direction::kToServer, message.id));
        } else {
          log::info("client notification refused by a filter; dropped",
                    {{"server", server_.name}, {"session", id_}, {"reason", verdict.message}});
        }
        continue;
      }
      if (kind == jsonrpc::Kind::kRequest) {
        addPendingLocked(message, mailbox, filters, now);
      } else if (kind == jsonrpc::Kind::kNotification &&
                 message.method == "notifications/cancelled") {
        cancelledLocked(message);
      }
      // The client's own text when it says exactly what was checked; text
      // with duplicate keys, or of a batch, comes empty and goes as parsed
      // (the last of each key), so a first-wins parser on the server reads
      // what DLP and the policy saw.
      if (verdict.modified) message.text.clear();
      message.line();
      to_send.push_back(std::move(message));
    }
  }
  if (!to_send.empty()) {
    asio::post(strand_, [self = shared_from_this(), sent = std::move(to_send)]() mutable {
      for (auto& message : sent) self->upstream_->send(std::move(message));
    });
  }
  return Accepted::kOk;
}

void Session::addPendingLocked(const mcp::Message& message, const std::shared_ptr<Mailbox>& mailbox,
                               const std::shared_ptr<const FilterChain>& filters,
                               Clock::time_point now) {
  // A modern subscriptions/listen is answered by a stream that lasts as long as the client
  // wants it: no deadline. It ends when the client closes it (the modern front cancels it).
  const bool listen = message.method == "subscriptions/listen";
  Pending pending{mailbox,
                  message.id,
                  next_seq_++,
                  listen ? Clock::time_point::max() : now + config_->session.request_timeout,
                  "",
                  message.method == "initialize",
                  message.method,
                  message.tool,
                  filters,
                  message.policy,
                  now};
  if (auto params = message.value.find("params");
      params != message.value.end() && params->is_object()) {
    if (auto meta = params->find("_meta"); meta != params->end() && meta->is_object()) {
      if (auto token = meta->find("progressToken"); token != meta->end()) {
        pending.progress_key = jsonrpc::idKey(*token);
        progress_[pending.progress_key] = message.id_key;
      }
    }
  }
  pending_.emplace(message.id_key, std::move(pending));
}

void Session::cancelledLocked(const mcp::Message& message) {
  // The client gave up on a request: end its wait now; the server is told
  // through this same notification and should not answer.
  auto params = message.value.find("params");
  if (params == message.value.end() || !params->is_object()) return;
  auto rid = params->find("requestId");
  if (rid == params->end()) return;
  auto it = pending_.find(jsonrpc::idKey(*rid));
  if (it == pending_.end()) return;
  completeLocked(it,
                 jsonrpc::errorResponse(*rid, jsonrpc::kRequestCancelled, "request cancelled by the client"),
                 "cancelled");
}

Session::StreamResult Session::openStream(const std::shared_ptr<Mailbox>& mailbox) {
  std::lock_guard lock(mu_);
  if (closed_) return StreamResult::kClosed;
  if (stream_ && !stream_->abandoned()) return StreamResult::kConflict;
  mailbox->chargeTo(queued_);
  stream_ = mailbox;
  last_activity_ = Clock::now();
  while (!backlog_.empty()) {
    stream_->push(std::move(backlog_.front()));
    backlog_.pop_front();
  }
  queued_->bytes -= static_cast<std::int64_t>(backlog_bytes_);
  backlog_bytes_ = 0;
  return StreamResult::kOk;
}

void Session::countDone(const Pending& pending, std::string_view outcome) const {
  metrics::requestDone(server_.name, pending.method, outcome, Clock::now() - pending.received);
}

void Session::finishLocked(Pending& pending, std::string response, std::string_view outcome,
                           const nlohmann::json* parsed) {
  countDone(pending, outcome);
  if (!pending.progress_key.empty()) progress_.erase(pending.progress_key);
  pending.mailbox->pushFinal(std::move(response), parsed);
}

void Session::completeLocked(PendingMap::iterator it, std::string response,
                             std::string_view outcome) {
  finishLocked(it->second, std::move(response), outcome);
  pending_.erase(it);
}

void Session::fromServer(mcp::Message message) {
  // The request a response answers leaves pending_ here, in the one lookup:
  // its rules scan the response, and its mailbox gets it (or the error).
  // Messages from the server are handled one at a time on the strand, so no
  // progress or timeout of this request can come in between.
  std::optional<Pending> answered;
  if (message.isResponse()) {
    std::lock_guard lock(mu_);
    if (auto node = pending_.extract(message.id_key)) {
      answered = std::move(node.mapped());
      if (!answered->progress_key.empty()) progress_.erase(answered->progress_key);
      answered->progress_key.clear();
      last_activity_ = Clock::now();  // not idle while its answer is scanned
    }
  }
  std::shared_ptr<const FilterChain> filters;
  if (answered) {
    filters = answered->filters;
    message.policy = answered->policy;  // the request's (server, tool, client)
  } else {
    filters = current_->get()->filters;
  }
  if (!filters->empty()) {
    MessageContext context{server_.name,
                           id_,
                           Direction::kToClient,
                           answered ? std::string_view(answered->method) : std::string_view(),
                           client_,
                           answered ? std::string_view(answered->tool) : std::string_view()};
    Verdict verdict = filters->run(context, message);
    if (verdict.action == Verdict::Action::kReject) {
      switch (message.kind) {
        case jsonrpc::Kind::kResponse:
          if (answered) {
            std::lock_guard lock(mu_);
            finishLocked(
                *answered,
                jsonrpc::errorResponse(message.id, verdict.code, verdict.message, verdict.data),
                "blocked");
          }
          return;
        case jsonrpc::Kind::kRequest:
          // A server request (sampling, elicitation) the client must not see:
          // answer it here, or the server waits for an answer that never comes.
          upstream_->send(mcp::Message::made(
              jsonrpc::errorResponse(message.id, verdict.code, verdict.message, verdict.data),
              jsonrpc::Kind::kResponse, Direction::kToServer, message.id));
          return;
        case jsonrpc::Kind::kNotification:
        case jsonrpc::Kind::kInvalid:
          log::info("server message refused by a filter; dropped",
                    {{"server", server_.name}, {"session", id_}, {"reason", verdict.message}});
          return;
      }
      return;
    }
    // The client reads what was checked: of duplicate keys, the last.
    if (verdict.modified) message.text.clear();
  }
  std::string& line = message.wire();

  std::lock_guard lock(mu_);
  last_activity_ = Clock::now();
  switch (message.kind) {
    case jsonrpc::Kind::kResponse: {
      if (!answered) {
        log::debug("response for no pending request; dropped",
                   {{"server", server_.name}, {"session", id_}, {"id", message.id_key}});
        return;
      }
      if (answered->initialize) {
        auto result = message.value.find("result");
        if (result != message.value.end() && result->is_object()) {
          auto version = result->find("protocolVersion");
          batches_allowed_ = version != result->end() && *version == "2025-03-26";
        }
      }
      const bool error = message.value.contains("error");
      finishLocked(*answered, std::move(line), error ? "error" : "ok", &message.value);
      return;
    }
    case jsonrpc::Kind::kNotification: {
      if (message.method == "notifications/progress") {
        auto params = message.value.find("params");
        if (params != message.value.end() && params->is_object() &&
            params->contains("progressToken")) {
          auto it = progress_.find(jsonrpc::idKey((*params)["progressToken"]));
          if (it != progress_.end()) {
            auto& mailbox = pending_.at(it->second).mailbox;
            if (mailbox->streaming() && !mailbox->abandoned()) {
              mailbox->push(std::move(line));
              return;
            }
          }
        }
      }
      routeUnsolicited(std::move(line));
      return;
    }
    case jsonrpc::Kind::kRequest:
      routeUnsolicited(std::move(line));
      return;
    case jsonrpc::Kind::kInvalid:
      log::warn("server sent an invalid JSON-RPC message; dropped",
                {{"server", server_.name}, {"session", id_}});
      return;
  }
}

void Session::routeUnsolicited(std::string message) {
  // A stdio server does not say which request a message belongs to. While
  // requests are in flight the newest one is the likeliest cause (a sampling
  // request during a tool call), and its stream is surely being read; else
  // the GET stream; else keep it until a GET stream opens.
  Pending* newest = nullptr;
  for (auto& [key, pending] : pending_) {
    if (pending.mailbox->streaming() && !pending.mailbox->abandoned() &&
        (newest == nullptr || pending.seq > newest->seq)) {
      newest = &pending;
    }
  }
  if (newest != nullptr) {
    newest->mailbox->push(std::move(message));
  } else if (stream_ && !stream_->abandoned()) {
    stream_->push(std::move(message));
  } else {
    // Bounded in count and in bytes (a stream's budget); the oldest go first.
    std::size_t dropped = 0;
    while (!backlog_.empty() &&
           (backlog_.size() >= kBacklogLimit ||
            backlog_bytes_ + message.size() > config_->limits.max_stream_queue_bytes)) {
      backlog_bytes_ -= backlog_.front().size();
      queued_->bytes -= static_cast<std::int64_t>(backlog_.front().size());
      backlog_.pop_front();
      ++dropped;
    }
    if (dropped > 0) {
      static log::Limiter limiter;
      limiter.warn("no client stream for server messages; oldest dropped",
                   {{"server", server_.name}, {"session", id_}}, dropped);
    }
    backlog_bytes_ += message.size();
    queued_->bytes += static_cast<std::int64_t>(message.size());
    backlog_.push_back(std::move(message));
  }
}

bool Session::overBudget() const {
  return queued_->bytes.load(std::memory_order_relaxed) >
             static_cast<std::int64_t>(config_->limits.max_session_queue_bytes) ||
         Mailbox::queuedBytesAll() > static_cast<std::int64_t>(config_->limits.max_queued_bytes);
}

void Session::endStalledLocked(Clock::time_point now) {
  const config::LimitsConfig& limits = config_->limits;
  // Over the gateway's budget, a stream is ended at a smaller queue.
  const bool pressed =
      Mailbox::queuedBytesAll() > static_cast<std::int64_t>(limits.max_queued_bytes);
  const std::size_t over = pressed ? std::min<std::size_t>(limits.max_stream_queue_bytes, 1 << 20)
                                   : limits.max_stream_queue_bytes;
  auto stalled = [&](const Mailbox& mailbox) {
    return mailbox.queuedBytes() > over && now - mailbox.lastTaken() >= limits.stream_stall_timeout;
  };
  const std::string why = "the client did not read its stream: more than " +
                          config::formatSize(over) + " queued and nothing taken for " +
                          config::formatDuration(limits.stream_stall_timeout) +
                          " (limits.max_stream_queue_bytes, limits.stream_stall_timeout)";
  static log::Limiter limiter;
  std::unordered_map<Mailbox*, std::vector<std::string>> ended;  // mailbox -> its errors
  std::vector<std::shared_ptr<Mailbox>> to_end;
  for (auto it = pending_.begin(); it != pending_.end();) {
    Mailbox* mailbox = it->second.mailbox.get();
    if (!ended.contains(mailbox) && !stalled(*mailbox)) {
      ++it;
      continue;
    }
    if (!ended.contains(mailbox)) to_end.push_back(it->second.mailbox);
    auto& errors = ended[mailbox];
    errors.push_back(jsonrpc::errorResponse(it->second.id, jsonrpc::kUpstreamError, why,
                                            gatewayData("stream_overflow", server_.name)));
    countDone(it->second, "overflow");
    if (!it->second.progress_key.empty()) progress_.erase(it->second.progress_key);
    it = pending_.erase(it);
  }
  for (auto& mailbox : to_end) {
    mailbox->overflow(std::move(ended[mailbox.get()]));
    limiter.warn("client stream ended: the client does not read it",
                 {{"server", server_.name}, {"session", id_}, {"reason", why}});
  }
  if (stream_ && stalled(*stream_)) {
    stream_->overflow({});
    stream_.reset();
    limiter.warn("client stream ended: the client does not read it",
                 {{"server", server_.name}, {"session", id_}, {"reason", why}});
  }
}

void Session::failAllLocked(const std::string& reason) {
  for (auto& [key, pending] : pending_) {
    countDone(pending, "closed");
    pending.mailbox->pushFinal(jsonrpc::errorResponse(pending.id, jsonrpc::kUpstreamError, reason,
                                                      gatewayData("session_closed", server_.name)));
  }
  pending_.clear();
  progress_.clear();
  if (stream_) stream_->finish();
  stream_.reset();
  backlog_.clear();
  queued_->bytes -= static_cast<std::int64_t>(backlog_bytes_);
  backlog_bytes_ = 0;
}

void Session::close(const std::string& reason) {
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    closed_ = true;
    close_reason_ = reason;
    failAllLocked(reason);
  }
  log::info("session closed", {{"server", server_.name}, {"session", id_}, {"reason", reason}});
  if (hooks_.on_closed) hooks_.on_closed(id_);
  asio::post(strand_, [self = shared_from_this(), reason] {
    self->timer_.cancel();
    if (self->upstream_) self->upstream_->terminate(reason);
  });
}

std::optional<std::chrono::steady_clock::time_point> Session::idleSince() const {
  std::lock_guard lock(mu_);
  if (!pending_.empty()) return std::nullopt;
  return last_activity_;
}

std::string Session::closeReason() const {
  std::lock_guard lock(mu_);
  return close_reason_;
}

void Session::upstreamExited(const std::string& status, const std::string& stopped_because) {
  // After a DELETE or idle reap the session is closed already and this is a no-op.
  if (stopped_because.empty()) {
    close("MCP server '" + server_.name + "' exited unexpectedly (" + status + ")");
  } else {
    close("MCP server '" + server_.name + "' was stopped: it " + stopped_because);
  }
}

void Session::scheduleTick() {
  auto period = std::clamp<std::chrono::milliseconds>(config_->session.idle_timeout / 4,
                                                      std::chrono::milliseconds(50),
                                                      std::chrono::milliseconds(1000));
  period = std::min(period, std::clamp<std::chrono::milliseconds>(
                                config_->session.request_timeout / 4, std::chrono::milliseconds(50),
                                std::chrono::milliseconds(1000)));
  timer_.expires_after(period);
  timer_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    if (ec) return;
    if (auto self = weak.lock()) self->tick();
  });
}

void Session::tick() {
  auto now = Clock::now();
  std::vector<std::string> cancels;
  bool idle = false;
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    for (auto it = pending_.begin(); it != pending_.end();) {
      if (it->second.deadline <= now) {
        countDone(it->second, "timeout");
        const json& id = it->second.id;
        it->second.mailbox->pushFinal(
            jsonrpc::errorResponse(id, jsonrpc::kUpstreamTimeout,
                                   "MCP server '" + server_.name + "' did not answer within " +
                                       config::formatDuration(config_->session.request_timeout),
                                   gatewayData("request_timeout", server_.name)));
        if (!it->second.progress_key.empty()) progress_.erase(it->second.progress_key);
        json cancel = {{"jsonrpc", "2.0"},
                       {"method", "notifications/cancelled"},
                       {"params", {{"requestId", id}, {"reason", "timed out in the gateway"}}}};
        cancels.push_back(cancel.dump());
        it = pending_.erase(it);
        last_activity_ = now;
      } else {
        ++it;
      }
    }
    endStalledLocked(now);
    if (stream_ && !stream_->abandoned() && now - last_keepalive_ >= kKeepaliveEvery) {
      stream_->pushKeepalive();
      last_keepalive_ = now;
    }
    if (stream_ && stream_->abandoned()) stream_.reset();
    idle = pending_.empty() && now - last_activity_ >= config_->session.idle_timeout;
  }
  for (auto& line : cancels) {
    upstream_->send(mcp::Message::made(std::move(line), jsonrpc::Kind::kNotification,
                                       Direction::kToServer, nullptr, "notifications/cancelled"));
  }
  if (idle) {
    close("idle for longer than the idle timeout");
    return;
  }
  scheduleTick();
}

}  // namespace mcpgate::gateway
