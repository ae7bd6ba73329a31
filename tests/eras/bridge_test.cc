// The back half of the two eras: deciding a server's era from its answer to
// the probe (as the spec and the SDK v2 client decide it), and what the
// gateway says and sends for a legacy client in front of a modern server.

#include <gtest/gtest.h>

#include <string>

#include "gateway/bridge/era_probe.h"
#include "gateway/bridge/legacy_client.h"

namespace mcpgate::gateway::bridge {
namespace {

using Kind = ProbeOutcome::Kind;

ProbeOutcome response(json body) { return {Kind::kResponse, std::move(body), 0, {}, {}}; }
ProbeOutcome http(unsigned status, std::string body) {
  return {Kind::kHttpStatus, nullptr, status, std::move(body), {}};
}

// A DiscoverResult as the v2 SDK server sends it.
json discoverResult(json versions = json::array({"2026-07-28"})) {
  return {
      {"supportedVersions", versions},
      {"capabilities",
       {{"tools", {{"listChanged", true}}},
        {"resources", {{"subscribe", true}, {"listChanged", true}}}}},
      {"resultType", "complete"},
      {"instructions", "use the echo tool"},
      {"_meta", {{"io.modelcontextprotocol/serverInfo", {{"name", "v2"}, {"version", "2.4"}}}}}};
}

json rpcError(int code, json data = nullptr) {
  json error = {{"code", code}, {"message", "no"}};
  if (!data.is_null()) error["data"] = data;
  return {{"jsonrpc", "2.0"}, {"id", "p"}, {"error", error}};
}

Era eraOf(const std::expected<EraVerdict, std::string>& verdict) {
  return verdict ? verdict->era : Era::kUnknown;
}

constexpr auto kAuto = gateway::EraChoice::kAuto;
constexpr auto kModern = gateway::EraChoice::kModern;
constexpr auto kStdio = ProbeTransport::kStdio;
constexpr auto kHttp = ProbeTransport::kHttp;

TEST(EraProbe, ADiscoverResultNamingOurVersionIsAModernServer) {
  auto verdict = decideEra(
      kAuto, kStdio, response({{"jsonrpc", "2.0"}, {"id", "p"}, {"result", discoverResult()}}));
  ASSERT_TRUE(verdict) << verdict.error();
  EXPECT_EQ(verdict->era, Era::kModern);
  EXPECT_EQ(verdict->version, "2026-07-28");
  EXPECT_EQ(verdict->discover["instructions"], "use the echo tool");
}

TEST(EraProbe, AnyOtherErrorIsALegacyServerWhateverItsCode) {
  // The fallback is never keyed to one code (stdio.mdx).
  for (int code : {-32601, -32602, -32600, -32603, -32000, -32001, -32020, -32021, 42}) {
    EXPECT_EQ(eraOf(decideEra(kAuto, kStdio, response(rpcError(code)))), Era::kLegacy) << code;
  }
  // Not a DiscoverResult (a legacy server answering anything with {}).
  EXPECT_EQ(
      eraOf(decideEra(kAuto, kStdio,
                      response({{"jsonrpc", "2.0"}, {"id", "p"}, {"result", json::object()}}))),
      Era::kLegacy);
}

TEST(EraProbe, UnsupportedVersionNamingOursIsModernNamingOnlyLegacyIsLegacy) {
  auto ours = decideEra(kAuto, kStdio,
                        response(rpcError(-32022, {{"supported", {"2027-01-01", "2026-07-28"}},
                                                   {"requested", "2026-07-28"}})));
  ASSERT_TRUE(ours);
  EXPECT_EQ(ours->era, Era::kModern);
  EXPECT_EQ(ours->version, "2026-07-28");
  // A legacy server that borrowed -32022 for initialize-era versions.
  EXPECT_EQ(
      eraOf(decideEra(kAuto, kStdio,
                      response(rpcError(-32022, {{"supported", {"2025-06-18", "2025-11-25"}}})))),
      Era::kLegacy);
  // Modern, but none of ours: no fallback to initialize, an error.
  auto newer =
      decideEra(kAuto, kStdio, response(rpcError(-32022, {{"supported", {"2027-01-01"}}})));
  ASSERT_FALSE(newer);
  EXPECT_NE(newer.error().find("2027-01-01"), std::string::npos) << newer.error();
  // -32022 without a usable supported list is no evidence.
  EXPECT_EQ(eraOf(decideEra(kAuto, kStdio, response(rpcError(-32022)))), Era::kLegacy);
}

TEST(EraProbe, SilenceOnStdioIsLegacyOnHttpAnError) {
  ProbeOutcome silent{Kind::kNoAnswer, nullptr, 0, {}, "no answer in 3 s"};
  EXPECT_EQ(eraOf(decideEra(kAuto, kStdio, silent)), Era::kLegacy);
  auto over_http = decideEra(kAuto, kHttp, silent);
  ASSERT_FALSE(over_http);
  EXPECT_NE(over_http.error().find("no answer in 3 s"), std::string::npos);
  EXPECT_FALSE(decideEra(kAuto, kHttp, {Kind::kNetworkError, nullptr, 0, {}, "refused"}));
}

TEST(EraProbe, HttpA400WithoutAModernBodyIsLegacy) {
  EXPECT_EQ(eraOf(decideEra(kAuto, kHttp, http(400, ""))), Era::kLegacy);
  EXPECT_EQ(eraOf(decideEra(kAuto, kHttp, http(400, "Bad Request: No valid session ID"))),
            Era::kLegacy);
  EXPECT_EQ(eraOf(decideEra(kAuto, kHttp, http(404, "<html>not found</html>"))), Era::kLegacy);
  EXPECT_EQ(eraOf(decideEra(kAuto, kHttp, http(400, rpcError(-32000).dump()))), Era::kLegacy);
  // The same 400 with -32022 naming our version: modern, correct the request.
  EXPECT_EQ(eraOf(decideEra(kAuto, kHttp,
                            http(400, rpcError(-32022, {{"supported", {"2026-07-28"}}}).dump()))),
            Era::kModern);
}

TEST(EraProbe, HttpAuthAndServerFailuresAreNotEraEvidence) {
  for (unsigned status : {401u, 403u, 500u, 502u, 503u}) {
    auto verdict = decideEra(kAuto, kHttp, http(status, ""));
    ASSERT_FALSE(verdict) << status;
    EXPECT_NE(verdict.error().find(std::to_string(status)), std::string::npos);
  }
}

// What the remote upstream hands back for the probe POST: the server's own
// JSON-RPC answer (a 4xx with a JSON-RPC error body comes as that error), or
// the gateway's error for an exchange without one.
json gatewayFailure(json data) {
  data["gateway"] = "mcpgate";
  return {{"jsonrpc", "2.0"},
          {"id", "p"},
          {"error", {{"code", -32603}, {"message", "MCP server 'r' answered HTTP"}, {"data", data}}}};
}

TEST(EraProbe, HttpAnswersAsTheRemoteUpstreamHandsThemBack) {
  // A legacy SDK server's 400 to a POST without a session: a JSON-RPC body,
  // but no modern error. Legacy.
  const json no_session = {{"jsonrpc", "2.0"},
                           {"id", "p"},
                           {"error", {{"code", -32000}, {"message", "No valid session ID"}}}};
  EXPECT_EQ(eraOf(decideEra(kAuto, kHttp, httpProbeOutcome(no_session))), Era::kLegacy);
  // A 400 without a JSON-RPC body (HTML, empty): legacy.
  auto bare = httpProbeOutcome(gatewayFailure({{"status", 400}, {"reason", "upstream_http_error"}}));
  EXPECT_EQ(bare.kind, Kind::kHttpStatus);
  EXPECT_EQ(bare.http_status, 400u);
  EXPECT_EQ(eraOf(decideEra(kAuto, kHttp, bare)), Era::kLegacy);
  // -32022 naming our version (a modern server's 400): modern, no fallback.
  auto unsupported = decideEra(
      kAuto, kHttp, httpProbeOutcome(rpcError(-32022, {{"supported", {"2026-07-28"}}})));
  ASSERT_TRUE(unsupported) << unsupported.error();
  EXPECT_EQ(unsupported->era, Era::kModern);
  // A DiscoverResult: modern.
  EXPECT_EQ(eraOf(decideEra(kAuto, kHttp,
                            httpProbeOutcome({{"jsonrpc", "2.0"},
                                              {"id", "p"},
                                              {"result", discoverResult()}}))),
            Era::kModern);
  // Auth refusals, server failures, timeouts and unreachable remotes say
  // nothing of the era: the client gets an error, not a legacy session.
  for (int status : {401, 403, 500, 503}) {
    EXPECT_FALSE(decideEra(kAuto, kHttp,
                           httpProbeOutcome(gatewayFailure(
                               {{"status", status}, {"reason", "upstream_http_error"}}))))
        << status;
  }
  auto timeout = httpProbeOutcome(gatewayFailure({{"reason", "upstream_timeout"}}));
  EXPECT_EQ(timeout.kind, Kind::kNoAnswer);
  EXPECT_FALSE(decideEra(kAuto, kHttp, timeout));
  auto unreachable = httpProbeOutcome(gatewayFailure({{"reason", "upstream_unreachable"}}));
  EXPECT_EQ(unreachable.kind, Kind::kNetworkError);
  EXPECT_FALSE(decideEra(kAuto, kHttp, unreachable));
  // A server's own data.gateway is not the gateway's: only the gateway's
  // error of an exchange without an answer is read as a status.
  json forged = rpcError(-32000, {{"gateway", "someone"}, {"status", 401}});
  EXPECT_EQ(httpProbeOutcome(forged).kind, Kind::kResponse);
}

TEST(EraProbe, HttpAModernRefusalOfTheProbeIsNoFallback) {
  // HeaderMismatch and MissingRequiredClientCapability are modern errors over
  // HTTP (streamable-http.mdx "Backward Compatibility"): the server is
  // modern and the gateway's request was wrong; falling back to initialize
  // would only fail again.
  for (int code : {-32020, -32021}) {
    auto verdict = decideEra(kAuto, kHttp, httpProbeOutcome(rpcError(code)));
    ASSERT_FALSE(verdict) << code;
    EXPECT_NE(verdict.error().find("modern"), std::string::npos) << verdict.error();
    EXPECT_FALSE(decideEra(kAuto, kHttp, http(400, rpcError(code).dump()))) << code;
  }
}

TEST(EraProbe, ProtocolModernNeverFallsBackProtocolLegacyNeverProbes) {
  auto refused = decideEra(kModern, kStdio, response(rpcError(-32601)));
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("protocol: modern"), std::string::npos) << refused.error();
  EXPECT_FALSE(decideEra(kModern, kHttp, http(400, "")));
  EXPECT_EQ(
      eraOf(decideEra(kModern, kStdio,
                      response({{"jsonrpc", "2.0"}, {"id", "p"}, {"result", discoverResult()}}))),
      Era::kModern);
  // protocol: legacy decides without looking at any answer.
  EXPECT_EQ(
      eraOf(decideEra(gateway::EraChoice::kLegacy, kStdio,
                      response({{"jsonrpc", "2.0"}, {"id", "p"}, {"result", discoverResult()}}))),
      Era::kLegacy);
}

TEST(EraProbe, TheProbeCarriesTheModernEnvelope) {
  const json probe = discoverRequest("mcpgate-probe", "1.2.3");
  EXPECT_EQ(probe["method"], "server/discover");
  EXPECT_EQ(probe["id"], "mcpgate-probe");
  const json& meta = probe["params"]["_meta"];
  EXPECT_EQ(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
  EXPECT_EQ(meta["io.modelcontextprotocol/clientInfo"]["version"], "1.2.3");
  EXPECT_TRUE(meta["io.modelcontextprotocol/clientCapabilities"].is_object());
}

// --- a legacy client in front of a modern server ---

json legacyInitialize() {
  return {{"protocolVersion", "2025-06-18"},
          {"capabilities", {{"sampling", json::object()}, {"elicitation", json::object()}}},
          {"clientInfo", {{"name", "sdk1"}, {"version", "1.32.2"}}}};
}

TEST(LegacyClient, InitializeIsAnsweredFromTheServersDiscover) {
  const json result = initializeResult(discoverResult(), "2025-06-18");
  EXPECT_EQ(result["protocolVersion"], "2025-06-18");
  EXPECT_EQ(result["serverInfo"]["name"], "v2");
  EXPECT_EQ(result["capabilities"]["tools"]["listChanged"], true);
  EXPECT_EQ(result["instructions"], "use the echo tool");
  EXPECT_FALSE(result.contains("resultType"));
  EXPECT_FALSE(result.contains("supportedVersions"));
  // A version the gateway does not speak gets its newest legacy one.
  EXPECT_EQ(initializeResult(discoverResult(), "2024-11-05")["protocolVersion"], "2025-11-25");
}

TEST(LegacyClient, EveryRequestUpstreamCarriesTheClientsEnvelope) {
  ClientEnvelope envelope = envelopeFrom(legacyInitialize(), "2026-07-28");
  json request = {
      {"jsonrpc", "2.0"},
      {"id", 7},
      {"method", "tools/call"},
      {"params",
       {{"name", "echo"},
        {"arguments", {{"text", "x"}}},
        {"_meta", {{"progressToken", 3}, {"io.modelcontextprotocol/protocolVersion", "1999"}}}}}};
  addEnvelope(request, envelope);
  const json& meta = request["params"]["_meta"];
  EXPECT_EQ(meta["progressToken"], 3);
  EXPECT_EQ(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
  EXPECT_EQ(meta["io.modelcontextprotocol/clientInfo"]["name"], "sdk1");
  EXPECT_TRUE(meta["io.modelcontextprotocol/clientCapabilities"].contains("sampling"));
  EXPECT_FALSE(meta.contains("io.modelcontextprotocol/logLevel"));

  // logging/setLevel is answered here and rides the envelope from then on.
  std::set<std::string> subscriptions;
  auto answered = answerLocally({{"method", "logging/setLevel"}, {"params", {{"level", "debug"}}}},
                                subscriptions, envelope);
  ASSERT_TRUE(answered);
  EXPECT_EQ(answered->result, json::object());
  json ping = {{"jsonrpc", "2.0"}, {"id", 8}, {"method", "ping"}};
  EXPECT_FALSE(answerLocally(ping, subscriptions, envelope));
  addEnvelope(ping, envelope);
  EXPECT_EQ(ping["params"]["_meta"]["io.modelcontextprotocol/logLevel"], "debug");
}

TEST(LegacyClient, ModernFieldsAreStrippedFromResults) {
  json response = {{"jsonrpc", "2.0"},
                   {"id", 1},
                   {"result",
                    {{"tools", json::array()},
                     {"resultType", "complete"},
                     {"ttlMs", 0},
                     {"cacheScope", "private"},
                     {"_meta", {{"io.modelcontextprotocol/serverInfo", {{"name", "v2"}}}}}}}};
  toLegacyResponse(response);
  EXPECT_EQ(response["result"], json({{"tools", json::array()}}));
  json kept = {{"jsonrpc", "2.0"},
               {"id", 1},
               {"result", {{"content", json::array()}, {"_meta", {{"trace", "t"}}}}}};
  toLegacyResponse(kept);
  EXPECT_EQ(kept["result"]["_meta"], json({{"trace", "t"}}));
  json error = rpcError(-32602);
  toLegacyResponse(error);
  EXPECT_EQ(error, rpcError(-32602));
}

json inputRequired(json requests, std::optional<std::string> state = std::nullopt) {
  json result = {{"resultType", "input_required"}};
  if (!requests.is_null()) result["inputRequests"] = requests;
  if (state) result["requestState"] = *state;
  return result;
}

TEST(LegacyClient, AnInputRequiredResultBecomesServerRequestsAndARetry) {
  const ClientEnvelope envelope = envelopeFrom(legacyInitialize(), "2026-07-28");
  const json sample = {{"method", "sampling/createMessage"},
                       {"params", {{"messages", json::array()}, {"maxTokens", 5}}}};
  const json who = {{"method", "elicitation/create"}, {"params", {{"message", "who?"}}}};
  const json result = inputRequired({{"sample", sample}, {"who", who}}, "opaque-state");
  EXPECT_TRUE(isInputRequired({{"jsonrpc", "2.0"}, {"id", 1}, {"result", result}}));
  EXPECT_FALSE(isInputRequired({{"jsonrpc", "2.0"}, {"id", 1}, {"result", {{"content", 1}}}}));

  auto round = inputRound(result, envelope);
  ASSERT_TRUE(round) << round.error();
  ASSERT_EQ(round->requests.size(), 2u);
  EXPECT_EQ(round->requests[0].first, "sample");
  EXPECT_EQ(round->request_state, "opaque-state");
  const json asked = serverRequest("mcpgate-in-1", round->requests[0].second);
  EXPECT_EQ(asked, json({{"jsonrpc", "2.0"},
                         {"id", "mcpgate-in-1"},
                         {"method", "sampling/createMessage"},
                         {"params", sample["params"]}}));

  json original = {{"jsonrpc", "2.0"},
                   {"id", 4},
                   {"method", "tools/call"},
                   {"params", {{"name", "sample"}, {"_meta", {{"k", 1}}}}}};
  const json answers = {{"sample", {{"role", "assistant"}, {"content", {{"type", "text"}}}}},
                        {"who", {{"action", "accept"}}}};
  const json retry = retryRequest(original, "mcpgate-retry-1", answers, round->request_state);
  EXPECT_EQ(retry["id"], "mcpgate-retry-1");
  EXPECT_EQ(retry["params"]["name"], "sample");
  EXPECT_EQ(retry["params"]["_meta"], json({{"k", 1}}));
  EXPECT_EQ(retry["params"]["inputResponses"], answers);
  EXPECT_EQ(retry["params"]["requestState"], "opaque-state");
  // No state this round: none in the retry, even if an earlier one had one.
  const json again = retryRequest(retry, "mcpgate-retry-2", answers, std::nullopt);
  EXPECT_FALSE(again["params"].contains("requestState"));
}

TEST(LegacyClient, InputRequestsTheClientCannotAnswerAreRefused) {
  ClientEnvelope sampling_only = envelopeFrom(
      {{"capabilities", {{"sampling", json::object()}}}, {"clientInfo", json::object()}},
      "2026-07-28");
  auto undeclared = inputRound(
      inputRequired({{"who", {{"method", "elicitation/create"}, {"params", json::object()}}}}),
      sampling_only);
  ASSERT_FALSE(undeclared);
  EXPECT_NE(undeclared.error().find("elicitation"), std::string::npos) << undeclared.error();

  const ClientEnvelope envelope = envelopeFrom(legacyInitialize(), "2026-07-28");
  EXPECT_FALSE(inputRound(inputRequired({{"x", {{"method", "tools/call"}}}}), envelope));
  EXPECT_FALSE(inputRound(inputRequired({{"x", "not a request"}}), envelope));
  EXPECT_FALSE(inputRound(inputRequired(nullptr), envelope));  // neither field
  json many = json::object();
  for (std::size_t i = 0; i <= kMaxInputRequests; ++i) {
    many["k" + std::to_string(i)] = {{"method", "sampling/createMessage"}};
  }
  EXPECT_FALSE(inputRound(inputRequired(many), envelope));
  // A requestState is opaque, but not unbounded.
  EXPECT_TRUE(
      inputRound(inputRequired(nullptr, std::string(kMaxRequestStateBytes, 'a')), envelope));
  auto huge =
      inputRound(inputRequired(nullptr, std::string(kMaxRequestStateBytes + 1, 'a')), envelope);
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().find("requestState"), std::string::npos);
}

TEST(LegacyClient, SubscriptionsBecomeTheListenFilter) {
  ClientEnvelope envelope = envelopeFrom(legacyInitialize(), "2026-07-28");
  std::set<std::string> subscriptions;
  auto first = answerLocally({{"method", "resources/subscribe"}, {"params", {{"uri", "demo://a"}}}},
                             subscriptions, envelope);
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->listen_changed);
  EXPECT_FALSE(answerLocally({{"method", "resources/subscribe"}, {"params", {{"uri", "demo://a"}}}},
                             subscriptions, envelope)
                   ->listen_changed);

  const json caps = discoverResult()["capabilities"];
  const json listen = listenRequest("mcpgate-listen", envelope, caps, subscriptions);
  EXPECT_EQ(listen["method"], "subscriptions/listen");
  EXPECT_EQ(listen["params"]["notifications"], json({{"toolsListChanged", true},
                                                     {"resourcesListChanged", true},
                                                     {"resourceSubscriptions", {"demo://a"}}}));
  EXPECT_EQ(listen["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");

  EXPECT_TRUE(
      answerLocally({{"method", "resources/unsubscribe"}, {"params", {{"uri", "demo://a"}}}},
                    subscriptions, envelope)
          ->listen_changed);
  EXPECT_FALSE(listenRequest(1, envelope, caps, subscriptions)["params"]["notifications"].contains(
      "resourceSubscriptions"));

  EXPECT_FALSE(toLegacyNotification({{"jsonrpc", "2.0"},
                                     {"method", "notifications/subscriptions/acknowledged"},
                                     {"params", json::object()}}));
  auto changed = toLegacyNotification(
      {{"jsonrpc", "2.0"},
       {"method", "notifications/tools/list_changed"},
       {"params", {{"_meta", {{"io.modelcontextprotocol/subscriptionId", "mcpgate-listen"}}}}}});
  ASSERT_TRUE(changed);
  EXPECT_EQ(*changed, json({{"jsonrpc", "2.0"},
                            {"method", "notifications/tools/list_changed"},
                            {"params", json::object()}}));
}

}  // namespace
}  // namespace mcpgate::gateway::bridge
