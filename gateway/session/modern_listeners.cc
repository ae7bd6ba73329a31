// The listen streams of a lane (subscriptions/listen): which of them a
// server's change notification goes to.
#include "gateway/session/modern_listeners.h"

#include <algorithm>
#include <mutex>
#include <string>
#include <string_view>

#include "gateway/mcp/jsonrpc.h"
#include "gateway/modern/front.h"

namespace mcpgate::gateway {

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

}  // namespace mcpgate::gateway
