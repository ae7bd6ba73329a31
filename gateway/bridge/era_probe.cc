#include "gateway/bridge/era_probe.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "gateway/modern/front.h"

namespace mcpgate::gateway::bridge {

namespace {

// The modern revision both sides speak, from a list the server gave: ours in
// our order of preference.
std::optional<std::string> mutualModern(const json& versions) {
  if (!versions.is_array()) return std::nullopt;
  for (std::string_view ours : jsonrpc::kModernProtocolVersions) {
    if (std::ranges::find(versions, json(ours)) != versions.end()) return std::string(ours);
  }
  return std::nullopt;
}

bool isStringList(const json& value) {
  return value.is_array() && !value.empty() &&
         std::ranges::all_of(value, [](const json& v) { return v.is_string(); });
}

std::expected<EraVerdict, std::string> legacyUnless(gateway::EraChoice choice,
                                                    const std::string& why) {
  if (choice == gateway::EraChoice::kModern) {
    return std::unexpected("the config says protocol: modern, but " + why);
  }
  return EraVerdict{Era::kLegacy, {}, json::object()};
}

std::expected<EraVerdict, std::string> fromResult(gateway::EraChoice choice, const json& result) {
  // A DiscoverResult: supportedVersions (strings) and capabilities.
  if (!result.is_object() || !isStringList(result.value("supportedVersions", json())) ||
      !result.value("capabilities", json()).is_object()) {
    return legacyUnless(choice, "its answer to server/discover is not a DiscoverResult");
  }
  auto version = mutualModern(result["supportedVersions"]);
  if (!version) {
    return legacyUnless(choice, "it supports none of the gateway's modern versions (it offers " +
                                    result["supportedVersions"].dump() + ")");
  }
  return EraVerdict{Era::kModern, std::move(*version), result};
}

std::expected<EraVerdict, std::string> fromError(gateway::EraChoice choice, ProbeTransport transport,
                                                 const json& error) {
  const json code = error.is_object() ? error.value("code", json()) : json();
  // Over HTTP a modern server refuses a request it cannot take with a modern
  // error (streamable-http.mdx "Backward Compatibility"): the server is
  // modern and the probe was wrong, so there is no falling back.
  if (transport == ProbeTransport::kHttp && code.is_number_integer() &&
      (code.get<long long>() == jsonrpc::kHeaderMismatch ||
       code.get<long long>() == jsonrpc::kMissingRequiredClientCapability)) {
    return std::unexpected("the server speaks modern MCP but refused the gateway's probe (" +
                           error.dump() + ")");
  }
  if (code.is_number_integer() && code.get<long long>() == jsonrpc::kUnsupportedProtocolVersion) {
    const json data = error.value("data", json());
    const json supported = data.is_object() ? data.value("supported", json()) : json();
    if (isStringList(supported)) {
      if (auto version = mutualModern(supported)) {
        return EraVerdict{Era::kModern, std::move(*version), json::object()};
      }
      const bool offers_modern = std::ranges::any_of(
          supported, [](const json& v) { return modern::isModernVersion(v.get<std::string>()); });
      if (offers_modern) {
        return std::unexpected(
            "the server speaks modern MCP, but none of the gateway's versions "
            "(it supports " +
            supported.dump() + ")");
      }
      return legacyUnless(choice, "it supports only legacy versions (" + supported.dump() + ")");
    }
  }
  // Any other error, whatever its code: a legacy server refusing a request
  // before initialize (-32601, -32602, -32600, ... or a code of its own).
  return legacyUnless(choice,
                      "it answered server/discover with an error that is not a modern "
                      "one (" +
                          (error.is_null() ? std::string("none") : error.dump()) + ")");
}

}  // namespace

json discoverRequest(const json& id, std::string_view gateway_version) {
  return {{"jsonrpc", "2.0"},
          {"id", id},
          {"method", "server/discover"},
          {"params",
           {{"_meta",
             {{std::string(modern::kMetaProtocolVersion), jsonrpc::kModernProtocolVersions[0]},
              {std::string(modern::kMetaClientInfo),
               {{"name", "mcpgate"}, {"version", gateway_version}}},
              {std::string(modern::kMetaClientCapabilities), json::object()}}}}}};
}

ProbeOutcome httpProbeOutcome(const json& answer) {
  const json* error = answer.is_object() && answer.contains("error") ? &answer["error"] : nullptr;
  const json data = error != nullptr && error->is_object() ? error->value("data", json()) : json();
  if (!data.is_object() || data.value("gateway", json()) != "mcpgate") {
    return {ProbeOutcome::Kind::kResponse, answer, 0, {}, {}};
  }
  const std::string message = error->value("message", json()).is_string()
                                  ? (*error)["message"].get<std::string>()
                                  : std::string("no answer");
  const json status = data.value("status", json());
  if (status.is_number_integer() && status.get<long long>() >= 100 &&
      status.get<long long>() < 1000) {
    return {ProbeOutcome::Kind::kHttpStatus, nullptr,
            static_cast<unsigned>(status.get<long long>()), {}, message};
  }
  if (data.value("reason", json()) == "upstream_timeout") {
    return {ProbeOutcome::Kind::kNoAnswer, nullptr, 0, {}, message};
  }
  return {ProbeOutcome::Kind::kNetworkError, nullptr, 0, {}, message};
}

std::expected<EraVerdict, std::string> decideEra(gateway::EraChoice choice,
                                                 ProbeTransport transport,
                                                 const ProbeOutcome& outcome) {
  if (choice == gateway::EraChoice::kLegacy) return EraVerdict{Era::kLegacy, {}, json::object()};
  switch (outcome.kind) {
    case ProbeOutcome::Kind::kResponse: {
      const json& response = outcome.response;
      if (!response.is_object()) {
        return legacyUnless(choice, "its answer is not a JSON-RPC response");
      }
      if (auto it = response.find("result"); it != response.end()) return fromResult(choice, *it);
      return fromError(choice, transport, response.value("error", json()));
    }
    case ProbeOutcome::Kind::kHttpStatus: {
      const unsigned status = outcome.http_status;
      if (status == 401 || status == 403) {
        return std::unexpected("the server refused the probe with HTTP " + std::to_string(status) +
                               " (authorization, not an era)");
      }
      if (status >= 500) {
        return std::unexpected("the server failed the probe with HTTP " + std::to_string(status));
      }
      // A 4xx: a modern error body names a modern server; anything else
      // (no body, HTML, a legacy server's own error) a legacy one.
      json body = json::parse(outcome.body, nullptr, /*allow_exceptions=*/false);
      if (body.is_object() && body.contains("error") && body["error"].is_object()) {
        return fromError(choice, transport, body["error"]);
      }
      return legacyUnless(choice, "it answered the modern request with HTTP " +
                                      std::to_string(status) + " and no modern error");
    }
    case ProbeOutcome::Kind::kNoAnswer:
      // stdio: a legacy server may ignore a request before initialize. HTTP
      // has no such excuse: an answer never came.
      if (transport == ProbeTransport::kStdio) {
        return legacyUnless(choice, "it did not answer server/discover (" + outcome.detail + ")");
      }
      return std::unexpected("the server did not answer the probe (" + outcome.detail + ")");
    case ProbeOutcome::Kind::kNetworkError:
      return std::unexpected("the probe could not reach the server (" + outcome.detail + ")");
  }
  return std::unexpected("unknown probe outcome");
}

}  // namespace mcpgate::gateway::bridge
