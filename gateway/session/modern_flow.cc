#include "gateway/session/modern_flow.h"

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>

#include "gateway/mcp/json_scan.h"
#include "gateway/mcp/jsonrpc.h"
#include "gateway/modern/front.h"
#include "gateway/modern/request_state.h"
#include "gateway/observe/log.h"
#include "gateway/session/modern_listeners.h"

// g++ 12 misreads Asio's coroutine frame allocator as a mismatched new/delete pair (as in
// session/aggregate.cc).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace mcpgate::gateway {

namespace asio = boost::asio;
using asio::awaitable;
using nlohmann::json;

namespace {

ModernReply invalidState(const json& id, std::string message, std::string_view reason) {
  return {400, jsonrpc::errorResponse(id, jsonrpc::kInvalidParams, message,
                                      json{{"gateway", "mcpgate"}, {"reason", reason}})};
}

// The capability a legacy server's request needs of the client, or "" when
// the gateway cannot ask a modern client for it.
std::string_view neededCapability(std::string_view method) {
  if (method == "sampling/createMessage") return "sampling";
  if (method == "elicitation/create") return "elicitation";
  if (method == "roots/list") return "roots";
  return {};
}

// MRTR may answer these (basic/patterns/mrtr.mdx, Supported Requests).
bool mayRequireInput(std::string_view method) {
  return method == "tools/call" || method == "prompts/get" || method == "resources/read";
}

// One modern request in flight through a lane.
struct Flow {
  std::shared_ptr<Lane> lane;
  std::shared_ptr<Mailbox> upstream;
  std::string gateway_id;
  json client_id;
  std::string method;
  json capabilities;  // the client's, from its envelope
  // {"params":{"_meta":{logLevel}}} of the client's request, or null: what
  // modern::logWanted reads (the level only: the rest of _meta is not copied).
  json envelope;
  std::string client;
  std::string identity;
  bool shaped = false;
};

// The InputRequiredResult for the server requests in `waiting`, parked under
// a sealed requestState; an error text when no state could be sealed.
std::string inputRequired(Flow& flow, std::vector<std::pair<std::string, json>> waiting) {
  auto& pool = LanePool::instance();
  json requests = json::object();
  for (const auto& [key, request] : waiting) {
    requests[key] = {{"method", request["method"]},
                     {"params", request.value("params", json::object())}};
  }
  const auto wall_expiry = std::chrono::system_clock::now() + LanePool::kTicketLifetime;
  Ticket ticket{flow.lane,          flow.upstream,
                flow.gateway_id,    flow.method,
                flow.identity,      flow.capabilities,
                std::move(waiting), std::chrono::steady_clock::now() + LanePool::kTicketLifetime};
  const std::string ticket_id = pool.park(std::move(ticket));
  auto sealed =
      pool.sealer().seal({flow.identity, flow.lane->server, ticket_id, flow.method, wall_expiry});
  if (!sealed) {
    (void)pool.take(ticket_id);
    return jsonrpc::errorResponse(flow.client_id, jsonrpc::kInternalError, sealed.error());
  }
  json irr = {{"jsonrpc", "2.0"},
              {"id", flow.client_id},
              {"result",
               {{"resultType", "input_required"},
                {"inputRequests", std::move(requests)},
                {"requestState", std::move(*sealed)}}}};
  return jsonrpc::serialize(irr);
}

// The server stops working on a request whose answer no one takes.
void cancelUpstream(const Flow& flow) {
  (void)sendToLane(*flow.lane->session, json{{"jsonrpc", "2.0"},
                                             {"method", "notifications/cancelled"},
                                             {"params", {{"requestId", flow.gateway_id}}}});
  flow.upstream->abandon();
}

// Gives a parsed-once request another id (the gateway's own in place of the
// client's) in its value, its facts and its text: the sender's bytes stay
// what is forwarded, with only the top-level id's value replaced. Without
// text (a repeated key), or when the id cannot be found in it, the value is
// what goes.
void giveId(mcp::Message& message, json new_id) {
  std::string new_text;
  std::string id_text = jsonrpc::idKey(new_id);  // the id's JSON text
  if (!message.text.empty()) {
    std::size_t from = jsonscan::kBad;
    std::size_t to = jsonscan::kBad;
    const std::string_view bytes = message.text;
    const std::size_t end =
        jsonscan::forEachMember(bytes, 0, [&](std::string_view key, std::string_view raw) {
          if (key != "id") return true;
          from = static_cast<std::size_t>(raw.data() - bytes.data());
          to = from + raw.size();
          return false;
        });
    if (end != jsonscan::kBad && from != jsonscan::kBad) {
      new_text.reserve(bytes.size() + 16);
      new_text.append(bytes.substr(0, from));
      new_text.append(id_text);
      new_text.append(bytes.substr(to));
    }
  }
  if (message.value.is_object()) message.value["id"] = new_id;
  message.id_key = std::move(id_text);
  message.id = std::move(new_id);
  message.text = std::move(new_text);
}

// The final answer to a plain request as its modern client gets it, made
// from the server's bytes (the session parsed them once already) without a
// second parse: the client's id in place of the gateway's, and `resultType`
// when the server left it out, which is all stampResult adds to a result that
// is not cacheable. nullopt when the text needs the full treatment: not this
// request's response, a cacheable or listed method, a result with a
// requestState or _meta to look into. `parsed`, when the session passes it,
// is the text's value: the checks read it, and the text is only searched for
// where the id and the result begin (not through the result).
std::optional<std::string> plainAnswer(const Flow& flow, std::string_view text,
                                       const json* parsed) {
  if (modern::isCacheable(flow.method) || flow.method == "tools/list" ||
      flow.method == "subscriptions/listen") {
    return std::nullopt;
  }
  bool typed = false;
  if (parsed != nullptr) {
    if (!parsed->is_object() || parsed->contains("method")) return std::nullopt;
    const auto id = parsed->find("id");
    if (id == parsed->end() || !id->is_string() ||
        id->get_ref<const std::string&>() != flow.gateway_id) {
      return std::nullopt;
    }
    const auto result = parsed->find("result");
    const bool has_error = parsed->contains("error");
    if ((result == parsed->end()) != has_error) return std::nullopt;
    if (result != parsed->end() && result->is_object()) {
      if (result->contains("requestState") || result->contains("_meta")) return std::nullopt;
      typed = result->contains("resultType");
    }
    const auto envelope = jsonscan::envelopeOf(text);
    if (!envelope || envelope->id_from == jsonscan::kBad) return std::nullopt;
    std::size_t stamp_at = jsonscan::kBad;  // no stamp: an error, or a typed result
    std::string_view stamp;
    if (!has_error) {
      if (envelope->result == jsonscan::kBad) return std::nullopt;
      if (!typed && result->is_object()) {
        stamp_at = envelope->result + 1;  // after the result's '{'
        stamp = result->empty() ? R"("resultType":"complete")" : R"("resultType":"complete",)";
      }
    }
    return jsonscan::spliced(text, envelope->id_from, envelope->id_to,
                     jsonrpc::serialize(flow.client_id), stamp_at, stamp);
  }
  std::string_view id, result, error;
  bool other = false;  // a method: a request or notification
  std::size_t end =
      jsonscan::forEachMember(text, 0, [&](std::string_view key, std::string_view raw) {
        if (key == "id") {
          id = raw;
        } else if (key == "result") {
          result = raw;
        } else if (key == "error") {
          error = raw;
        } else if (key == "method") {
          other = true;
        }
        return !other;
      });
  // Gateway ids are plain "mcpgate-N" strings: their JSON is the quoted name.
  if (end == jsonscan::kBad || other || result.empty() == error.empty() || id.size() < 2 ||
      id.front() != '"' || id.substr(1, id.size() - 2) != flow.gateway_id) {
    return std::nullopt;
  }
  std::string answer = R"({"jsonrpc":"2.0","id":)" + jsonrpc::serialize(flow.client_id);
  if (!error.empty()) {
    answer.append(R"(,"error":)").append(error).push_back('}');
    return answer;
  }
  bool special = false;
  if (result.front() == '{') {
    end = jsonscan::forEachMember(result, 0, [&](std::string_view key, std::string_view) {
      typed = typed || key == "resultType";
      special = key == "requestState" || key == "_meta";
      return !special;
    });
    if (end == jsonscan::kBad || special) return std::nullopt;
  }
  answer.reserve(answer.size() + result.size() + 48);
  answer.append(R"(,"result":)");
  if (typed || result.front() != '{') {
    answer.append(result);
  } else {
    const bool empty = result[jsonscan::skipWs(result, 1)] == '}';
    answer.append(empty ? R"({"resultType":"complete")" : R"({"resultType":"complete",)");
    answer.append(result.substr(1));
  }
  answer.push_back('}');
  return answer;
}

// Carries what the lane's server sends for one request to the client's
// mailbox `out`: its progress and log notifications, its final response with
// the client's id and the modern stamps, or (a legacy server asking the
// client something) an InputRequiredResult that parks the request.
awaitable<void> relay(Flow flow, std::shared_ptr<Mailbox> out) {
  auto& pool = LanePool::instance();
  ClientSession& session = *flow.lane->session;
  for (;;) {
    Mailbox::Batch batch = co_await flow.upstream->next();
    if (out->abandoned()) {
      // Closing the response stream is the modern client's cancellation.
      cancelUpstream(flow);
      pool.release(flow.lane);
      co_return;
    }
    std::vector<std::pair<std::string, json>> asks;
    std::optional<modern::FrontError> lacking;  // an input request the client cannot answer
    for (auto& text : batch.messages) {
      if (text.empty()) {
        out->pushKeepalive();
        continue;
      }
      if (auto plain = plainAnswer(flow, text, nullptr)) {
        out->pushFinal(std::move(*plain));
        pool.release(flow.lane);
        co_return;
      }
      // Valid JSON (the session parsed it), parsed again only here.
      json message = jsonrpc::parse(text, kReparseDepth).value_or(json());
      switch (jsonrpc::classify(message)) {
        case jsonrpc::Kind::kResponse: {
          if (message["id"] != json(flow.gateway_id)) break;
          message["id"] = flow.client_id;
          if (auto r = message.find("result"); r != message.end() && r->is_object()) {
            if (auto m = r->find("_meta");
                m != r->end() && m->is_object() && m->contains(modern::kMetaSubscriptionId)) {
              (*m)[std::string(modern::kMetaSubscriptionId)] = flow.client_id;
            }
            auto state = r->find("requestState");
            if (state != r->end() &&
                (!state->is_string() ||
                 state->get_ref<const std::string&>().size() > modern::kMaxRequestStateBytes)) {
              message = {
                  {"jsonrpc", "2.0"},
                  {"id", flow.client_id},
                  {"error",
                   {{"code", jsonrpc::kUpstreamError},
                    {"message", "the server's requestState is over " +
                                    std::to_string(modern::kMaxRequestStateBytes) + " bytes"}}}};
            }
          }
          if (flow.method == "tools/list" && message.contains("result") &&
              message["result"].is_object()) {
            pool.rememberTools(flow.identity, flow.lane->server,
                               message["result"].value("tools", json::array()));
          }
          modern::stampResult(message, flow.method, flow.shaped);
          out->pushFinal(jsonrpc::serialize(message));
          pool.release(flow.lane);
          co_return;
        }
        case jsonrpc::Kind::kRequest: {
          const std::string method = message["method"].get<std::string>();
          if (method == "ping") {
            (void)sendToLane(
                session,
                json{{"jsonrpc", "2.0"}, {"id", message["id"]}, {"result", json::object()}});
          } else if (flow.lane->era != Era::kLegacy || neededCapability(method).empty() ||
                     !mayRequireInput(flow.method)) {
            answerLane(
                session, message["id"], jsonrpc::kInvalidRequest,
                "mcpgate cannot ask a modern client for " + method + " during " + flow.method);
          } else if (auto missing = modern::missingCapabilities(
                         method, message.value("params", json::object()), flow.capabilities)) {
            // The spec's answer to an input request the client's declared
            // capabilities do not cover: -32021 to the client, for the whole
            // request; the server's question gets an error so it stops waiting.
            answerLane(session, message["id"], -32601,
                       "the client did not declare the capability " + missing->dump());
            if (!lacking) lacking = modern::missingCapability(std::move(*missing), method);
          } else {
            asks.emplace_back(
                "input-" + std::to_string(asks.size() + 1) + "-" + jsonrpc::idKey(message["id"]),
                std::move(message));
          }
          break;
        }
        case jsonrpc::Kind::kNotification: {
          // Change notifications belong to subscriptions/listen streams;
          // request-scoped ones go on the request's stream.
          if (deliverToListeners(*flow.lane, message)) break;
          const json& method = message["method"];
          if (method == "notifications/message" && flow.lane->era == Era::kLegacy) {
            // A legacy server logs at the level of its session; a modern
            // client asks per request (or not at all).
            const json& params = message.value("params", json::object());
            if (!modern::logWanted(flow.envelope, params.value("level", std::string()))) break;
          }
          if (method == "notifications/progress" || method == "notifications/message") {
            out->push(std::move(text));
          }
          break;
        }
        case jsonrpc::Kind::kInvalid:
          break;
      }
    }
    if (lacking) {
      for (const auto& [key, request] : asks) {
        answerLane(session, request["id"], -32601, "the client cannot answer this request");
      }
      cancelUpstream(flow);
      out->pushFinal(modern::errorBody(*lacking, flow.client_id));
      pool.release(flow.lane);
      co_return;
    }
    if (!asks.empty()) {
      out->pushFinal(inputRequired(flow, std::move(asks)));
      co_return;  // the lane stays in flight: the ticket holds it
    }
    if (batch.finished) {
      out->pushFinal(jsonrpc::errorResponse(flow.client_id, jsonrpc::kUpstreamError,
                                            "the server ended before it answered"));
      pool.release(flow.lane);
      co_return;
    }
  }
}

// relay()'s usual case without its coroutine: the upstream mailbox's sink,
// run where the lane's session delivers (on its strand, under its lock). A
// plain final answer (plainAnswer) goes to the client's mailbox at once and
// the lane is given back; anything else (progress, a server request, an
// abandoned client, the server's end) hands the flow to relay(), which reads
// that message and the rest from the mailbox. Nothing here calls the session.
class PlainRelay final : public MailboxSink {
 public:
  PlainRelay(Flow flow, std::shared_ptr<Mailbox> out, asio::any_io_executor executor)
      : upstream_(flow.upstream),
        flow_(std::move(flow)),
        out_(std::move(out)),
        executor_(std::move(executor)) {
    flow_.upstream.reset();  // the mailbox holds this sink: no cycle through it
  }

  bool take(std::string& text, bool /*final*/, const json* parsed) override {
    if (text.empty()) {
      out_->pushKeepalive();
      return true;
    }
    if (out_->abandoned()) return false;  // relay() cancels it upstream
    auto plain = plainAnswer(flow_, text, parsed);
    if (!plain) return false;
    out_->pushFinal(std::move(*plain));
    LanePool::instance().release(flow_.lane);
    return true;
  }

  void handOver() override {
    flow_.upstream = upstream_.lock();
    if (!flow_.upstream) return;  // no one will ever push to it again
    // Posted: co_spawn may start the coroutine inline, and relay() reads the
    // mailbox whose lock this runs under.
    asio::post(executor_,
               [executor = executor_, flow = std::move(flow_), out = std::move(out_)]() mutable {
                 asio::co_spawn(executor, relay(std::move(flow), std::move(out)), asio::detached);
               });
  }

 private:
  std::weak_ptr<Mailbox> upstream_;
  Flow flow_;
  std::shared_ptr<Mailbox> out_;
  asio::any_io_executor executor_;
};

// The retry of a parked request: the client's inputResponses answer the
// server's requests; what is still missing is asked again.
std::expected<Flow, ModernReply> resume(Ticket ticket, const json& params, Flow flow) {
  ClientSession& session = *ticket.lane->session;
  const json responses = params.value("inputResponses", json::object());
  std::vector<std::pair<std::string, json>> missing;
  for (auto& [key, request] : ticket.waiting) {
    auto answer = responses.is_object() ? responses.find(key) : responses.end();
    if (!responses.is_object() || answer == responses.end()) {
      missing.emplace_back(key, std::move(request));
      continue;
    }
    // Goes through the session's filters as the client's message: DLP scans
    // it in the request direction, and a blocked answer reaches the server
    // as an error in its place.
    (void)sendToLane(session, json{{"jsonrpc", "2.0"}, {"id", request["id"]}, {"result", *answer}});
  }
  flow.lane = ticket.lane;
  flow.upstream = ticket.upstream;
  flow.gateway_id = ticket.gateway_id;
  if (!missing.empty()) {
    flow.capabilities = std::move(ticket.client_capabilities);
    std::string again = inputRequired(flow, std::move(missing));
    return std::unexpected(ModernReply{200, std::move(again)});
  }
  return flow;
}

}  // namespace

std::string nextGatewayId() {
  static std::atomic<std::uint64_t> next{1};
  return "mcpgate-" + std::to_string(next.fetch_add(1));
}

awaitable<std::optional<ModernReply>> serveModern(ModernRequest request, mcp::Message message,
                                                  std::shared_ptr<Mailbox> out) {
  const json id = message.id;
  const std::string serverName = request.server != nullptr ? request.server->name : std::string();
  const std::string method = message.method;
  if (modern::isRemovedMethod(method)) {
    co_return ModernReply{
        404, jsonrpc::errorResponse(
                 id, -32601,
                 "Method not found: " + method + " was removed in protocol revision 2026-07-28")};
  }
  json& params = message.value["params"];
  const config::Config& config = *request.generation->config;
  Flow flow;
  flow.client_id = id;
  flow.method = method;
  flow.client = request.client;
  flow.identity = request.identity;
  // The envelope was checked (modern::checkRequest): params and its _meta are objects.
  if (const auto meta = params.find("_meta"); meta != params.end() && meta->is_object()) {
    if (auto caps = meta->find(modern::kMetaClientCapabilities); caps != meta->end()) {
      flow.capabilities = *caps;
    }
    if (auto level = meta->find(modern::kMetaLogLevel); level != meta->end()) {
      flow.envelope["params"]["_meta"][std::string(modern::kMetaLogLevel)] = *level;
    }
  }
  if (!flow.capabilities.is_object()) flow.capabilities = json::object();
  // Per-client policy and DLP may change any result: no shared cache may
  // hand one client's to another.
  flow.shaped = config.dlp.enabled || !config.policies.empty() || request.generation->authenticator;

  const auto state = params.find("requestState");
  if (state != params.end() && (!state->is_string() || state->get_ref<const std::string&>().size() >
                                                           modern::kMaxRequestStateBytes)) {
    co_return invalidState(id,
                           "requestState must be a string of at most " +
                               std::to_string(modern::kMaxRequestStateBytes) + " bytes",
                           "request_state_too_large");
  }
  auto& pool = LanePool::instance();
  const auto executor = co_await asio::this_coro::executor;
  if (state != params.end() && modern::isGatewayState(state->get_ref<const std::string&>())) {
    auto claims = pool.sealer().open(state->get_ref<const std::string&>(), request.identity,
                                     serverName, method);
    if (!claims) {
      log::info("modern retry refused",
                {{"server", serverName},
                 {"client", request.client},
                 {"reason", std::string(modern::stateErrorReason(claims.error().kind))}});
      co_return invalidState(id, claims.error().message,
                             modern::stateErrorReason(claims.error().kind));
    }
    auto ticket = pool.take(claims->ticket);
    if (!ticket) {
      co_return invalidState(id,
                             "the request this requestState belongs to is no longer waiting (it "
                             "was answered, expired, or its server ended); send it again without "
                             "inputResponses or requestState",
                             "request_state_gone");
    }
    auto resumed = resume(std::move(*ticket), params, std::move(flow));
    if (!resumed) co_return std::move(resumed.error());
    out->tellWhenAbandoned(resumed->upstream);
    asio::co_spawn(executor, relay(std::move(*resumed), out), asio::detached);
    co_return std::nullopt;
  }

  std::expected<std::shared_ptr<Lane>, std::string> lane = request.lane;
  if (request.lane) {
    pool.hold(request.lane);
  } else {
    lane = co_await pool.acquire(*request.sessions, request.generation, request.server,
                                 std::move(request.aggregate), request.client, request.identity);
  }
  if (!lane) {
    co_return ModernReply{
        502, jsonrpc::errorResponse(id, jsonrpc::kUpstreamError,
                                    "cannot serve '" + (serverName.empty() ? "/mcp" : serverName) +
                                        "' to a modern client: " + lane.error(),
                                    json{{"gateway", "mcpgate"}, {"reason", "lane_failed"}})};
  }
  flow.lane = std::move(*lane);
  if (method == "subscriptions/listen" && flow.lane->era == Era::kLegacy) {
    if (!request.streams) {
      pool.release(flow.lane);
      co_return ModernReply{
          406, jsonrpc::errorResponse(id, jsonrpc::kInvalidRequest,
                                      "subscriptions/listen needs Accept: text/event-stream")};
    }
    json asked = params.value("notifications", json::object());
    co_await listenLegacy(std::move(flow.lane), std::move(flow.client_id), std::move(asked), out);
    co_return std::nullopt;
  }
  if (flow.lane->era == Era::kLegacy) {
    if (method == "server/discover") {
      json reply = {{"jsonrpc", "2.0"},
                    {"id", id},
                    {"result", modern::discoverResult(flow.lane->offer, "modern-front")}};
      pool.release(flow.lane);
      co_return ModernReply{200, jsonrpc::serialize(reply)};
    }
    if (state != params.end()) {
      pool.release(flow.lane);
      co_return invalidState(id, "requestState was not minted by this gateway",
                             "request_state_malformed");
    }
  }
  flow.gateway_id = nextGatewayId();
  giveId(message, json(flow.gateway_id));  // the client's bytes go on, with the gateway's id
  flow.upstream = std::make_shared<Mailbox>(executor, true, 1);
  if (method == "subscriptions/listen") {
    // Registered before the request goes: the server's acknowledgement may come at once.
    std::lock_guard lock(flow.lane->listeners_mu);
    flow.lane->listeners.push_back({flow.gateway_id, id, nullptr, out});
  }
  // The answer may come before sendToLane returns: the sink is there first.
  const std::shared_ptr<Lane> lane_held = flow.lane;
  const std::shared_ptr<Mailbox> upstream = flow.upstream;
  upstream->sinkTo(std::make_shared<PlainRelay>(std::move(flow), out, executor));
  out->tellWhenAbandoned(upstream);
  if (sendToLane(*lane_held->session, std::move(message), upstream) ==
      ClientSession::Accepted::kClosed) {
    upstream->sinkTo(nullptr);
    pool.release(lane_held);
    co_return ModernReply{
        502, jsonrpc::errorResponse(id, jsonrpc::kUpstreamError,
                                    "the server's process ended; send the request again")};
  }
  co_return std::nullopt;
}

}  // namespace mcpgate::gateway
