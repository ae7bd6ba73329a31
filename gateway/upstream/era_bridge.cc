#include "gateway/upstream/era_bridge.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "gateway/bridge/era_probe.h"
#include "gateway/mcp/jsonrpc.h"
#include "gateway/observe/log.h"

namespace mcpgate::gateway {

using nlohmann::json;

namespace {

constexpr std::string_view kGatewayVersion = "bridge";

// Eras found, by key (a stdio server's name, a remote endpoint's URL): the
// server is not probed again, as versioning.mdx allows for the same server
// configuration, until the assumption fails (a refused initialize; for a
// remote, a bridged request refused as a legacy server would). A stdio
// server's modern verdict is not kept: each process is probed, and a modern
// one answers at once. One entry per configured server.
struct KnownEra {
  Era era = Era::kUnknown;
  std::string version;  // modern: the revision in the envelope
  json discover;        // modern: the server/discover result
};
std::mutex known_mu;
std::map<std::string, KnownEra>& knownEras() {
  // Never destroyed (as LanePool::instance): workers may run during exit.
  static auto* const eras = new std::map<std::string, KnownEra>();
  return *eras;
}
std::optional<KnownEra> knownEra(const std::string& key) {
  std::lock_guard lock(known_mu);
  auto it = knownEras().find(key);
  if (it == knownEras().end()) return std::nullopt;
  return it->second;
}
void remember(const std::string& key, KnownEra era) {
  std::lock_guard lock(known_mu);
  knownEras()[key] = std::move(era);
}
void forget(const std::string& key) {
  std::lock_guard lock(known_mu);
  knownEras().erase(key);
}

}  // namespace

std::expected<std::shared_ptr<Upstream>, std::string> EraBridge::start(
    boost::asio::any_io_executor executor, EraChoice choice, std::string server,
    std::uint32_t max_depth, Callbacks outer, const StartInner& start_inner, Probe probe) {
  if (probe.key.empty()) probe.key = server;
  auto bridge = std::make_shared<EraBridge>(executor, choice, std::move(server), max_depth,
                                            std::move(outer), std::move(probe));
  std::weak_ptr<EraBridge> weak = bridge;
  Callbacks inner{[weak](mcp::Message message) {
                    if (auto self = weak.lock()) self->fromServer(std::move(message));
                  },
                  // Not through the bridge: the session may have dropped it by the time
                  // the process is reaped, and the reap must still be reported.
                  [on_exit = bridge->outer_.on_exit](const std::string& status,
                                                     const std::string& stopped_because) {
                    if (on_exit) on_exit(status, stopped_because);
                  },
                  [weak] {
                    auto self = weak.lock();
                    return self && self->outer_.hold && self->outer_.hold();
                  }};
  auto started = start_inner(std::move(inner));
  if (!started) return std::unexpected(started.error());
  bridge->inner_ = std::move(*started);
  return bridge;
}

EraBridge::EraBridge(boost::asio::any_io_executor executor, EraChoice choice, std::string server,
                     std::uint32_t max_depth, Callbacks outer, Probe probe)
    : executor_(executor),
      choice_(choice),
      server_(std::move(server)),
      max_depth_(max_depth),
      probe_(probe.key.empty() ? Probe{probe.transport, server_} : std::move(probe)),
      outer_(std::move(outer)),
      probe_timer_(executor) {}

void EraBridge::terminate(std::string why) {
  probe_timer_.cancel();
  if (inner_) inner_->terminate(std::move(why));
}

void EraBridge::send(mcp::Message message) {
  switch (state_) {
    case State::kPassThrough:
      inner_->send(std::move(message));
      return;
    case State::kProbing:
      // The client waits for initialize's answer; anything it sends meanwhile
      // (bounded: the session's own limits let little through) waits too.
      if (held_.size() >= kMaxHeld) {
        // A client piping requests without waiting for initialize: refused,
        // not buffered without end.
        if (message.isRequest()) {
          toClientError(message.id, jsonrpc::kUpstreamError,
                        "too many messages before the server's initialize was answered");
        }
        return;
      }
      held_.push_back(std::move(message));
      return;
    case State::kModern: {
      if (message.value.is_null()) {
        // One the gateway wrote as text (an error in a refused answer's
        // place, a cancellation): the only messages that come unparsed.
        auto parsed = jsonrpc::parse(message.text, max_depth_);
        if (!parsed || parsed->is_array()) return;
        message.value = std::move(*parsed);
      }
      fromClientModern(std::move(message.value));
      return;
    }
    case State::kFirst:
      break;
  }
  if (message.isRequest() && message.method == "server/discover" &&
      probe_.transport == bridge::ProbeTransport::kHttp) {
    laneProbe(std::move(message));
    return;
  }
  const bool initialize = message.isRequest() && message.method == "initialize";
  const std::optional<KnownEra> known =
      initialize && choice_ != EraChoice::kLegacy ? knownEra(probe_.key) : std::nullopt;
  const bool known_legacy = known && known->era == Era::kLegacy && choice_ == EraChoice::kAuto;
  if (!initialize || choice_ == EraChoice::kLegacy || known_legacy) {
    // A modern client's lane (it probes for itself), or a server the config
    // (or an earlier probe) says is legacy: the session speaks to it as it is.
    if (known_legacy) unconfirmed_initialize_ = message.id_key;
    becomePassThrough();
    inner_->send(std::move(message));
    return;
  }
  state_ = State::kProbing;
  initialize_ = std::move(message.value);
  if (known && known->era == Era::kModern) {
    log::debug("server era", {{"server", server_}, {"era", "modern"}, {"probed", "before"}});
    becomeModern(known->discover, known->version);
    return;
  }
  probe_id_ = "mcpgate-probe-" + std::to_string(next_id_++);
  sendUpstream(bridge::discoverRequest(probe_id_, kGatewayVersion));
  probe_timer_.expires_after(kProbeTimeout);
  probe_timer_.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
    if (ec) return;
    if (auto self = weak.lock()) self->probeTimedOut();
  });
}

void EraBridge::fromServer(mcp::Message message) {
  if (state_ == State::kPassThrough || state_ == State::kFirst) {
    if (!unconfirmed_initialize_.empty()) confirmLegacy(message);
    if (!lane_probe_.empty() && message.isResponse() && message.id_key == lane_probe_) {
      lane_probe_.clear();
      noteLaneProbe(message.value);
    }
    outer_.on_message(std::move(message));
    return;
  }
  if (state_ == State::kProbing) {
    if (message.isResponse() && message.id == probe_id_) {
      probeAnswered(message.value);
    } else {
      outer_.on_message(std::move(message));  // a log line of a legacy server, say
    }
    return;
  }
  fromServerModern(std::move(message.value));
}

void EraBridge::probeAnswered(const json& response) {
  probe_timer_.cancel();
  decide(probe_.transport == bridge::ProbeTransport::kHttp
             ? bridge::httpProbeOutcome(response)
             : bridge::ProbeOutcome{bridge::ProbeOutcome::Kind::kResponse, response, 0, {}, {}});
}

void EraBridge::probeTimedOut() {
  if (state_ != State::kProbing) return;
  decide({bridge::ProbeOutcome::Kind::kNoAnswer, nullptr, 0, {},
          "no answer to server/discover in " + std::to_string(kProbeTimeout.count()) + " ms"});
}

void EraBridge::decide(const bridge::ProbeOutcome& outcome) {
  auto verdict = bridge::decideEra(choice_, probe_.transport, outcome);
  if (!verdict && probe_.transport == bridge::ProbeTransport::kHttp &&
      outcome.kind != bridge::ProbeOutcome::Kind::kResponse && choice_ == EraChoice::kAuto) {
    // The remote could not be asked (down, refusing the gateway, failing):
    // its answer to the client's own initialize tells the client what it
    // must know, as before there was a probe. Nothing is kept.
    log::debug("server era", {{"server", server_}, {"era", "unknown"}, {"why", verdict.error()}});
    becomePassThrough(/*keep=*/false);
    return;
  }
  if (!verdict) {
    log::warn("server era", {{"server", server_}, {"error", verdict.error()}});
    const json id = initialize_["id"];
    state_ = State::kPassThrough;
    held_.clear();
    toClientError(id, jsonrpc::kUpstreamError, verdict.error());
    return;
  }
  if (verdict->era == Era::kModern) {
    becomeModern(verdict->discover, verdict->version);
  } else {
    becomePassThrough();
  }
}

void EraBridge::confirmLegacy(const mcp::Message& message) {
  if (!message.isResponse() || message.id_key != unconfirmed_initialize_) return;
  unconfirmed_initialize_.clear();
  // Refused: the server may have become modern; the next process is probed.
  if (message.value.is_object() && message.value.contains("error")) forget(probe_.key);
}

void EraBridge::laneProbe(mcp::Message message) {
  state_ = State::kPassThrough;
  const std::optional<KnownEra> known =
      choice_ == EraChoice::kLegacy ? std::nullopt : knownEra(probe_.key);
  if (known && known->era == Era::kModern && !known->discover.empty()) {
    toClient({{"jsonrpc", "2.0"}, {"id", message.id}, {"result", known->discover}});
    return;
  }
  if (known && known->era == Era::kLegacy) {
    toClientError(message.id, -32601,  // Method not found
                  "server/discover: the server speaks a 2025 revision (found earlier)");
    return;
  }
  lane_probe_ = message.id_key;
  inner_->send(std::move(message));
}

void EraBridge::noteLaneProbe(const json& response) {
  auto verdict = bridge::decideEra(choice_, probe_.transport, bridge::httpProbeOutcome(response));
  if (!verdict) return;  // no evidence: the next one probes again
  if (verdict->era == Era::kModern && !verdict->discover.empty()) {
    remember(probe_.key, {Era::kModern, verdict->version, verdict->discover});
  } else if (verdict->era == Era::kLegacy && choice_ == EraChoice::kAuto) {
    remember(probe_.key, {Era::kLegacy, {}, json::object()});
  }
}

void EraBridge::doubtModern(const json& response) {
  if (probe_.transport != bridge::ProbeTransport::kHttp) return;
  const bridge::ProbeOutcome outcome = bridge::httpProbeOutcome(response);
  const unsigned status = outcome.http_status;
  if (outcome.kind == bridge::ProbeOutcome::Kind::kHttpStatus &&
      (status == 400 || status == 404 || status == 405)) {
    forget(probe_.key);
  }
}

void EraBridge::becomePassThrough(bool keep) {
  const bool probed = state_ == State::kProbing;
  state_ = State::kPassThrough;
  if (!probed) return;
  if (keep && choice_ == EraChoice::kAuto) remember(probe_.key, {Era::kLegacy, {}, json::object()});
  log::debug("server era", {{"server", server_}, {"era", "legacy"}});
  sendUpstream(initialize_);
  initialize_ = nullptr;
  while (!held_.empty()) {
    inner_->send(std::move(held_.front()));
    held_.pop_front();
  }
}

void EraBridge::becomeModern(const json& discover, std::string version) {
  state_ = State::kModern;
  if (probe_.transport == bridge::ProbeTransport::kHttp) {
    remember(probe_.key, {Era::kModern, version, discover});
  } else {
    forget(probe_.key);
  }
  log::info(
      "server era",
      {{"server", server_}, {"era", "modern"}, {"version", version}, {"bridged", "legacy client"}});
  const json params = initialize_.value("params", json::object());
  envelope_ = bridge::envelopeFrom(params, std::move(version));
  server_capabilities_ = discover.value("capabilities", json::object());
  const json requested = params.is_object() ? params.value("protocolVersion", json()) : json();
  json result = bridge::initializeResult(
      discover, requested.is_string() ? requested.get_ref<const std::string&>() : "");
  json answer = {{"jsonrpc", "2.0"}, {"id", initialize_["id"]}, {"result", std::move(result)}};
  initialize_ = nullptr;
  toClient(answer);
  std::deque<mcp::Message> held = std::move(held_);
  for (auto& message : held) send(std::move(message));
}

// What the bridge writes is built as a value and handed on as a message with
// its facts read once (mcp::Message::of); it is serialised where it is sent.
void EraBridge::toClient(const json& message) {
  outer_.on_message(mcp::Message::of(message, Direction::kToClient));
}

void EraBridge::toClientError(const json& id, int code, const std::string& message) {
  toClient({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

void EraBridge::sendUpstream(const json& message) {
  inner_->send(mcp::Message::of(message, Direction::kToServer));
}

void EraBridge::fromClientModern(json message) {
  switch (jsonrpc::classify(message)) {
    case jsonrpc::Kind::kNotification: {
      const std::string method = message.value("method", "");
      if (method == "notifications/initialized") {
        renewListen();  // the client is ready for list-changed notifications
        return;
      }
      if (method == "notifications/cancelled") {
        // The client names its own id; the server knows the request by ours.
        auto params = message.find("params");
        if (params == message.end() || !params->is_object() || !params->contains("requestId")) {
          return;
        }
        const json requested = (*params)["requestId"];
        for (auto it = bridged_.begin(); it != bridged_.end(); ++it) {
          if (it->second.client_id == requested) {
            (*params)["requestId"] = it->second.request["id"];
            for (const auto& [input_id, unused] : it->second.waiting) inputs_.erase(input_id);
            bridged_.erase(it);
            bridge::addEnvelope(message, envelope_);
            sendUpstream(message);
            return;
          }
        }
        return;
      }
      // roots/list_changed and the like: a modern server asks for roots
      // itself (inputRequests); nothing else of a client's is sent on.
      return;
    }
    case jsonrpc::Kind::kResponse: {
      const std::string key = jsonrpc::idKey(message["id"]);
      if (inputs_.contains(key)) clientAnswered(key, message);
      return;
    }
    case jsonrpc::Kind::kRequest: {
      if (auto local = bridge::answerLocally(message, subscriptions_, envelope_)) {
        toClient({{"jsonrpc", "2.0"}, {"id", message["id"]}, {"result", local->result}});
        if (local->listen_changed) renewListen();
        return;
      }
      forgetAbandoned();
      if (bridged_.size() >= kMaxBridged) {
        toClientError(message["id"], jsonrpc::kUpstreamError,
                      "too many requests in flight to this server");
        return;
      }
      Bridged bridged;
      bridged.client_id = message["id"];
      message["id"] = "mcpgate-b-" + std::to_string(next_id_++);
      bridge::addEnvelope(message, envelope_);
      bridged.request = message;
      const std::string upstream_key = jsonrpc::idKey(message["id"]);
      bridged_.emplace(upstream_key, std::move(bridged));
      sendUpstream(message);
      return;
    }
    case jsonrpc::Kind::kInvalid:
      return;
  }
}

void EraBridge::fromServerModern(json message) {
  switch (jsonrpc::classify(message)) {
    case jsonrpc::Kind::kResponse: {
      const std::string key = jsonrpc::idKey(message["id"]);
      if (!listen_id_.empty() && key == jsonrpc::idKey(json(listen_id_))) {
        listen_id_.clear();  // the server ended the subscription
        return;
      }
      auto it = bridged_.find(key);
      if (it == bridged_.end()) return;  // a request the client cancelled, or the probe's
      Bridged& bridged = it->second;
      if (bridge::isInputRequired(message)) {
        auto round = bridge::inputRound(message["result"], envelope_);
        if (round && ++bridged.rounds > bridge::kMaxInputRounds) {
          round = std::unexpected("the server asked for input more than " +
                                  std::to_string(bridge::kMaxInputRounds) + " times");
        }
        if (!round) {
          log::warn("input request not relayed", {{"server", server_}, {"error", round.error()}});
          toClientError(bridged.client_id, jsonrpc::kUpstreamError, round.error());
          bridged_.erase(it);
          return;
        }
        bridged.answers = json::object();
        bridged.asked = std::chrono::steady_clock::now();
        bridged.request_state = std::move(round->request_state);
        bridged.waiting.clear();
        for (auto& [input_key, request] : round->requests) {
          const std::string input_id = "mcpgate-in-" + std::to_string(next_id_++);
          bridged.waiting.emplace(jsonrpc::idKey(json(input_id)), input_key);
          inputs_.emplace(jsonrpc::idKey(json(input_id)), key);
          toClient(bridge::serverRequest(input_id, request));
        }
        if (bridged.waiting.empty()) finishRound(key);  // requestState alone: retry at once
        return;
      }
      if (message.contains("error")) doubtModern(message);
      message["id"] = bridged.client_id;
      bridge::toLegacyResponse(message);
      bridged_.erase(it);
      toClient(message);
      return;
    }
    case jsonrpc::Kind::kNotification:
      if (auto legacy = bridge::toLegacyNotification(std::move(message))) toClient(*legacy);
      return;
    case jsonrpc::Kind::kRequest:
      // A modern server sends no requests (MRTR replaces them): refuse it so
      // it does not wait.
      sendUpstream({{"jsonrpc", "2.0"},
                    {"id", message["id"]},
                    {"error",
                     {{"code", jsonrpc::kInvalidRequest},
                      {"message",
                       "the 2026-07-28 revision has no server-to-client requests; "
                       "use inputRequests"}}}});
      return;
    case jsonrpc::Kind::kInvalid:
      return;
  }
}

void EraBridge::clientAnswered(const std::string& input_id, const json& message) {
  auto input = inputs_.find(input_id);
  const std::string upstream_key = input->second;
  inputs_.erase(input);
  auto it = bridged_.find(upstream_key);
  if (it == bridged_.end()) return;
  Bridged& bridged = it->second;
  auto waiting = bridged.waiting.find(input_id);
  if (waiting == bridged.waiting.end()) return;
  if (message.contains("error")) {
    // Refused by the client, or by a rule on the way: the request ends so.
    for (const auto& [other, unused] : bridged.waiting) inputs_.erase(other);
    // The client's error object is client input: read only what is well formed.
    const json& error = message["error"];
    const json code = error.is_object() ? error.value("code", json()) : json();
    const json why = error.is_object() ? error.value("message", json()) : json();
    toClientError(bridged.client_id,
                  code.is_number_integer() && code.get<long long>() >= INT32_MIN &&
                          code.get<long long>() <= INT32_MAX
                      ? static_cast<int>(code.get<long long>())
                      : jsonrpc::kUpstreamError,
                  "the server's " + waiting->second + " input was refused: " +
                      (why.is_string() ? why.get<std::string>() : std::string("no reason given")));
    bridged_.erase(it);
    return;
  }
  bridged.answers[waiting->second] = message.value("result", json::object());
  bridged.waiting.erase(waiting);
  if (bridged.waiting.empty()) finishRound(upstream_key);
}

void EraBridge::finishRound(const std::string& upstream_key) {
  auto it = bridged_.find(upstream_key);
  if (it == bridged_.end()) return;
  Bridged bridged = std::move(it->second);
  bridged_.erase(it);
  const json retry_id = "mcpgate-b-" + std::to_string(next_id_++);
  bridged.request =
      bridge::retryRequest(bridged.request, retry_id, bridged.answers, bridged.request_state);
  bridged.answers = json::object();
  const std::string key = jsonrpc::idKey(retry_id);
  const json retry = bridged.request;
  bridged_.emplace(key, std::move(bridged));
  sendUpstream(retry);
}

void EraBridge::forgetAbandoned() {
  const auto now = std::chrono::steady_clock::now();
  for (auto it = bridged_.begin(); it != bridged_.end();) {
    if (it->second.waiting.empty() || now - it->second.asked < kInputTimeout) {
      ++it;
      continue;
    }
    for (const auto& [input_id, unused] : it->second.waiting) inputs_.erase(input_id);
    it = bridged_.erase(it);
  }
}

void EraBridge::renewListen() {
  if (!listen_id_.empty()) {
    json cancel = {{"jsonrpc", "2.0"},
                   {"method", "notifications/cancelled"},
                   {"params", {{"requestId", listen_id_}, {"reason", "filter renewed"}}}};
    bridge::addEnvelope(cancel, envelope_);
    sendUpstream(cancel);
    listen_id_.clear();
  }
  json listen = bridge::listenRequest("mcpgate-listen-" + std::to_string(next_id_++), envelope_,
                                      server_capabilities_, subscriptions_);
  if (listen["params"]["notifications"].empty()) return;  // nothing the server could tell
  listen_id_ = listen["id"].get<std::string>();
  sendUpstream(listen);
}

}  // namespace mcpgate::gateway
