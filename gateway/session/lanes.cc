#include "gateway/session/lanes.h"

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "gateway/bridge/era_probe.h"
#include "gateway/mcp/jsonrpc.h"
#include "gateway/mcp/message.h"
#include "gateway/observe/log.h"
#include "gateway/upstream/era_bridge.h"

// g++ 12 misreads Asio's coroutine frame allocator as a mismatched new/delete pair (as in
// session/aggregate.cc).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace mcpgate::gateway {

namespace asio = boost::asio;
using asio::awaitable;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

// How often a request waits for a lane of a full pool still starting.
constexpr std::chrono::milliseconds kStartingPoll{5};

const json& gatewayInfo() {
  static const json info = {{"name", "mcpgate"}, {"version", "modern-front"}};
  return info;
}

// The gateway answers a legacy server's sampling and elicitation requests by
// asking the modern client (MRTR). Roots are not declared: a legacy server
// asks for them right after initialize, outside any request a client could
// answer.
json initializeRequest() {
  return {{"jsonrpc", "2.0"},
          {"id", "mcpgate-initialize"},
          {"method", "initialize"},
          {"params",
           {{"protocolVersion", jsonrpc::kProtocolVersions[std::size(jsonrpc::kProtocolVersions) - 1]},
            {"capabilities",
             {{"sampling", json::object()},
              {"elicitation", {{"form", json::object()}, {"url", json::object()}}}}},
            {"clientInfo", gatewayInfo()}}}};
}

modern::ServerOffer offerFrom(const std::string& name, const json& result, bool modern_server) {
  modern::ServerOffer offer;
  offer.name = name;
  if (!result.is_object()) return offer;
  offer.capabilities = result.value("capabilities", json::object());
  if (modern_server) {
    if (auto meta = result.find("_meta"); meta != result.end() && meta->is_object()) {
      offer.server_info = meta->value(std::string(modern::kMetaServerInfo), json(nullptr));
    }
  } else {
    offer.server_info = result.value("serverInfo", json(nullptr));
  }
  if (auto it = result.find("instructions"); it != result.end() && it->is_string()) {
    offer.instructions = it->get<std::string>();
  }
  return offer;
}

bool alive(const Lane& lane) { return lane.session && lane.session->closeReason().empty(); }

// Opens a 2025-era server's session as its client would.
awaitable<std::expected<void, std::string>> initializeLegacy(Lane& lane) {
  auto initialized = co_await askLane(*lane.session, initializeRequest());
  if (!initialized) co_return std::unexpected("the server ended during initialize");
  json answer = json::parse(*initialized, nullptr, /*allow_exceptions=*/false);
  if (!answer.is_object() || !answer.contains("result") || !answer["result"].is_object()) {
    co_return std::unexpected("the server refused initialize: " +
                              (answer.is_object() && answer.contains("error")
                                   ? answer["error"].dump()
                                   : std::string("no result")));
  }
  lane.era = Era::kLegacy;
  lane.offer = offerFrom(lane.server, answer["result"], false);
  (void)sendToLane(*lane.session, json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
  co_return std::expected<void, std::string>{};
}

// Finds the era of a fresh lane as the gateway finds any server's
// (bridge::decideEra, the spec's probe), and readies it: a modern server as
// it is, a legacy one initialized.
awaitable<std::expected<void, std::string>> probe(Lane& lane, bridge::ProbeTransport transport) {
  bridge::ProbeOutcome outcome;  // protocol: legacy skips the probe
  if (lane.choice != EraChoice::kLegacy) {
    json request = bridge::discoverRequest("mcpgate-discover", "modern-front");
    auto discovered = co_await askLane(*lane.session, std::move(request),
                                       std::chrono::milliseconds(EraBridge::kProbeTimeout));
    if (discovered) {
      outcome.kind = bridge::ProbeOutcome::Kind::kResponse;
      outcome.response = json::parse(*discovered, nullptr, /*allow_exceptions=*/false);
    } else if (!lane.session->closeReason().empty()) {
      co_return std::unexpected("the server ended during server/discover");
    } else {
      outcome.detail = "no answer to server/discover in " +
                       std::to_string(EraBridge::kProbeTimeout.count()) + " ms";
    }
  }
  auto verdict = bridge::decideEra(lane.choice, transport, outcome);
  if (!verdict) co_return std::unexpected(verdict.error());
  if (verdict->era == Era::kModern) {
    lane.era = Era::kModern;
    lane.offer = offerFrom(lane.server, verdict->discover, true);
    co_return std::expected<void, std::string>{};
  }
  auto ready = co_await initializeLegacy(lane);
  co_return ready;
}

}  // namespace

ClientSession::Accepted sendToLane(ClientSession& session, mcp::Message message,
                                   const std::shared_ptr<Mailbox>& mailbox) {
  std::vector<mcp::Message> messages;
  messages.push_back(std::move(message));
  return session.fromClient(std::move(messages), mailbox);
}

ClientSession::Accepted sendToLane(ClientSession& session, json message,
                                   const std::shared_ptr<Mailbox>& mailbox) {
  return sendToLane(session, mcp::Message::of(std::move(message), Direction::kToServer), mailbox);
}

void answerLane(ClientSession& session, const json& id, int code, std::string message) {
  (void)sendToLane(session, json{{"jsonrpc", "2.0"},
                                 {"id", id},
                                 {"error", {{"code", code}, {"message", std::move(message)}}}});
}

awaitable<std::optional<std::string>> askLane(ClientSession& session, json request,
                                              std::chrono::milliseconds timeout) {
  const std::string id = jsonrpc::idKey(request["id"]);
  const auto executor = co_await asio::this_coro::executor;
  auto mailbox = std::make_shared<Mailbox>(executor, false, 1);
  if (sendToLane(session, std::move(request), mailbox) == ClientSession::Accepted::kClosed) {
    co_return std::nullopt;
  }
  // No answer in time ends the wait as the session's end would; an answer
  // after it finds the mailbox finished.
  std::shared_ptr<asio::steady_timer> timer;
  if (timeout.count() > 0) {
    timer = std::make_shared<asio::steady_timer>(executor, timeout);
    timer->async_wait(
        [timer, weak = std::weak_ptr<Mailbox>(mailbox)](boost::system::error_code ec) {
          if (auto waiting = weak.lock(); !ec && waiting) waiting->finish();
        });
  }
  std::optional<std::string> answer;
  for (bool finished = false; !answer && !finished;) {
    Mailbox::Batch batch = co_await mailbox->next();
    for (auto& text : batch.messages) {
      if (text.empty()) continue;
      json message = json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (jsonrpc::classify(message) == jsonrpc::Kind::kResponse &&
          jsonrpc::idKey(message["id"]) == id) {
        answer = std::move(text);
        break;
      }
    }
    finished = batch.finished;
  }
  if (timer) timer->cancel();
  co_return answer;
}

LanePool::LanePool()
    : sealer_([] {
        auto made = modern::StateSealer::create();
        if (!made) {
          // Without randomness a requestState key is guessable: better to stop.
          log::error("cannot key requestState", {{"error", made.error()}});
          std::abort();
        }
        return std::move(*made);
      }()) {}

LanePool& LanePool::instance() {
  // Never destroyed: threads still running at exit (stdio's reader, a fuzz
  // target's workers) may reach it while static objects are torn down.
  static LanePool* const pool = new LanePool();
  return *pool;
}

void LanePool::reapLocked(Clock::time_point now) {
  for (auto it = lanes_.begin(); it != lanes_.end();) {
    std::erase_if(it->second, [&](const std::shared_ptr<Lane>& lane) {
      if (lane->era == Era::kUnknown) return false;  // still starting
      if (alive(*lane) && lane->in_flight.load(std::memory_order_acquire) == 0 && lane->idle_timeout.count() > 0 &&
          now - lane->last_used.load() >= lane->idle_timeout) {
        bool listened = false;
        {
          std::lock_guard listeners(lane->listeners_mu);
          std::erase_if(lane->listeners, [](const Listener& l) {
            auto out = l.out.lock();
            return !out || out->abandoned();
          });
          listened = !lane->listeners.empty();
        }
        if (!listened) lane->session->close("idle for longer than pool.idle_timeout");
      }
      return !alive(*lane);
    });
    it = it->second.empty() ? lanes_.erase(it) : std::next(it);
  }
  for (auto it = tickets_.begin(); it != tickets_.end();) {
    if (it->second.expires <= now || !alive(*it->second.lane)) {
      Ticket& ticket = it->second;
      // The server's questions get an error, so it stops waiting; the
      // request's answer goes nowhere.
      for (const auto& [key, request] : ticket.waiting) {
        answerLane(*ticket.lane->session, request["id"], jsonrpc::kInternalError,
                   "the client did not answer in time");
      }
      ticket.upstream->abandon();
      --ticket.lane->in_flight;
      it = tickets_.erase(it);
    } else {
      ++it;
    }
  }
}

void LanePool::armReaperLocked(const asio::any_io_executor& executor) {
  if (reaper_) return;
  reaper_ = std::make_shared<asio::steady_timer>(executor);
  awaitReap(reaper_);
}

void LanePool::awaitReap(std::shared_ptr<asio::steady_timer> timer) {
  timer->expires_after(kReapEvery);
  timer->async_wait([this, timer](boost::system::error_code ec) {
    if (ec) return;
    std::lock_guard lock(mu_);
    if (reaper_ != timer) return;  // cleared meanwhile
    reapLocked(Clock::now());
    if (lanes_.empty() && tickets_.empty()) {
      reaper_.reset();  // the next lane arms it again
      return;
    }
    awaitReap(timer);
  });
}

awaitable<std::expected<std::shared_ptr<Lane>, std::string>> LanePool::acquire(
    SessionTable& sessions, const std::shared_ptr<const Generation>& generation,
    const config::ServerConfig* server, std::vector<std::string> aggregate,
    const std::string& client, const std::string& identity) {
  const std::string name = server != nullptr ? server->name : std::string();
  const std::string key = identity + '\n' + name;
  const auto size = static_cast<std::ptrdiff_t>(server != nullptr ? server->pool.size : 4);
  std::shared_ptr<Lane> lane;
  int spares = 0;  // pool.start: lanes readied beside this one at an identity's first request
  const asio::execution_context* here =
      &asio::query(co_await asio::this_coro::executor, asio::execution::context);
  for (;;) {
    bool full = false;  // pool.size lanes, all still starting
    {
      std::lock_guard lock(mu_);
      // Idle lanes and expired tickets are the reaper timer's; only this
      // identity's ended lanes go here, so they do not count against pool.size.
      auto& mine = lanes_[key];
      std::erase_if(mine, [](const std::shared_ptr<Lane>& l) {
        return l->era != Era::kUnknown && !alive(*l);
      });
      // An idle lane first (a legacy lane serves its requests one after
      // another); then the least busy, where one more request queued on a
      // lane of this connection's worker costs less than a thread switch
      // each way (session/io_pool.h).
      const auto idleLane = [](const Lane& l) { return l.era == Era::kModern || l.in_flight == 0; };
      const auto cost = [&](const Lane& l) { return 2 * l.in_flight + (l.worker == here ? 0 : 3); };
      std::shared_ptr<Lane> best;
      for (const auto& candidate : mine) {
        if (candidate->era == Era::kUnknown) continue;
        if (!best) {
          best = candidate;
          continue;
        }
        const bool idle_candidate = idleLane(*candidate);
        if (idle_candidate != idleLane(*best)) {
          if (idle_candidate) best = candidate;
        } else if (cost(*candidate) < cost(*best)) {
          best = candidate;
        }
      }
      const bool idle = best && idleLane(*best);
      if (best && (idle || std::ssize(mine) >= size)) {
        ++best->in_flight;
        best->last_used = Clock::now();
        co_return best;
      }
      if (!best && std::ssize(mine) >= size) {
        full = true;
      } else {
        if (mine.empty() && server != nullptr && server->pool.start > 1) {
          spares = static_cast<int>(server->pool.start) - 1;
        }
        lane = reserveLocked(mine, server, identity);
      }
    }
    if (!full) break;
    // A burst of first requests waits for the lanes it started rather than
    // start more than pool.size.
    asio::steady_timer starting(co_await asio::this_coro::executor, kStartingPoll);
    (void)co_await starting.async_wait(asio::as_tuple(asio::use_awaitable));
  }
  auto readied = co_await ready(lane, sessions, generation, server, std::move(aggregate), client);
  if (readied && spares > 0) {
    const auto executor = co_await asio::this_coro::executor;
    for (int i = 0; i < spares; ++i) {
      asio::co_spawn(executor, startSpare(sessions, generation, server, client, identity),
                     asio::detached);
    }
  }
  if (!readied) co_return std::unexpected(readied.error());
  co_return lane;
}

std::shared_ptr<Lane> LanePool::reserveLocked(std::vector<std::shared_ptr<Lane>>& lanes,
                                              const config::ServerConfig* server,
                                              const std::string& identity) {
  auto lane = std::make_shared<Lane>();
  lane->server = server != nullptr ? server->name : std::string();
  lane->identity = identity;
  lane->in_flight = 1;
  lane->choice = server != nullptr ? server->protocol : EraChoice::kAuto;
  lane->idle_timeout = server != nullptr && server->pool.idle_timeout
                           ? *server->pool.idle_timeout
                           : std::chrono::milliseconds(0);
  lanes.push_back(lane);
  return lane;
}

awaitable<std::expected<void, std::string>> LanePool::ready(
    std::shared_ptr<Lane> lane, SessionTable& sessions,
    std::shared_ptr<const Generation> generation, const config::ServerConfig* server,
    std::vector<std::string> aggregate, std::string client) {
  std::expected<void, std::string> readied;
  // The session is made on the worker running this coroutine (SessionTable).
  lane->worker = &asio::query(co_await asio::this_coro::executor, asio::execution::context);
  if (server != nullptr) {
    auto created = sessions.create(generation, *server, client, /*inner=*/true);
    if (created) {
      lane->session = std::move(*created);
    } else {
      readied = std::unexpected(created.error().message);
    }
  } else {
    // The aggregate speaks the 2025 revisions to its client: the probe finds it legacy.
    auto created = sessions.createAggregate(generation, std::move(aggregate), client,
                                            lane->identity);
    if (created) {
      lane->session = std::move(*created);
    } else {
      readied = std::unexpected(created.error().message);
    }
  }
  const auto transport = server != nullptr && server->remote ? bridge::ProbeTransport::kHttp
                                                             : bridge::ProbeTransport::kStdio;
  if (readied) readied = co_await probe(*lane, transport);
  const auto executor = co_await asio::this_coro::executor;
  std::lock_guard lock(mu_);
  if (!readied) {
    std::erase(lanes_[lane->identity + '\n' + lane->server], lane);
    if (lane->session) lane->session->close("the modern front could not ready it");
    log::warn("no lane for a modern client",
              {{"server", lane->server}, {"client", client}, {"error", readied.error()}});
    co_return readied;
  }
  lane->last_used = Clock::now();
  armReaperLocked(executor);
  log::info("lane ready", {{"server", lane->server},
                           {"client", client},
                           {"era", std::string(eraName(lane->era))},
                           {"session", lane->session->id()}});
  co_return readied;
}

awaitable<void> LanePool::startSpare(SessionTable& sessions,
                                     std::shared_ptr<const Generation> generation,
                                     const config::ServerConfig* server, std::string client,
                                     std::string identity) {
  std::shared_ptr<Lane> lane;
  {
    std::lock_guard lock(mu_);
    auto& mine = lanes_[identity + '\n' + server->name];
    if (std::ssize(mine) >= static_cast<std::ptrdiff_t>(server->pool.size)) co_return;
    lane = reserveLocked(mine, server, identity);
  }
  auto readied = co_await ready(lane, sessions, generation, server, {}, client);
  if (readied) release(lane);
}

awaitable<std::expected<std::shared_ptr<Lane>, std::string>> LanePool::adopt(
    std::shared_ptr<ClientSession> session, const config::ServerConfig& server,
    std::string identity) {
  auto lane = std::make_shared<Lane>();
  lane->session = std::move(session);
  lane->server = server.name;
  lane->identity = std::move(identity);
  lane->choice = server.protocol;
  auto readied = co_await probe(
      *lane, server.remote ? bridge::ProbeTransport::kHttp : bridge::ProbeTransport::kStdio);
  const auto executor = co_await asio::this_coro::executor;
  if (!readied) co_return std::unexpected(readied.error());
  lane->last_used = Clock::now();
  {
    std::lock_guard lock(mu_);
    armReaperLocked(executor);
  }
  log::info("lane ready", {{"server", lane->server},
                           {"era", std::string(eraName(lane->era))},
                           {"session", lane->session->id()}});
  co_return lane;
}

void LanePool::hold(const std::shared_ptr<Lane>& lane) {
  std::lock_guard lock(mu_);
  ++lane->in_flight;
  lane->last_used = Clock::now();
}

void LanePool::release(const std::shared_ptr<Lane>& lane) {
  // No lock: the reaper reads last_used after in_flight, and a lane is only
  // reaped with none in flight, so the time is always the new one then.
  lane->last_used.store(Clock::now(), std::memory_order_relaxed);
  lane->in_flight.fetch_sub(1, std::memory_order_release);
}

std::string LanePool::park(Ticket ticket) {
  std::string id = newSessionId();
  std::lock_guard lock(mu_);
  reapLocked(Clock::now());
  tickets_.emplace(id, std::move(ticket));
  return id;
}

std::optional<Ticket> LanePool::take(const std::string& id) {
  std::lock_guard lock(mu_);
  reapLocked(Clock::now());
  auto it = tickets_.find(id);
  if (it == tickets_.end()) return std::nullopt;
  Ticket ticket = std::move(it->second);
  tickets_.erase(it);
  return ticket;
}

void LanePool::rememberTools(const std::string& identity, const std::string& server,
                             const json& tools) {
  if (!tools.is_array()) return;
  ToolHeaders headers;
  for (const auto& tool : tools) {
    if (!tool.is_object() || !tool.contains("name") || !tool["name"].is_string()) continue;
    headers[tool["name"].get<std::string>()] =
        modern::paramHeaders(tool.value("inputSchema", json::object()));
  }
  std::lock_guard lock(mu_);
  // A paginated list adds to what the first page said.
  auto& known = tool_headers_[identity + '\n' + server];
  for (auto& [name, annotations] : headers) known[name] = std::move(annotations);
}

std::optional<std::optional<std::vector<modern::ParamHeader>>> LanePool::toolHeaders(
    const std::string& identity, const std::string& server, const std::string& tool) {
  std::lock_guard lock(mu_);
  auto known = tool_headers_.find(identity + '\n' + server);
  if (known == tool_headers_.end()) return std::nullopt;
  auto it = known->second.find(tool);
  if (it == known->second.end()) return std::nullopt;
  return it->second;
}

void LanePool::clear() {
  std::unordered_map<std::string, std::vector<std::shared_ptr<Lane>>> lanes;
  std::unordered_map<std::string, Ticket> tickets;
  {
    std::lock_guard lock(mu_);
    lanes.swap(lanes_);
    tickets.swap(tickets_);
    tool_headers_.clear();
    if (reaper_) reaper_->cancel();
    reaper_.reset();
  }
  for (auto& [id, ticket] : tickets) ticket.upstream->abandon();
}

std::size_t LanePool::lanes(const std::string& identity, const std::string& server) {
  std::lock_guard lock(mu_);
  auto it = lanes_.find(identity + '\n' + server);
  return it == lanes_.end() ? 0 : it->second.size();
}

}  // namespace mcpgate::gateway
