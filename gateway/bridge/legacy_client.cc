#include "gateway/bridge/legacy_client.h"

#include <algorithm>
#include <array>

#include "gateway/mcp/jsonrpc.h"
#include "gateway/modern/front.h"

namespace mcpgate::gateway::bridge {

namespace {

constexpr std::string_view kReservedPrefix = "io.modelcontextprotocol/";

// The capability a legacy client must have declared for the gateway to
// relay an input request of `method`; empty for an unknown method.
std::string_view capabilityFor(std::string_view method) {
  if (method == "sampling/createMessage") return "sampling";
  if (method == "elicitation/create") return "elicitation";
  if (method == "roots/list") return "roots";
  return {};
}

void dropReservedMeta(json& object) {
  auto meta = object.find("_meta");
  if (meta == object.end() || !meta->is_object()) return;
  for (auto it = meta->begin(); it != meta->end();) {
    if (std::string_view(it.key()).starts_with(kReservedPrefix)) {
      it = meta->erase(it);
    } else {
      ++it;
    }
  }
  if (meta->empty()) object.erase("_meta");
}

}  // namespace

ClientEnvelope envelopeFrom(const json& initialize_params, std::string version) {
  ClientEnvelope envelope;
  envelope.version = std::move(version);
  if (!initialize_params.is_object()) return envelope;
  if (auto it = initialize_params.find("clientInfo");
      it != initialize_params.end() && it->is_object()) {
    envelope.client_info = *it;
  }
  if (auto it = initialize_params.find("capabilities");
      it != initialize_params.end() && it->is_object()) {
    envelope.capabilities = *it;
  }
  return envelope;
}

void addEnvelope(json& request, const ClientEnvelope& envelope) {
  if (!request.contains("params") || !request["params"].is_object()) {
    request["params"] = json::object();
  }
  json& params = request["params"];
  if (!params.contains("_meta") || !params["_meta"].is_object()) params["_meta"] = json::object();
  json& meta = params["_meta"];
  for (auto it = meta.begin(); it != meta.end();) {
    if (std::string_view(it.key()).starts_with(kReservedPrefix)) {
      it = meta.erase(it);
    } else {
      ++it;
    }
  }
  meta[std::string(modern::kMetaProtocolVersion)] = envelope.version;
  meta[std::string(modern::kMetaClientInfo)] = envelope.client_info;
  meta[std::string(modern::kMetaClientCapabilities)] = envelope.capabilities;
  if (!envelope.log_level.empty()) meta[std::string(modern::kMetaLogLevel)] = envelope.log_level;
}

json initializeResult(const json& discover, std::string_view requested) {
  const auto& legacy = jsonrpc::kProtocolVersions;
  const bool known = std::ranges::find(legacy, requested) != std::end(legacy);
  json result = {
      {"protocolVersion", known ? requested : legacy[std::size(legacy) - 1]},
      {"capabilities", json::object()},
      {"serverInfo", {{"name", "mcpgate"}, {"version", "bridge"}}},
  };
  if (!discover.is_object()) return result;
  if (auto it = discover.find("capabilities"); it != discover.end() && it->is_object()) {
    result["capabilities"] = *it;
  }
  if (auto meta = discover.find("_meta"); meta != discover.end() && meta->is_object()) {
    if (auto info = meta->find(std::string(modern::kMetaServerInfo));
        info != meta->end() && info->is_object()) {
      result["serverInfo"] = *info;
    }
  }
  if (auto it = discover.find("instructions"); it != discover.end() && it->is_string()) {
    result["instructions"] = *it;
  }
  return result;
}

std::optional<LocalAnswer> answerLocally(const json& request, std::set<std::string>& subscriptions,
                                         ClientEnvelope& envelope) {
  const std::string method = request.value("method", "");
  const json params = request.value("params", json::object());
  if (method == "logging/setLevel") {
    if (params.is_object() && params.contains("level") && params["level"].is_string()) {
      envelope.log_level = params["level"].get<std::string>();
    }
    return LocalAnswer{json::object(), false};
  }
  if (method == "resources/subscribe" || method == "resources/unsubscribe") {
    if (!params.is_object() || !params.contains("uri") || !params["uri"].is_string()) {
      return std::nullopt;  // malformed: the server's answer says so
    }
    const std::string uri = params["uri"].get<std::string>();
    const bool changed = method == "resources/subscribe" ? subscriptions.insert(uri).second
                                                         : subscriptions.erase(uri) > 0;
    return LocalAnswer{json::object(), changed};
  }
  return std::nullopt;
}

void toLegacyResponse(json& response) {
  if (!response.is_object()) return;
  auto result = response.find("result");
  if (result == response.end() || !result->is_object()) return;
  result->erase("resultType");
  result->erase("ttlMs");
  result->erase("cacheScope");
  dropReservedMeta(*result);
}

bool isInputRequired(const json& response) {
  if (!response.is_object()) return false;
  auto result = response.find("result");
  return result != response.end() && result->is_object() &&
         result->value("resultType", json()) == "input_required";
}

std::expected<InputRound, std::string> inputRound(const json& result,
                                                  const ClientEnvelope& envelope) {
  InputRound round;
  if (auto state = result.find("requestState"); state != result.end()) {
    if (!state->is_string()) return std::unexpected("the server's requestState is not a string");
    if (state->get_ref<const std::string&>().size() > kMaxRequestStateBytes) {
      return std::unexpected("the server's requestState is over " +
                             std::to_string(kMaxRequestStateBytes) + " bytes");
    }
    round.request_state = state->get<std::string>();
  }
  auto requests = result.find("inputRequests");
  if (requests != result.end()) {
    if (!requests->is_object()) return std::unexpected("inputRequests is not an object");
    if (requests->size() > kMaxInputRequests) {
      return std::unexpected("the server asks " + std::to_string(requests->size()) +
                             " inputs at once (at most " + std::to_string(kMaxInputRequests) + ")");
    }
    for (const auto& [key, value] : requests->items()) {
      if (!value.is_object() || !value.contains("method") || !value["method"].is_string()) {
        return std::unexpected("input request '" + key + "' has no method");
      }
      const std::string method = value["method"].get<std::string>();
      const std::string_view capability = capabilityFor(method);
      if (capability.empty()) {
        return std::unexpected("input request '" + key + "' is " + method +
                               ", not sampling, elicitation or roots");
      }
      if (!envelope.capabilities.contains(capability)) {
        return std::unexpected("the server asks for " + method +
                               ", which the client did not "
                               "declare (capability '" +
                               std::string(capability) + "')");
      }
      json request = {{"method", method}};
      if (value.contains("params")) request["params"] = value["params"];
      round.requests.emplace_back(key, std::move(request));
    }
  }
  if (round.requests.empty() && !round.request_state) {
    return std::unexpected("an InputRequiredResult with neither inputRequests nor requestState");
  }
  return round;
}

json serverRequest(const json& id, const json& input_request) {
  json request = {{"jsonrpc", "2.0"}, {"id", id}, {"method", input_request.value("method", "")}};
  if (input_request.contains("params")) request["params"] = input_request["params"];
  return request;
}

json retryRequest(const json& original, const json& new_id, const json& responses,
                  const std::optional<std::string>& request_state) {
  json retry = original;
  retry["id"] = new_id;
  if (!retry.contains("params") || !retry["params"].is_object()) retry["params"] = json::object();
  json& params = retry["params"];
  params.erase("inputResponses");
  params.erase("requestState");
  if (responses.is_object() && !responses.empty()) params["inputResponses"] = responses;
  if (request_state) params["requestState"] = *request_state;
  return retry;
}

json listenRequest(const json& id, const ClientEnvelope& envelope, const json& server_capabilities,
                   const std::set<std::string>& subscriptions) {
  json filter = json::object();
  const auto offers = [&](std::string_view kind, std::string_view flag) {
    auto it = server_capabilities.find(kind);
    return it != server_capabilities.end() && it->is_object() && it->value(flag, false) == true;
  };
  if (offers("tools", "listChanged")) filter["toolsListChanged"] = true;
  if (offers("prompts", "listChanged")) filter["promptsListChanged"] = true;
  if (offers("resources", "listChanged")) filter["resourcesListChanged"] = true;
  if (offers("resources", "subscribe") && !subscriptions.empty()) {
    filter["resourceSubscriptions"] = json(subscriptions);
  }
  json request = {{"jsonrpc", "2.0"},
                  {"id", id},
                  {"method", "subscriptions/listen"},
                  {"params", {{"notifications", filter}}}};
  addEnvelope(request, envelope);
  return request;
}

std::optional<json> toLegacyNotification(json notification) {
  if (!notification.is_object()) return std::nullopt;
  if (notification.value("method", "") == "notifications/subscriptions/acknowledged") {
    return std::nullopt;
  }
  if (auto params = notification.find("params");
      params != notification.end() && params->is_object()) {
    dropReservedMeta(*params);
  }
  return notification;
}

}  // namespace mcpgate::gateway::bridge
