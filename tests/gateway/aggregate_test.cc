// The aggregate endpoint /mcp as a client sees it: the tools of every server
// under prefixed names, each call routed to its server (and scanned there),
// server requests relayed with ids the gateway can route back.

#include <gtest/gtest.h>

#include <string>

#include "tests/gateway/harness.h"

namespace mcpgate::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kAwsKey = "AKIA4YSNI2G3IITN5XVK";

std::string config(const std::string& more = "") {
  return "listen: 127.0.0.1:0\n"
         "servers:\n" +
         testServerYaml("alpha", "    env: {WHO: alpha}\n") +
         testServerYaml("beta", "    env: {WHO: beta}\n") +
         "session: {idle_timeout: 60s, grace: 2s, request_timeout: 10s}\n"
         "dlp: {default_action: {request: block}}\n" +
         more;
}

json request(int id, const std::string& method, const json& params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
}

std::string text(const json& response) { return response["result"]["content"][0]["text"]; }

std::set<std::string> toolNames(const json& listed) {
  std::set<std::string> names;
  for (const json& tool : listed["result"]["tools"]) names.insert(tool["name"].get<std::string>());
  return names;
}

TEST(Aggregate, ListsEveryServersToolsPrefixedAndRoutesCalls) {
  Gateway gw(config());
  const std::string sid = gw.initialize("");
  auto listed = gw.post("", request(1, "tools/list"), sid, "application/json");
  ASSERT_EQ(listed.status, 200) << listed.body;
  auto names = toolNames(listed.json_body());
  EXPECT_TRUE(names.contains("alpha__echo")) << listed.body;
  EXPECT_TRUE(names.contains("beta__echo")) << listed.body;
  EXPECT_FALSE(names.contains("echo")) << listed.body;

  EXPECT_EQ(text(gw.callTool("", sid, "alpha__echo", {{"text", "to alpha"}}, 3)), "to alpha");
  // Each call reached its own server.
  EXPECT_EQ(text(gw.callTool("", sid, "alpha__env", {{"name", "WHO"}}, 4)), "alpha");
  EXPECT_EQ(text(gw.callTool("", sid, "beta__env", {{"name", "WHO"}}, 5)), "beta");
}

TEST(Aggregate, DlpAppliesOnTheRoutedCall) {
  Gateway gw(config());
  const std::string sid = gw.initialize("");
  json r = gw.callTool("", sid, "alpha__echo", {{"text", std::string("key ") + kAwsKey}}, 6);
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["error"]["code"], -32003);
  EXPECT_EQ(r["id"], 6);
  // The finding names the real server and tool.
  const std::string log = gw.log();
  EXPECT_NE(log.find("\"server\":\"alpha\""), std::string::npos) << log;
  EXPECT_NE(log.find("\"tool\":\"echo\""), std::string::npos) << log;
  EXPECT_EQ(log.find(kAwsKey), std::string::npos);
}

TEST(Aggregate, UnknownNamesAndOtherPathsAreRefused) {
  Gateway gw(config());
  const std::string sid = gw.initialize("");
  json r = gw.callTool("", sid, "gamma__echo", {{"text", "x"}}, 7);
  EXPECT_EQ(r["error"]["code"], -32602) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("<server>__<name>"), std::string::npos);
  // An aggregate session is not a session of /mcp/alpha, nor the other way round.
  EXPECT_EQ(gw.post("alpha", request(8, "tools/list"), sid).status, 404);
  const std::string alpha = gw.initialize("alpha");
  EXPECT_EQ(gw.post("", request(9, "tools/list"), alpha).status, 404);
}

TEST(Aggregate, ServerRequestsAreRelayedAndAnsweredBack) {
  Gateway gw(config());
  const std::string sid = gw.initialize("");
  StreamingRequest call(
      gw.port(), "POST", "/mcp",
      {{"Content-Type", "application/json"},
       {"Accept", "application/json, text/event-stream"},
       {"Mcp-Session-Id", sid}},
      request(11, "tools/call", {{"name", "beta__sample"}, {"arguments", json::object()}}).dump());
  ASSERT_TRUE(call.readUntil("sampling/createMessage", 10s)) << call.raw();
  json asked = parseResponse(call.raw()).events().at(0);
  ASSERT_TRUE(asked["id"].is_string()) << asked.dump();
  EXPECT_TRUE(asked["id"].get<std::string>().starts_with("mcpgate:beta:")) << asked.dump();
  json answer = {{"jsonrpc", "2.0"},
                 {"id", asked["id"]},
                 {"result",
                  {{"role", "assistant"},
                   {"model", "test-model"},
                   {"content", {{"type", "text"}, {"text", "sampled words"}}}}}};
  EXPECT_EQ(gw.post("", answer, sid).status, 202);
  auto events = call.finish().events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1]["id"], 11);
  EXPECT_EQ(text(events[1]), "sampled words");
}

TEST(Aggregate, LongNamesAreCutTo64CharactersAndStillRoute) {
  const std::string server(60, 's');  // every prefixed name is over 64
  Gateway gw("listen: 127.0.0.1:0\nservers:\n" + testServerYaml(server) +
             "aggregate: {separator: .}\n");
  const std::string sid = gw.initialize("");
  json listed = gw.post("", request(1, "tools/list"), sid, "application/json").json_body();
  std::set<std::string> names;
  std::string echo;
  for (const json& tool : listed["result"]["tools"]) {
    const std::string name = tool["name"];
    EXPECT_LE(name.size(), 64u) << name;
    EXPECT_TRUE(name.starts_with(std::string(50, 's'))) << name;
    names.insert(name);
    if (tool["description"] == "Returns its text argument") echo = name;
  }
  EXPECT_EQ(names.size(), listed["result"]["tools"].size()) << "cut names stay distinct";
  ASSERT_FALSE(echo.empty()) << listed.dump();
  EXPECT_EQ(text(gw.callTool("", sid, echo, {{"text", "cut but routed"}}, 2)), "cut but routed");
}

}  // namespace
}  // namespace mcpgate::testing
