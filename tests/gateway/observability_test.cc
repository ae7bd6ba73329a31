// Observability as an operator sees it from the real gateway: the audit log
// file (one line per finding and decision, never the secret), /metrics in the
// Prometheus text format, /readyz.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/gateway/harness.h"

namespace mcpgate::testing {
namespace {

// Synthetic key in AWS's format (an example the shipped rule must match).
constexpr const char* kAwsKey = "AKIA4YSNI2G3IITN5XVK";

std::string text(const json& response) { return response["result"]["content"][0]["text"]; }

std::vector<json> jsonLines(const std::string& content) {
  std::vector<json> out;
  std::istringstream in(content);
  std::string line;
  while (std::getline(in, line)) out.push_back(json::parse(line));  // throws on a broken line
  return out;
}

// The test server with FAKE_KEY in its environment (for the `env` tool),
// state in the test's directory, and `rest` (dlp:, audit: sections).
std::string config(const TempDir& dir, const std::string& rest) {
  return "listen: 127.0.0.1:0\n"
         "state_dir: " +
         dir.path() + "/state\nservers:\n" +
         testServerYaml("test", std::string("    env: {FAKE_KEY: ") + kAwsKey + "}\n") +
         "session: {idle_timeout: 60s, grace: 2s, request_timeout: 10s}\n" + rest;
}

TEST(AuditLog, WarnAndLogAreForwardedAndAuditedWithoutTheSecret) {
  TempDir dir;
  const std::string rules = dir.write("markers.yaml", markerRulesYaml());
  const std::string audit_path = dir.path() + "/logs/audit.jsonl";
  Gateway gw(config(dir, "dlp: {rules: [" + rules + "]}\naudit: {path: " + audit_path + "}\n"));
  const std::string sid = gw.initialize("test");

  // Forwarded unchanged: the server echoes what it got.
  const std::string first = "WARNME-123456 and LOGME-654321";
  EXPECT_EQ(text(gw.callTool("test", sid, "echo", {{"text", first}}, 1)), first);
  EXPECT_EQ(text(gw.callTool("test", sid, "echo", {{"text", "again WARNME-123456"}}, 2)),
            "again WARNME-123456");
  EXPECT_EQ(text(gw.callTool("test", sid, "echo", {{"text", "WARNME-999999"}}, 3)),
            "WARNME-999999");

  const std::string content = readFile(audit_path);
  for (const char* secret : {"WARNME-123456", "LOGME-654321", "WARNME-999999", "123456"}) {
    EXPECT_EQ(content.find(secret), std::string::npos) << secret << " in:\n" << content;
  }
  const std::vector<json> lines = jsonLines(content);
  ASSERT_EQ(lines.size(), 4u) << content;
  std::vector<json> warns;
  for (const json& line : lines) {
    for (const char* field :
         {"time", "event", "client", "session", "server", "method", "tool", "direction", "rule",
          "category", "severity", "action", "pointer", "preview", "match_hash"}) {
      EXPECT_TRUE(line.contains(field)) << field << " missing in " << line.dump();
    }
    EXPECT_EQ(line["event"], "finding");
    EXPECT_EQ(line["session"], sid);
    EXPECT_EQ(line["server"], "test");
    EXPECT_EQ(line["method"], "tools/call");
    EXPECT_EQ(line["tool"], "echo");
    EXPECT_EQ(line["direction"], "request");
    EXPECT_EQ(line["category"], "custom");
    EXPECT_EQ(line["pointer"], "/params/arguments/text");
    EXPECT_TRUE(line["client"].is_null());  // no auth: no client name
    EXPECT_TRUE(std::regex_match(line["time"].get<std::string>(),
                                 std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")))
        << line["time"];
    EXPECT_TRUE(std::regex_match(line["match_hash"].get<std::string>(),
                                 std::regex("hmac-sha256:[0-9a-f]{32}")))
        << line["match_hash"];
    EXPECT_NE(line["preview"].get<std::string>().find('*'), std::string::npos) << line.dump();
    if (line["rule"] == "test-warn-marker") {
      EXPECT_EQ(line["action"], "warn");
      warns.push_back(line);
    } else {
      EXPECT_EQ(line["rule"], "test-log-marker");
      EXPECT_EQ(line["action"], "log");
    }
  }
  ASSERT_EQ(warns.size(), 3u);
  // The same secret in two calls correlates; a different one does not.
  EXPECT_EQ(warns[0]["match_hash"], warns[1]["match_hash"]);
  EXPECT_NE(warns[0]["match_hash"], warns[2]["match_hash"]);

  // The key was made on first start, private, under state_dir.
  struct stat st {};
  ASSERT_EQ(::stat((dir.path() + "/state/audit.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat(audit_path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 077, 0u);

  // The gateway log still says it too (existing consumers rely on it).
  EXPECT_NE(gw.log().find("\"dlp finding\""), std::string::npos);
  EXPECT_EQ(gw.log().find("WARNME-123456"), std::string::npos);
}

TEST(AuditLog, TheHashKeyOutlivesARestartSoEventsCorrelate) {
  TempDir dir;
  const std::string audit_path = dir.path() + "/audit.jsonl";
  const std::string yaml =
      config(dir, "dlp: {default_action: {request: block}}\naudit: {path: " + audit_path + "}\n");
  for (int run = 0; run < 2; ++run) {
    Gateway gw(yaml);
    const std::string sid = gw.initialize("test");
    json body = gw.callTool("test", sid, "echo", {{"text", std::string("key ") + kAwsKey}}, 5);
    EXPECT_EQ(body["error"]["data"]["reason"], "dlp_blocked") << body.dump();
  }
  const std::string content = readFile(audit_path);
  EXPECT_EQ(content.find(kAwsKey), std::string::npos) << content;
  const std::vector<json> lines = jsonLines(content);
  ASSERT_EQ(lines.size(), 2u) << content;
  EXPECT_EQ(lines[0]["action"], "block");
  EXPECT_EQ(lines[0]["rule"], "aws-access-key-id");
  EXPECT_EQ(lines[0]["category"], "secret");
  EXPECT_NE(lines[0]["session"], lines[1]["session"]);
  EXPECT_EQ(lines[0]["match_hash"], lines[1]["match_hash"]);
}

TEST(AuditLog, AKeyFileOthersCanReadIsRefused) {
  TempDir dir;
  const std::string key = dir.write("audit.key", std::string(64, 'k') + "\n");
  ASSERT_EQ(::chmod(key.c_str(), 0644), 0);
  const std::string cfg = dir.write(
      "gw.yaml", config(dir, "audit: {path: " + dir.path() + "/a.jsonl, key_file: " + key + "}\n"));
  auto run = runCommand(mcpgateBinary() + " serve -c " + cfg);
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("refusing the audit key file " + key +
                            ": group or others have access (mode 0644); chmod 600 " + key),
            std::string::npos)
      << run.output;
}

TEST(AuditLog, StdoutIsRefusedInStdioModeWhereItCarriesMcp) {
  TempDir dir;
  const std::string cfg = dir.write("gw.yaml", config(dir, "audit: {path: '-'}\n"));
  auto run = runCommand(mcpgateBinary() + " stdio -c " + cfg + " test");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("audit.path '-' (stdout) cannot be used with mcpgate stdio"),
            std::string::npos)
      << run.output;
}

TEST(AuditLog, StdioModeWritesTheFileToo) {
  TempDir dir;
  const std::string audit_path = dir.path() + "/audit.jsonl";
  const std::string cfg = dir.write(
      "gw.yaml",
      config(dir, "dlp: {default_action: {request: block}}\naudit: {path: " + audit_path + "}\n"));
  json init = {{"jsonrpc", "2.0"},
               {"id", 0},
               {"method", "initialize"},
               {"params",
                {{"protocolVersion", "2025-06-18"},
                 {"capabilities", json::object()},
                 {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}};
  json call = {{"jsonrpc", "2.0"},
               {"id", 1},
               {"method", "tools/call"},
               {"params", {{"name", "echo"}, {"arguments", {{"text", kAwsKey}}}}}};
  const std::string input = dir.write("input.jsonl", init.dump() + "\n" + call.dump() + "\n");
  auto run = runCommand("sh -c '" + mcpgateBinary() + " stdio -c " + cfg + " test < " + input +
                        " 2>/dev/null'");
  EXPECT_EQ(run.output.find(kAwsKey), std::string::npos) << run.output;
  const std::string content = readFile(audit_path);
  EXPECT_EQ(content.find(kAwsKey), std::string::npos) << content;
  const std::vector<json> lines = jsonLines(content);
  ASSERT_EQ(lines.size(), 1u) << content << run.output;
  EXPECT_EQ(lines[0]["rule"], "aws-access-key-id");
  EXPECT_EQ(lines[0]["action"], "block");
  EXPECT_EQ(lines[0]["tool"], "echo");
}

TEST(AuditLog, SighupReopensTheFileForLogrotate) {
  TempDir dir;
  const std::string audit_path = dir.path() + "/audit.jsonl";
  Gateway gw(
      config(dir, "dlp: {default_action: {request: block}}\naudit: {path: " + audit_path + "}\n"));
  const std::string sid = gw.initialize("test");
  (void)gw.callTool("test", sid, "echo", {{"text", std::string("a ") + kAwsKey}}, 1);
  ASSERT_EQ(std::rename(audit_path.c_str(), (audit_path + ".1").c_str()), 0);
  ASSERT_EQ(::kill(gw.pid(), SIGHUP), 0);
  ASSERT_TRUE(waitUntil([&] { return gw.log().find("audit log reopened") != std::string::npos; },
                        std::chrono::seconds(5)))
      << gw.log();
  (void)gw.callTool("test", sid, "echo", {{"text", std::string("b ") + kAwsKey}}, 2);
  EXPECT_EQ(jsonLines(readFile(audit_path + ".1")).size(), 1u);
  EXPECT_EQ(jsonLines(readFile(audit_path)).size(), 1u);
}

// One sample of the Prometheus text format: name, labels, value.
struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

// Parses the text format strictly enough to catch what a scraper rejects:
// every sample line is `name{label="value",...} number`, every metric has
// its HELP and TYPE before its samples, label values are properly escaped.
std::vector<Sample> parsePrometheus(const std::string& body) {
  static const std::regex kSample(R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$)");
  static const std::regex kLabel(R"re(([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\[\\"n])*)")re");
  static const std::regex kMeta(R"(^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$)");
  std::vector<Sample> samples;
  std::map<std::string, std::string> types;
  std::set<std::string> helps;
  std::istringstream in(body);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (line.starts_with("#")) {
      EXPECT_TRUE(std::regex_match(line, m, kMeta)) << "bad comment line: " << line;
      if (m[1] == "TYPE") {
        EXPECT_TRUE(m[3] == "counter" || m[3] == "gauge" || m[3] == "histogram") << line;
        EXPECT_TRUE(helps.contains(m[2])) << "TYPE before HELP: " << line;
        EXPECT_FALSE(types.contains(m[2])) << "second TYPE: " << line;
        types[m[2]] = m[3];
      } else {
        helps.insert(m[2]);
      }
      continue;
    }
    if (!std::regex_match(line, m, kSample)) {
      ADD_FAILURE() << "bad sample line: '" << line << "'";
      continue;
    }
    Sample sample{m[1], {}, 0};
    std::string labels = m[3];
    for (std::string rest = labels; !rest.empty();) {
      std::smatch lm;
      if (!std::regex_search(rest, lm, kLabel) || lm.position(0) != 0) {
        ADD_FAILURE() << "bad labels in: " << line;
        break;
      }
      sample.labels[lm[1]] = lm[2];
      rest = lm.suffix();
      if (!rest.empty()) {
        EXPECT_EQ(rest[0], ',') << line;
        rest.erase(0, 1);
      }
    }
    const std::string value = m[4];
    char* end = nullptr;
    sample.value = value == "+Inf" ? 1e308 : std::strtod(value.c_str(), &end);
    EXPECT_TRUE(value == "+Inf" || (end != nullptr && *end == '\0')) << line;
    std::string family = sample.name;
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      if (!types.contains(family) && family.ends_with(suffix)) {
        family.resize(family.size() - std::string(suffix).size());
      }
    }
    EXPECT_TRUE(types.contains(family)) << "sample without TYPE: " << line;
    samples.push_back(std::move(sample));
  }
  return samples;
}

// The value of the one sample with this name and these labels (among others);
// -1 when there is none.
double valueOf(const std::vector<Sample>& samples, const std::string& name,
               const std::map<std::string, std::string>& labels = {}) {
  double found = -1;
  for (const Sample& s : samples) {
    if (s.name != name) continue;
    bool all = true;
    for (const auto& [k, v] : labels) {
      auto it = s.labels.find(k);
      all = all && it != s.labels.end() && it->second == v;
    }
    if (all) {
      EXPECT_EQ(found, -1) << "more than one sample " << name;
      found = s.value;
    }
  }
  return found;
}

std::vector<Sample> scrape(const Gateway& gw) {
  HttpResponse r = http(gw.port(), "GET", "/metrics");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  return parsePrometheus(r.body);
}

TEST(Metrics, CountBlockedCallsRedactedResultsSessionsAndChildren) {
  TempDir dir;
  Gateway gw(config(dir, "dlp: {default_action: {request: block, response: redact}}\n"));
  std::vector<Sample> before = scrape(gw);
  EXPECT_EQ(valueOf(before, "mcpgate_sessions"), 0);
  EXPECT_EQ(valueOf(before, "mcpgate_children"), 0);
  EXPECT_EQ(valueOf(before, "mcpgate_build_info"), 1);

  const std::string sid = gw.initialize("test");
  json blocked = gw.callTool("test", sid, "echo", {{"text", std::string("k ") + kAwsKey}}, 1);
  EXPECT_EQ(blocked["error"]["data"]["reason"], "dlp_blocked") << blocked.dump();
  json redacted = gw.callTool("test", sid, "env", {{"name", "FAKE_KEY"}}, 2);
  EXPECT_EQ(text(redacted), "[REDACTED:aws-access-key-id]");

  std::vector<Sample> after = scrape(gw);
  EXPECT_EQ(valueOf(after, "mcpgate_dlp_findings_total",
                    {{"rule", "aws-access-key-id"}, {"action", "block"}}),
            1);
  EXPECT_EQ(valueOf(after, "mcpgate_dlp_findings_total",
                    {{"rule", "aws-access-key-id"}, {"action", "redact"}}),
            1);
  EXPECT_EQ(valueOf(after, "mcpgate_jsonrpc_requests_total",
                    {{"server", "test"}, {"method", "tools/call"}, {"outcome", "blocked"}}),
            1);
  EXPECT_EQ(valueOf(after, "mcpgate_jsonrpc_requests_total",
                    {{"server", "test"}, {"method", "tools/call"}, {"outcome", "ok"}}),
            1);
  EXPECT_EQ(valueOf(after, "mcpgate_jsonrpc_requests_total",
                    {{"server", "test"}, {"method", "initialize"}, {"outcome", "ok"}}),
            1);
  EXPECT_EQ(valueOf(after, "mcpgate_request_duration_seconds_count",
                    {{"server", "test"}, {"method", "tools/call"}}),
            2);
  EXPECT_EQ(valueOf(after, "mcpgate_request_duration_seconds_bucket",
                    {{"server", "test"}, {"method", "tools/call"}, {"le", "+Inf"}}),
            2);
  // initialize, initialized (202), two calls; plus the first scrape, on no server.
  EXPECT_EQ(valueOf(after, "mcpgate_http_requests_total", {{"server", "test"}, {"status", "200"}}),
            3);
  EXPECT_EQ(valueOf(after, "mcpgate_http_requests_total", {{"server", "test"}, {"status", "202"}}),
            1);
  EXPECT_EQ(valueOf(after, "mcpgate_http_requests_total", {{"server", ""}, {"status", "200"}}), 1);
  EXPECT_EQ(valueOf(after, "mcpgate_sessions"), 1);
  EXPECT_EQ(valueOf(after, "mcpgate_children"), 1);
  EXPECT_EQ(valueOf(after, "mcpgate_spawns_total", {{"server", "test"}}), 1);

  ASSERT_EQ(http(gw.port(), "DELETE", "/mcp/test", {{"Mcp-Session-Id", sid}}).status, 200);
  std::vector<Sample> gone;
  EXPECT_TRUE(waitUntil(
      [&] {
        gone = scrape(gw);
        return valueOf(gone, "mcpgate_children") == 0;
      },
      std::chrono::seconds(10)));
  EXPECT_EQ(valueOf(gone, "mcpgate_sessions"), 0);
  EXPECT_EQ(valueOf(gone, "mcpgate_reaps_total", {{"server", "test"}}), 1);
}

TEST(Metrics, SandboxRefusalsAreCounted) {
  // A bind whose source vanished after the config was loaded: the sandbox
  // refuses to start the server (as in Gateway.SandboxRefusalReachesTheClientAndTheLog).
  TempDir dir;
  const std::string gone = dir.path() + "/gone";
  std::filesystem::create_directory(gone);
  Gateway gw(config(dir, "sandbox:\n  binds: [{src: " + gone + ", dst: /data}]\n"));
  std::filesystem::remove(gone);
  json init = {{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"}, {"params", json::object()}};
  auto r = gw.post("test", init, "", "application/json");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json_body()["error"]["code"], -32000) << r.body;
  std::vector<Sample> samples;
  EXPECT_TRUE(waitUntil(
      [&] {
        samples = scrape(gw);
        return valueOf(samples, "mcpgate_children") == 0;
      },
      std::chrono::seconds(10)));
  EXPECT_EQ(valueOf(samples, "mcpgate_sandbox_refusals_total", {{"server", "test"}}), 1);
  EXPECT_EQ(valueOf(samples, "mcpgate_spawns_total", {{"server", "test"}}), 1);
  EXPECT_EQ(valueOf(samples, "mcpgate_reaps_total", {{"server", "test"}}), 1);
  EXPECT_EQ(valueOf(samples, "mcpgate_sessions"), 0);
  EXPECT_EQ(valueOf(samples, "mcpgate_jsonrpc_requests_total",
                    {{"server", "test"}, {"method", "initialize"}, {"outcome", "closed"}}),
            1);
}

TEST(Metrics, ClientChosenMethodNamesDoNotBecomeLabels) {
  TempDir dir;
  Gateway gw(config(dir, ""));
  const std::string sid = gw.initialize("test");
  for (int i = 0; i < 3; ++i) {
    json call = {{"jsonrpc", "2.0"}, {"id", 10 + i}, {"method", "made/up/" + std::to_string(i)}};
    EXPECT_EQ(gw.post("test", call, sid, "application/json").status, 200);
  }
  const std::string body = http(gw.port(), "GET", "/metrics").body;
  EXPECT_EQ(body.find("made/up"), std::string::npos) << body;
  std::vector<Sample> samples = parsePrometheus(body);
  EXPECT_EQ(valueOf(samples, "mcpgate_jsonrpc_requests_total",
                    {{"server", "test"}, {"method", "other"}, {"outcome", "error"}}),
            3);
}

TEST(Readyz, ReadyWhileServing) {
  TempDir dir;
  Gateway gw(config(dir, ""));
  HttpResponse r = http(gw.port(), "GET", "/readyz");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.json_body(), json({{"status", "ready"}}));
  EXPECT_EQ(http(gw.port(), "GET", "/healthz").status, 200);
}

// GET /readyz on a connection kept open across requests (the harness's
// requests each close theirs): one a load balancer opened before shutdown.
class KeptAliveConnection {
 public:
  explicit KeptAliveConnection(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }
  ~KeptAliveConnection() { ::close(fd_); }

  HttpResponse readyz() { return send("GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); }
  HttpResponse post(const std::string& path, const json& message) {
    const std::string body = message.dump();
    return send("POST " + path +
                " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                "Accept: application/json, text/event-stream\r\nContent-Length: " +
                std::to_string(body.size()) + "\r\n\r\n" + body);
  }

 private:
  HttpResponse send(const std::string& request) {
    HttpResponse response;
    if (!connected_ || ::write(fd_, request.data(), request.size()) < 0) return response;
    std::string raw;
    char buffer[4096];
    for (;;) {
      response = parseResponse(raw);
      const std::string length = response.header("content-length");
      if (!length.empty() && response.body.size() >= std::stoul(length)) return response;
      const ssize_t n = ::read(fd_, buffer, sizeof buffer);
      if (n <= 0) return response;
      raw.append(buffer, static_cast<std::size_t>(n));
    }
  }

  int fd_;
  bool connected_ = false;
};

TEST(Readyz, NotReadyOnceShuttingDown) {
  TempDir dir;
  // A server that ignores SIGTERM keeps the gateway draining for the grace period.
  Gateway gw("listen: 127.0.0.1:0\nservers:\n" +
             testServerYaml("test", "    env: {TEST_SERVER_IGNORE_SIGTERM: '1'}\n") +
             "session: {grace: 3s}\n");
  (void)gw.initialize("test");
  KeptAliveConnection connection(gw.port());
  EXPECT_EQ(connection.readyz().status, 200);
  ASSERT_EQ(::kill(gw.pid(), SIGTERM), 0);
  ASSERT_TRUE(waitUntil([&] { return gw.log().find("shutting down") != std::string::npos; },
                        std::chrono::seconds(5)));
  HttpResponse draining = connection.readyz();
  EXPECT_EQ(draining.status, 503) << draining.body;
  EXPECT_EQ(draining.body, R"({"reason":"shutting down","status":"not ready"})");
}

// SIGTERM drains: /readyz turns 503 and new sessions are refused at once, even
// on a keep-alive connection opened before; a call in flight still gets its
// answer; then the gateway exits 0.
TEST(Drain, SigtermLetsCallsInFlightFinishAndRefusesNewSessions) {
  TempDir dir;
  Gateway gw(config(dir, ""));  // session.grace 2s
  const std::string sid = gw.initialize("test");
  KeptAliveConnection connection(gw.port());
  EXPECT_EQ(connection.readyz().status, 200);
  StreamingRequest slow(gw.port(), "POST", "/mcp/test",
                        {{"Content-Type", "application/json"},
                         {"Accept", "application/json, text/event-stream"},
                         {"Mcp-Session-Id", sid}},
                        toolCall(7, "slow", {{"ms", 1200}}).dump());
  ASSERT_TRUE(waitUntil([&] { return gw.log().find("recv tools/call") != std::string::npos; },
                        std::chrono::seconds(5)));
  ASSERT_EQ(::kill(gw.pid(), SIGTERM), 0);
  ASSERT_TRUE(waitUntil([&] { return gw.log().find("shutting down") != std::string::npos; },
                        std::chrono::seconds(5)));

  EXPECT_EQ(connection.readyz().status, 503);
  const HttpResponse refused = connection.post("/mcp/test", initializeRequest());
  EXPECT_EQ(refused.status, 503) << refused.body;
  if (refused.status == 503) {
    EXPECT_EQ(refused.json_body()["error"]["data"]["reason"], "shutting_down") << refused.body;
  }
  // A new request on a session that exists: the session is closing, initialize elsewhere.
  const HttpResponse late = gw.post("test", toolCall(8, "echo", {{"text", "late"}}), sid);
  EXPECT_EQ(late.status, 404) << late.body;

  const HttpResponse answered = slow.finish();
  ASSERT_EQ(answered.status, 200) << answered.body;
  const json result = answered.header("content-type").starts_with("text/event-stream")
                          ? answered.events().back()
                          : answered.json_body();
  EXPECT_EQ(text(result), "slept 1200 ms") << answered.body;

  const std::optional<int> status = gw.stop();
  ASSERT_TRUE(status.has_value()) << "the gateway did not exit";
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << *status;
  EXPECT_EQ(logEntries(gw.log(), "session created").size(), 1u) << gw.log();
}

}  // namespace
}  // namespace mcpgate::testing
