// Hot reload as an operator sees it: the config file is rewritten (or SIGHUP
// sent) under the running gateway, and clients see the new behaviour without
// a restart and without losing a request; a broken config changes nothing.

#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/gateway/harness.h"
#include "tests/gateway/jwt_util.h"

namespace mcpgate::testing {
namespace {

using namespace std::chrono_literals;

// A synthetic key in AWS's format (an example the shipped rule must match).
constexpr const char* kAwsKey = "AKIA4YSNI2G3IITN5XVK";

std::string config(const std::string& request_action, const std::string& more_servers = "") {
  return "listen: 127.0.0.1:0\n"
         "servers:\n" +
         testServerYaml("test") + more_servers +
         "session: {idle_timeout: 60s, grace: 2s, request_timeout: 10s}\n"
         "dlp: {default_action: {request: " +
         request_action + "}}\n";
}

// As config management does it: a new file renamed over the old one.
void rewrite(const Gateway& gw, const std::string& yaml) {
  const std::string next = gw.dir().write("next.yaml", yaml);
  std::filesystem::rename(next, gw.dir().path() + "/mcpgate.yaml");
}

int countOf(const std::string& text, const std::string& needle) {
  int n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

bool waitForReloads(const Gateway& gw, int count) {
  return waitUntil([&] { return countOf(gw.log(), "\"config reloaded\"") >= count; }, 10s);
}

bool waitForRefusedReload(const Gateway& gw) {
  return waitUntil([&] { return gw.log().find("config reload failed") != std::string::npos; }, 10s);
}

// Writes `content` to `path` as config management does: a new file renamed over it.
void replaceFile(const std::string& path, const std::string& content) {
  const std::string next = path + ".next";
  {
    std::ofstream out(next);
    out << content;
  }
  std::filesystem::rename(next, path);
}

TEST(Reload, ChangedRulesApplyToOpenSessionsWithoutARestart) {
  Gateway gw(config("log"));
  const std::string sid = gw.initialize("test");
  json before = gw.callTool("test", sid, "echo", {{"text", std::string("key ") + kAwsKey}}, 1);
  ASSERT_TRUE(before.contains("result")) << before.dump();

  rewrite(gw, config("block"));
  ASSERT_TRUE(waitForReloads(gw, 1)) << gw.log();
  EXPECT_NE(gw.log().find("\"trigger\":\"a watched file changed\""), std::string::npos);

  // The same session, the same call: now refused by the new rules.
  json after = gw.callTool("test", sid, "echo", {{"text", std::string("key ") + kAwsKey}}, 2);
  ASSERT_TRUE(after.contains("error")) << after.dump();
  EXPECT_EQ(after["error"]["code"], -32003);
  EXPECT_EQ(after["error"]["data"]["rules"], json::array({"aws-access-key-id"}));
}

TEST(Reload, SighupReloads) {
  Gateway gw(config("block"));
  ASSERT_EQ(::kill(gw.pid(), SIGHUP), 0);
  ASSERT_TRUE(waitForReloads(gw, 1)) << gw.log();
  const std::string log = gw.log();
  EXPECT_NE(log.find("\"trigger\":\"SIGHUP\""), std::string::npos) << log;
  EXPECT_NE(log.find("\"generation\":2"), std::string::npos) << log;
  const std::string sid = gw.initialize("test");
  EXPECT_EQ(gw.callTool("test", sid, "echo", {{"text", "hello"}})["result"]["content"][0]["text"],
            "hello");
}

TEST(Reload, ABrokenConfigIsRefusedAndTheRunningOneKept) {
  Gateway gw(config("block"));
  const std::string sid = gw.initialize("test");

  const std::string good = config("block");
  const auto bad_line = std::to_string(countOf(good, "\n") + 1);
  rewrite(gw, good + "listen_port: 9\n");  // no such key
  ASSERT_TRUE(
      waitUntil([&] { return gw.log().find("config reload failed") != std::string::npos; }, 10s))
      << gw.log();
  const std::string log = gw.log();
  EXPECT_NE(log.find("mcpgate.yaml:" + bad_line + ": unknown key 'listen_port'"), std::string::npos)
      << log;
  EXPECT_EQ(countOf(log, "\"config reloaded\""), 0) << log;

  // Still serving, with the rules it had.
  json blocked = gw.callTool("test", sid, "echo", {{"text", std::string("key ") + kAwsKey}});
  EXPECT_EQ(blocked["error"]["code"], -32003) << blocked.dump();
  EXPECT_EQ(gw.callTool("test", sid, "echo", {{"text", "ok"}}, 2)["result"]["content"][0]["text"],
            "ok");

  rewrite(gw, config("log"));  // fixed: now it takes
  ASSERT_TRUE(waitForReloads(gw, 1)) << gw.log();
  json passed = gw.callTool("test", sid, "echo", {{"text", std::string("key ") + kAwsKey}}, 3);
  EXPECT_TRUE(passed.contains("result")) << passed.dump();
}

TEST(Reload, ARemovedServerEndsItsSessions) {
  Gateway gw(config("block", testServerYaml("other")));
  const std::string kept = gw.initialize("test");
  const std::string removed = gw.initialize("other");

  rewrite(gw, config("block"));
  ASSERT_TRUE(waitForReloads(gw, 1)) << gw.log();

  json call = {{"jsonrpc", "2.0"},
               {"id", 5},
               {"method", "tools/call"},
               {"params", {{"name", "echo"}, {"arguments", {{"text", "x"}}}}}};
  EXPECT_EQ(gw.post("other", call, removed).status, 404);
  EXPECT_NE(gw.log().find("server 'other' was removed from the config"), std::string::npos);
  json init = {{"jsonrpc", "2.0"},
               {"id", 1},
               {"method", "initialize"},
               {"params",
                {{"protocolVersion", "2025-06-18"},
                 {"capabilities", json::object()},
                 {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}};
  EXPECT_EQ(gw.post("other", init, "").status, 404);
  EXPECT_EQ(
      gw.callTool("test", kept, "echo", {{"text", "still here"}})["result"]["content"][0]["text"],
      "still here");
}

TEST(Reload, AReloadUnderLoadLosesNoRequest) {
  Gateway gw(config("block"));
  constexpr int kClients = 4;
  std::vector<std::string> sids;
  for (int i = 0; i < kClients; ++i) sids.push_back(gw.initialize("test"));

  std::atomic<bool> done{false};
  std::atomic<int> calls{0}, failures{0};
  std::vector<std::string> first_failure(kClients);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      for (int n = 0; !done; ++n) {
        const std::string text = "client " + std::to_string(c) + " call " + std::to_string(n);
        json r = gw.callTool("test", sids[c], "echo", {{"text", text}}, n + 10);
        ++calls;
        if (!r.contains("result") || r["result"]["content"][0]["text"] != text) {
          if (failures++ == 0) first_failure[c] = r.dump();
        }
      }
    });
  }
  // Reloads both ways, each a new generation, while the calls go on.
  constexpr int kReloads = 6;
  for (int i = 0; i < kReloads; ++i) {
    if (i % 2 == 0) {
      ASSERT_EQ(::kill(gw.pid(), SIGHUP), 0);
    } else {
      rewrite(gw, config(i % 4 == 1 ? "block" : "redact"));
    }
    ASSERT_TRUE(waitForReloads(gw, i + 1)) << gw.log();
  }
  done = true;
  for (auto& t : clients) t.join();
  EXPECT_EQ(failures.load(), 0) << first_failure[0] << first_failure[1] << first_failure[2]
                                << first_failure[3];
  EXPECT_GT(calls.load(), kReloads * 2) << "the load ran across the reloads";
  EXPECT_NE(gw.log().find("\"generation\":" + std::to_string(kReloads + 1)), std::string::npos);
}

TEST(Reload, AConfigThatWouldOpenTheListenerWithoutAuthIsRefused) {
  const std::string token = "mcpg_reload-test-token-0123456789";
  const std::string open_config = "listen: 0.0.0.0:0\nservers:\n" + testServerYaml("test") +
                                  "session: {idle_timeout: 60s, grace: 2s, request_timeout: 10s}\n";
  Gateway gw(open_config + "auth:\n  tokens:\n    - {client: alice, sha256: " + sha256Hex(token) +
             "}\n  clients:\n    alice: {servers: [test]}\n");
  ASSERT_EQ(gw.post("test", initializeRequest(), "").status, 401);

  rewrite(gw, open_config);  // auth: gone, on a listener beyond loopback
  ASSERT_TRUE(waitForRefusedReload(gw)) << gw.log();
  const std::string log = gw.log();
  EXPECT_NE(log.find("refusing to listen on 0.0.0.0"), std::string::npos) << log;
  EXPECT_EQ(countOf(log, "\"config reloaded\""), 0) << log;
  EXPECT_EQ(gw.post("test", initializeRequest(), "").status, 401);
  EXPECT_EQ(gw.post("test", initializeRequest(), "", "application/json, text/event-stream",
                    {{"Authorization", "Bearer " + token}})
                .status,
            200);

  // Said out loud, the operator's choice is taken.
  rewrite(gw, open_config + "insecure_no_auth: true\n");
  ASSERT_TRUE(waitForReloads(gw, 1)) << gw.log();
  EXPECT_EQ(gw.post("test", initializeRequest(), "").status, 200);
}

TEST(Reload, RemovingTheAuditSectionStopsTheAuditLog) {
  TempDir audit_dir;
  const std::string audit_path = audit_dir.path() + "/audit.jsonl";
  Gateway gw(config("block") + "audit: {path: " + audit_path + "}\n");
  const std::string sid = gw.initialize("test");
  json blocked = gw.callTool("test", sid, "echo", {{"text", std::string("key ") + kAwsKey}}, 1);
  ASSERT_EQ(blocked["error"]["code"], -32003) << blocked.dump();
  ASSERT_TRUE(waitUntil([&] { return !readFile(audit_path).empty(); }, 5s));
  const std::string audited = readFile(audit_path);

  rewrite(gw, config("block"));
  ASSERT_TRUE(waitForReloads(gw, 1)) << gw.log();
  blocked = gw.callTool("test", sid, "echo", {{"text", std::string("key ") + kAwsKey}}, 2);
  ASSERT_EQ(blocked["error"]["code"], -32003) << blocked.dump();
  EXPECT_EQ(countOf(gw.log(), "\"dlp finding\""), 2) << gw.log();  // the finding was made
  EXPECT_EQ(readFile(audit_path), audited);                        // and not audited
}

TEST(Reload, AnUnrelatedFileBesideTheConfigDoesNotReload) {
  Gateway gw(config("block"));
  gw.dir().write("other.yaml", "not: the config\n");
  gw.dir().write("other.yml", "not: the config either\n");
  std::this_thread::sleep_for(1s);  // the settle time and more
  EXPECT_EQ(countOf(gw.log(), "\"config reloaded\""), 0) << gw.log();

  rewrite(gw, config("log"));  // the config itself still does
  ASSERT_TRUE(waitForReloads(gw, 1)) << gw.log();
}

TEST(Reload, RewritingTheJwksFileReloads) {
  constexpr const char* kIssuer = "https://idp.test";
  TempDir idp;  // the JWKS lives apart from the config, as an IdP sync would put it
  TestKey old_key = generateRsaKey();
  TestKey new_key = generateRsaKey();
  const std::string jwks_file =
      idp.write("jwks.json", json{{"keys", {publicJwk(old_key.get(), "old")}}}.dump());
  Gateway gw("listen: 127.0.0.1:0\nservers:\n" + testServerYaml("test") +
             "session: {idle_timeout: 60s, grace: 2s, request_timeout: 10s}\n"
             "auth:\n"
             "  jwt: {jwks_file: " +
             jwks_file + ", issuer: \"" + kIssuer +
             "\", audience: mcpgate}\n"
             "  clients:\n"
             "    jwt-user: {servers: [test]}\n");
  const json claims = {{"iss", kIssuer},
                       {"aud", "mcpgate"},
                       {"sub", "jwt-user"},
                       {"iat", nowSeconds()},
                       {"exp", nowSeconds() + 600}};
  auto initializeWith = [&](const std::string& token) {
    return gw
        .post("test", initializeRequest(), "", "application/json, text/event-stream",
              {{"Authorization", "Bearer " + token}})
        .status;
  };
  const std::string old_token = signJwt(old_key.get(), "RS256", claims, "old");
  const std::string new_token = signJwt(new_key.get(), "RS256", claims, "new");
  ASSERT_EQ(initializeWith(old_token), 200);
  ASSERT_EQ(initializeWith(new_token), 401);

  // Key rotation, and the old key revoked.
  replaceFile(jwks_file, json{{"keys", {publicJwk(new_key.get(), "new")}}}.dump());
  ASSERT_TRUE(waitForReloads(gw, 1)) << gw.log();
  EXPECT_EQ(initializeWith(new_token), 200);
  EXPECT_EQ(initializeWith(old_token), 401);
}

}  // namespace
}  // namespace mcpgate::testing
