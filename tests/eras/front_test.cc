// The modern front's checks and stamps, as a modern client would meet them.

#include "gateway/modern/front.h"

#include <gtest/gtest.h>

namespace mcpgate::gateway::modern {
namespace {

json modernCall(std::string_view name, json arguments = json::object()) {
  return {{"jsonrpc", "2.0"},
          {"id", 7},
          {"method", "tools/call"},
          {"params",
           {{"name", name},
            {"arguments", std::move(arguments)},
            {"_meta",
             {{std::string(kMetaProtocolVersion), "2026-07-28"},
              {std::string(kMetaClientInfo), {{"name", "t"}, {"version", "1"}}},
              {std::string(kMetaClientCapabilities), json::object()}}}}}};
}

RequestHeaders headersFor(std::string_view method, std::optional<std::string_view> name) {
  RequestHeaders h;
  h.protocol_version = "2026-07-28";
  h.method = method;
  h.name = name;
  return h;
}

TEST(ModernFront, EraIsTheEnvelopeOrAModernHeader) {
  EXPECT_EQ(eraOf(modernCall("echo"), ""), Era::kModern);
  json legacy = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}};
  EXPECT_EQ(eraOf(legacy, "2025-11-25"), Era::kLegacy);
  EXPECT_EQ(eraOf(legacy, ""), Era::kLegacy);
  EXPECT_EQ(eraOf(legacy, "2026-07-28"), Era::kModern);
  json init = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", json::object()}};
  EXPECT_EQ(eraOf(init, ""), Era::kLegacy);
  // A modern client sending initialize gets the modern answer (404, removed).
  EXPECT_EQ(eraOf(init, "2026-07-28"), Era::kModern);
  EXPECT_TRUE(isRemovedMethod("initialize"));
  EXPECT_TRUE(isRemovedMethod("logging/setLevel"));
  EXPECT_FALSE(isRemovedMethod("tools/list"));
}

TEST(ModernFront, AMatchingRequestPasses) {
  EXPECT_TRUE(checkRequest(modernCall("echo"), headersFor("tools/call", "echo")));
  json list = modernCall("x");
  list["method"] = "tools/list";
  list["params"].erase("name");
  EXPECT_TRUE(checkRequest(list, headersFor("tools/list", std::nullopt)));
}

TEST(ModernFront, UnsupportedVersionListsSupportedAndRequested) {
  json call = modernCall("echo");
  call["params"]["_meta"][std::string(kMetaProtocolVersion)] = "2099-01-01";
  RequestHeaders h = headersFor("tools/call", "echo");
  h.protocol_version = "2099-01-01";
  auto checked = checkRequest(call, h);
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.error().code, -32022);
  EXPECT_EQ(checked.error().http_status, 400U);
  EXPECT_EQ(checked.error().data["requested"], "2099-01-01");
  // What server/discover lists: the modern versions.
  EXPECT_EQ(checked.error().data["supported"], json::array({"2026-07-28"}));
  EXPECT_EQ(supportedVersions().back(), "2025-03-26");
  json body = json::parse(errorBody(checked.error(), call["id"]));
  EXPECT_EQ(body["id"], 7);
  EXPECT_EQ(body["error"]["code"], -32022);
}

TEST(ModernFront, HeaderVersionMustMatchTheBody) {
  RequestHeaders h = headersFor("tools/call", "echo");
  h.protocol_version = "2025-11-25";
  auto checked = checkRequest(modernCall("echo"), h);
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.error().code, -32020);
}

TEST(ModernFront, MissingOrDifferentStandardHeadersAreHeaderMismatch) {
  RequestHeaders no_version = headersFor("tools/call", "echo");
  no_version.protocol_version.reset();
  RequestHeaders no_method = headersFor("tools/call", "echo");
  no_method.method.reset();
  RequestHeaders other_method = headersFor("tools/list", "echo");
  RequestHeaders no_name = headersFor("tools/call", std::nullopt);
  RequestHeaders other_name = headersFor("tools/call", "rm_rf");
  for (const auto* h : {&no_version, &no_method, &other_method, &no_name, &other_name}) {
    auto checked = checkRequest(modernCall("echo"), *h);
    ASSERT_FALSE(checked);
    EXPECT_EQ(checked.error().code, -32020) << checked.error().message;
  }
  auto checked = checkRequest(modernCall("echo"), other_name);
  EXPECT_NE(checked.error().message.find("rm_rf"), std::string::npos);
}

TEST(ModernFront, McpNameSentinelIsDecodedBeforeComparing) {
  // "Hello, 世界" as the spec's example encodes it.
  EXPECT_TRUE(checkRequest(modernCall("Hello, 世界"),
                           headersFor("tools/call", "=?base64?SGVsbG8sIOS4lueVjA==?=")));
  auto bad = checkRequest(modernCall("Hello"), headersFor("tools/call", "=?base64?%%%?="));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, -32020);
  auto ctl = checkRequest(modernCall("a\nb"), headersFor("tools/call", "a\nb"));
  ASSERT_FALSE(ctl);
  EXPECT_EQ(ctl.error().code, -32020);
}

TEST(ModernFront, ResourcesReadNamesItsUri) {
  json read = modernCall("x");
  read["method"] = "resources/read";
  read["params"].erase("name");
  read["params"]["uri"] = "file:///a";
  EXPECT_TRUE(checkRequest(read, headersFor("resources/read", "file:///a")));
  EXPECT_FALSE(checkRequest(read, headersFor("resources/read", "file:///b")));
}

TEST(ModernFront, ANotificationIsCheckedForItsVersionOnly) {
  json note = {{"jsonrpc", "2.0"},
               {"method", "notifications/cancelled"},
               {"params", {{"_meta", {{std::string(kMetaProtocolVersion), "2026-07-28"}}}}}};
  EXPECT_TRUE(checkRequest(note, RequestHeaders{}));
}

TEST(ModernFront, TheEnvelopeNeedsClientCapabilities) {
  json call = modernCall("echo");
  call["params"]["_meta"].erase(std::string(kMetaClientCapabilities));
  auto checked = checkRequest(call, headersFor("tools/call", "echo"));
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.error().code, -32602);
  EXPECT_EQ(checked.error().http_status, 400U);
  json no_info = modernCall("echo");
  no_info["params"]["_meta"].erase(std::string(kMetaClientInfo));  // a SHOULD only
  EXPECT_TRUE(checkRequest(no_info, headersFor("tools/call", "echo")));
}

TEST(ModernFront, LogsOnlyWhenTheRequestAsksAtThatLevel) {
  json call = modernCall("echo");
  EXPECT_FALSE(logWanted(call, "error"));
  call["params"]["_meta"][std::string(kMetaLogLevel)] = "warning";
  EXPECT_FALSE(logWanted(call, "info"));
  EXPECT_TRUE(logWanted(call, "warning"));
  EXPECT_TRUE(logWanted(call, "emergency"));
}

TEST(ModernFront, ARequestWithoutTheEnvelopeIsRefused) {
  json bare = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}};
  auto checked = checkRequest(bare, headersFor("tools/list", std::nullopt));
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.error().code, -32602);
}

TEST(ModernFront, ParamHeadersFollowTheToolsAnnotations) {
  json schema = {{"type", "object"},
                 {"properties",
                  {{"region", {{"type", "string"}, {"x-mcp-header", "Region"}}},
                   {"n", {{"type", "integer"}, {"x-mcp-header", "N"}}},
                   {"query", {{"type", "string"}}}}}};
  auto annotated = paramHeaders(schema);
  ASSERT_TRUE(annotated);
  ASSERT_EQ(annotated->size(), 2U);
  json call = modernCall("sql", {{"region", "us-west1"}, {"n", 42}, {"query", "x"}});
  RequestHeaders h = headersFor("tools/call", "sql");
  h.params = {{"region", "us-west1"}, {"N", "42.0"}};
  EXPECT_TRUE(checkRequest(call, h, &*annotated));
  h.params = {{"Region", "eu-west1"}, {"N", "42"}};
  EXPECT_FALSE(checkRequest(call, h, &*annotated));
  h.params = {{"N", "42"}};  // the argument is there, its header is not
  EXPECT_FALSE(checkRequest(call, h, &*annotated));
  json no_region = modernCall("sql", {{"n", 42}});
  h.params = {{"N", "42"}, {"Region", "us-west1"}};  // a header without its argument
  EXPECT_FALSE(checkRequest(no_region, h, &*annotated));
  h.params = {{"N", "42"}, {"Other", "x"}};  // unknown ones are ignored
  EXPECT_TRUE(checkRequest(no_region, h, &*annotated));
}

TEST(ModernFront, InvalidAnnotationsMakeTheToolUnusable) {
  json number = {{"properties", {{"x", {{"type", "number"}, {"x-mcp-header", "X"}}}}}};
  EXPECT_FALSE(paramHeaders(number));
  json twice = {{"properties",
                 {{"a", {{"type", "string"}, {"x-mcp-header", "X"}}},
                  {"b", {{"type", "string"}, {"x-mcp-header", "x"}}}}}};
  EXPECT_FALSE(paramHeaders(twice));
  json in_items = {
      {"properties",
       {{"list",
         {{"type", "array"}, {"items", {{"type", "string"}, {"x-mcp-header", "L"}}}}}}}};
  EXPECT_FALSE(paramHeaders(in_items));
  json nested = {{"properties",
                  {{"o",
                    {{"type", "object"},
                     {"properties", {{"k", {{"type", "boolean"}, {"x-mcp-header", "K"}}}}}}}}}};
  auto ok = paramHeaders(nested);
  ASSERT_TRUE(ok);
  ASSERT_EQ(ok->size(), 1U);
  EXPECT_EQ((*ok)[0].path, (std::vector<std::string>{"o", "k"}));
}

TEST(ModernFront, DiscoverOffersModernVersionsAndTheServersIdentity) {
  ServerOffer offer{"files",
                    {{"tools", {{"listChanged", true}}}, {"logging", json::object()},
                     {"sampling", json::object()}},
                    {{"name", "server-files"}, {"version", "3.1"}},
                    "Reads files."};
  json result = discoverResult(offer, "0.9");
  EXPECT_EQ(result["resultType"], "complete");
  EXPECT_EQ(result["supportedVersions"], json::array({"2026-07-28"}));
  EXPECT_EQ(result["capabilities"], json({{"tools", {{"listChanged", true}}}}));
  EXPECT_EQ(result["_meta"][std::string(kMetaServerInfo)]["name"], "server-files");
  EXPECT_EQ(result["instructions"], "Reads files.");
  EXPECT_EQ(result["cacheScope"], "private");
  EXPECT_EQ(result["ttlMs"], 0);
}

TEST(ModernFront, DiscoverOnTheAggregateMergesServers) {
  std::vector<ServerOffer> offers = {
      {"a", {{"tools", json::object()}}, {{"name", "A"}}, "Use a."},
      {"b", {{"resources", {{"subscribe", true}}}, {"tools", {{"listChanged", true}}}}, nullptr, ""}};
  json result = discoverResult(offers, "0.9");
  EXPECT_EQ(result["capabilities"]["tools"]["listChanged"], true);
  EXPECT_EQ(result["capabilities"]["resources"]["subscribe"], true);
  EXPECT_EQ(result["_meta"][std::string(kMetaServerInfo)]["name"], "mcpgate");
  EXPECT_EQ(result["instructions"], "a: Use a.");
}

TEST(ModernFront, StampAddsResultTypeAndCacheHints) {
  json call = {{"jsonrpc", "2.0"}, {"id", 1}, {"result", {{"content", json::array()}}}};
  stampResult(call, "tools/call", false);
  EXPECT_EQ(call["result"]["resultType"], "complete");
  EXPECT_FALSE(call["result"].contains("cacheScope"));

  json list = {{"jsonrpc", "2.0"},
               {"id", 1},
               {"result", {{"tools", json::array()}, {"ttlMs", 60000}, {"cacheScope", "public"}}}};
  stampResult(list, "tools/list", false);
  EXPECT_EQ(list["result"]["cacheScope"], "public");
  EXPECT_EQ(list["result"]["ttlMs"], 60000);
  stampResult(list, "tools/list", true);  // policy removed tools for this client
  EXPECT_EQ(list["result"]["cacheScope"], "private");

  json legacy_list = {{"jsonrpc", "2.0"}, {"id", 1}, {"result", {{"tools", json::array()}}}};
  stampResult(legacy_list, "tools/list", false);
  EXPECT_EQ(legacy_list["result"]["ttlMs"], 0);
  EXPECT_EQ(legacy_list["result"]["cacheScope"], "private");

  json input = {{"jsonrpc", "2.0"},
                {"id", 1},
                {"result", {{"resultType", "input_required"}, {"requestState", "x"}}}};
  stampResult(input, "resources/read", true);
  EXPECT_FALSE(input["result"].contains("cacheScope"));

  json error = {{"jsonrpc", "2.0"}, {"id", 1}, {"error", {{"code", -1}, {"message", "x"}}}};
  stampResult(error, "tools/list", true);
  EXPECT_FALSE(error.contains("result"));
}

TEST(ModernFront, InputRequestsNeedTheCapabilityTheirMethodNeeds) {
  const json none = json::object();
  EXPECT_EQ(missingCapabilities("sampling/createMessage", none, none),
            json({{"sampling", json::object()}}));
  EXPECT_EQ(missingCapabilities("sampling/createMessage", none, {{"sampling", json::object()}}),
            std::nullopt);
  EXPECT_EQ(missingCapabilities("roots/list", none, {{"sampling", json::object()}}),
            json({{"roots", json::object()}}));
  // Elicitation by mode; a bare declaration is the 2025 one: form.
  EXPECT_EQ(missingCapabilities("elicitation/create", none, none),
            json({{"elicitation", {{"form", json::object()}}}}));
  EXPECT_EQ(missingCapabilities("elicitation/create", none, {{"elicitation", json::object()}}),
            std::nullopt);
  const json url = {{"mode", "url"}, {"url", "https://example.com/x"}};
  EXPECT_EQ(missingCapabilities("elicitation/create", url, {{"elicitation", json::object()}}),
            json({{"elicitation", {{"url", json::object()}}}}));
  EXPECT_EQ(
      missingCapabilities("elicitation/create", url, {{"elicitation", {{"url", json::object()}}}}),
      std::nullopt);
  EXPECT_EQ(
      missingCapabilities("elicitation/create", none, {{"elicitation", {{"url", json::object()}}}}),
      json({{"elicitation", {{"form", json::object()}}}}));
  EXPECT_EQ(missingCapabilities("tools/list", none, none), std::nullopt);

  const FrontError error =
      missingCapability({{"sampling", json::object()}}, "sampling/createMessage");
  EXPECT_EQ(error.code, -32021);
  EXPECT_EQ(error.http_status, 400u);
  EXPECT_EQ(error.data["requiredCapabilities"], json({{"sampling", json::object()}}));
}

TEST(ModernFront, StdioChecksTheEnvelopeWithoutHeaders) {
  EXPECT_TRUE(checkEnvelope(modernCall("echo")));
  json old = modernCall("echo");
  old["params"]["_meta"][std::string(kMetaProtocolVersion)] = "2099-01-01";
  auto refused = checkEnvelope(old);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, -32022);
  json bare = modernCall("echo");
  bare["params"]["_meta"].erase(std::string(kMetaClientCapabilities));
  ASSERT_FALSE(checkEnvelope(bare));
  EXPECT_EQ(checkEnvelope(bare).error().code, -32602);
}

}  // namespace
}  // namespace mcpgate::gateway::modern
