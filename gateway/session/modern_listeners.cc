// The listen streams of a lane (subscriptions/listen): which of them a
// server's change notification goes to.
#include "gateway/session/modern_listeners.h"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/this_coro.hpp>
#include <mutex>
#include <string>
#include <string_view>

#include "gateway/mcp/jsonrpc.h"
#include "gateway/modern/front.h"
#include "gateway/session/modern_flow.h"

namespace mcpgate::gateway {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

// The subscriptions/listen filter key a legacy server's change notification
// falls under, or "" when it is not one.
std::string_view filterKey(std::string_view method) {
  if (method == "notifications/tools/list_changed") return "toolsListChanged";
  if (method == "notifications/prompts/list_changed") return "promptsListChanged";
  if (method == "notifications/resources/list_changed") return "resourcesListChanged";
  if (method == "notifications/resources/updated") return "resourceSubscriptions";
  return {};
}

bool wants(const json& filter, std::string_view key, const json& notification) {
  auto it = filter.find(key);
  if (it == filter.end()) return false;
  if (key != "resourceSubscriptions") return *it == true;
  const json uri = notification.contains("params") && notification["params"].is_object()
                       ? notification["params"].value("uri", json(nullptr))
                       : json(nullptr);
  return it->is_array() && std::ranges::find(*it, uri) != it->end();
}

}  // namespace

bool deliverToListeners(Lane& lane, const json& notification) {
  const std::string method = notification.value("method", std::string());
  const json* meta = nullptr;
  if (auto params = notification.find("params");
      params != notification.end() && params->is_object()) {
    if (auto m = params->find("_meta"); m != params->end() && m->is_object()) meta = &*m;
  }
  const std::string subscription_key(modern::kMetaSubscriptionId);
  const bool tagged = meta != nullptr && meta->contains(subscription_key);
  if (lane.era == Era::kModern && !tagged) return false;
  if (lane.era != Era::kModern && filterKey(method).empty()) return false;
  std::lock_guard lock(lane.listeners_mu);
  std::erase_if(lane.listeners, [](const Listener& l) {
    auto out = l.out.lock();
    return !out || out->abandoned();
  });
  for (const auto& listener : lane.listeners) {
    if (lane.era == Era::kModern ? (*meta)[subscription_key] != json(listener.gateway_id)
                                 : !wants(listener.filter, filterKey(method), notification)) {
      continue;
    }
    json copy = notification;
    copy["params"]["_meta"][subscription_key] = listener.client_id;
    if (auto out = listener.out.lock()) out->push(jsonrpc::serialize(copy));
  }
  return true;
}

namespace {

// Reads a legacy lane's GET stream (what its server sends outside any
// request) for the lane's listen streams, while the session lives.
asio::awaitable<void> pumpLaneStream(std::shared_ptr<Lane> lane, std::shared_ptr<Mailbox> stream) {
  for (;;) {
    Mailbox::Batch batch = co_await stream->next();
    for (const auto& text : batch.messages) {
      if (text.empty()) continue;
      json message = jsonrpc::parse(text, kReparseDepth).value_or(json());
      const auto kind = jsonrpc::classify(message);
      if (kind == jsonrpc::Kind::kNotification) {
        (void)deliverToListeners(*lane, message);
      } else if (kind == jsonrpc::Kind::kRequest) {
        answerLane(*lane->session, message["id"], jsonrpc::kInvalidRequest,
                   "mcpgate cannot ask a modern client outside one of its requests");
      }
    }
    if (batch.finished) {
      std::lock_guard lock(lane->listeners_mu);
      lane->stream_open = false;
      co_return;
    }
  }
}

json subscribeRequest(const json& uri) {
  return {{"jsonrpc", "2.0"},
          {"id", nextGatewayId()},
          {"method", "resources/subscribe"},
          {"params", {{"uri", uri}}}};
}

bool declares(const json& capabilities, const std::string& capability, const std::string& flag) {
  auto it = capabilities.find(capability);
  return it != capabilities.end() && it->is_object() && it->value(flag, false);
}

// subscriptions/listen for a legacy server: the gateway acknowledges what the
// server can notify (its capabilities; a resource by resources/subscribe),
// then hands the server's change notifications to the stream.
}  // namespace

asio::awaitable<void> listenLegacy(std::shared_ptr<Lane> held, json client_id, json asked,
                                   std::shared_ptr<Mailbox> out) {
  auto& pool = LanePool::instance();
  Lane& lane = *held;
  const json caps = lane.offer.capabilities;
  json filter = json::object();
  if (asked.is_object()) {
    if (asked.value("toolsListChanged", false) && declares(caps, "tools", "listChanged")) {
      filter["toolsListChanged"] = true;
    }
    if (asked.value("promptsListChanged", false) && declares(caps, "prompts", "listChanged")) {
      filter["promptsListChanged"] = true;
    }
    if (asked.value("resourcesListChanged", false) && declares(caps, "resources", "listChanged")) {
      filter["resourcesListChanged"] = true;
    }
    auto uris = asked.find("resourceSubscriptions");
    if (uris != asked.end() && uris->is_array() && declares(caps, "resources", "subscribe")) {
      json subscribed = json::array();
      for (const auto& uri : *uris) {
        if (!uri.is_string()) continue;
        // Named, never a temporary inside the co_await expression (g++ 12).
        json subscribe = subscribeRequest(uri);
        auto answer = co_await askLane(*lane.session, std::move(subscribe));
        if (answer && answer->find("\"result\"") != std::string::npos) subscribed.push_back(uri);
      }
      if (!subscribed.empty()) filter["resourceSubscriptions"] = std::move(subscribed);
    }
  }
  const auto executor = co_await asio::this_coro::executor;
  std::shared_ptr<Mailbox> stream;
  {
    std::lock_guard lock(lane.listeners_mu);
    lane.listeners.push_back({"", client_id, filter, out});
    if (!lane.stream_open) {
      stream = std::make_shared<Mailbox>(executor, true, 0);
      lane.stream_open = lane.session->openStream(stream) == ClientSession::StreamResult::kOk;
      if (!lane.stream_open) stream.reset();
    }
  }
  if (stream) asio::co_spawn(executor, pumpLaneStream(held, stream), asio::detached);
  pool.release(held);
  json ack = {{"jsonrpc", "2.0"},
              {"method", "notifications/subscriptions/acknowledged"},
              {"params",
               {{"_meta", {{std::string(modern::kMetaSubscriptionId), client_id}}},
                {"notifications", std::move(filter)}}}};
  out->push(jsonrpc::serialize(ack));
}

}  // namespace mcpgate::gateway
