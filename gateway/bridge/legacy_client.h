#pragma once

// A legacy (2025-era) client in front of a modern (2026-07-28) server: what
// the gateway says and sends in the client's place. The gateway holds the
// client's session; the server sees stateless modern requests.
//
// - initialize is answered by the gateway from the server's server/discover;
//   what the client declared (capabilities, clientInfo) becomes the envelope
//   of every request it sends upstream, with the modern protocol version.
// - logging/setLevel is answered by the gateway; the level rides the envelope
//   (io.modelcontextprotocol/logLevel). resources/subscribe and unsubscribe
//   are answered by the gateway and change the subscriptions/listen filter.
// - A modern result loses what a legacy client does not know (resultType,
//   ttlMs, cacheScope, the serverInfo stamp); an InputRequiredResult becomes
//   server requests to the client (sampling/createMessage,
//   elicitation/create, roots/list), whose answers go back upstream as
//   inputResponses with the server's requestState, in a retry of the request.
//
// Pure: JSON in, JSON out.

#include <cstddef>
#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcpgate::gateway::bridge {

using nlohmann::json;

// A server's requestState is opaque to the gateway, but it is kept (and sent
// back) only up to this size: a server is not given the gateway's memory.
inline constexpr std::size_t kMaxRequestStateBytes = 64 * 1024;
// Input requests in one InputRequiredResult, at most; and rounds of
// input_required for one client request (a server asking forever).
inline constexpr std::size_t kMaxInputRequests = 16;
inline constexpr int kMaxInputRounds = 8;

// What a legacy client said of itself in initialize, for the envelope.
struct ClientEnvelope {
  std::string version;                 // the modern revision used upstream
  json client_info = json::object();   // initialize's clientInfo
  json capabilities = json::object();  // initialize's capabilities
  std::string log_level;               // from logging/setLevel; empty: none
};

// The envelope from a legacy client's initialize params, for `version`.
[[nodiscard]] ClientEnvelope envelopeFrom(const json& initialize_params, std::string version);

// Adds the envelope to a request's params._meta (replacing any reserved
// io.modelcontextprotocol/* keys the legacy client put there itself).
void addEnvelope(json& request, const ClientEnvelope& envelope);

// The InitializeResult the gateway answers a legacy client with, from the
// server's DiscoverResult. `requested` is the client's protocolVersion: kept
// when the gateway speaks it, else the gateway's newest legacy version.
[[nodiscard]] json initializeResult(const json& discover, std::string_view requested);

// What the gateway itself answers, for methods a modern server has no form
// of; nullopt for a method to send upstream. `subscriptions` is updated by
// resources/subscribe and unsubscribe; `envelope` by logging/setLevel.
struct LocalAnswer {
  json result;                  // the JSON-RPC result
  bool listen_changed = false;  // the subscriptions/listen filter must be renewed
};
[[nodiscard]] std::optional<LocalAnswer> answerLocally(const json& request,
                                                       std::set<std::string>& subscriptions,
                                                       ClientEnvelope& envelope);

// Makes a modern result what a legacy client expects: drops resultType,
// ttlMs, cacheScope and the reserved io.modelcontextprotocol/* keys of
// result._meta (an emptied _meta goes too). `response` is a whole JSON-RPC
// response; errors pass unchanged.
void toLegacyResponse(json& response);

// Whether a JSON-RPC response carries an InputRequiredResult.
[[nodiscard]] bool isInputRequired(const json& response);

// The server requests an InputRequiredResult asks of the client, in key
// order, each as (key, {"method","params"}); or why it cannot be relayed
// (too many, a method other than the three, a requestState too large, a
// capability the client did not declare).
struct InputRound {
  std::vector<std::pair<std::string, json>> requests;
  std::optional<std::string> request_state;
};
[[nodiscard]] std::expected<InputRound, std::string> inputRound(const json& result,
                                                                const ClientEnvelope& envelope);

// The JSON-RPC request the gateway sends the legacy client for one input
// request, under the gateway's id.
[[nodiscard]] json serverRequest(const json& id, const json& input_request);

// The retry of `original` (the client's request as sent upstream, envelope
// included) under a new id, carrying `responses` (key -> the client's result)
// and the round's requestState.
[[nodiscard]] json retryRequest(const json& original, const json& new_id, const json& responses,
                                const std::optional<std::string>& request_state);

// The subscriptions/listen request matching what a legacy client can
// receive on its GET stream: every list change the server offers, and the
// resources it subscribed to.
[[nodiscard]] json listenRequest(const json& id, const ClientEnvelope& envelope,
                                 const json& server_capabilities,
                                 const std::set<std::string>& subscriptions);

// A notification from a listen stream as a legacy client receives it: the
// subscription id stamp removed. nullopt for what a legacy client never gets
// (the acknowledgement).
[[nodiscard]] std::optional<json> toLegacyNotification(json notification);

}  // namespace mcpgate::gateway::bridge
