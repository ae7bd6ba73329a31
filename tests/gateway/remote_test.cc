// Remote upstreams: the real mcpgate binary in front of
// tests/servers/remote_server.mjs (the official SDK's Streamable HTTP server
// transport over node's http/https), with certificates made here by the
// openssl command. The server's record file is the proof of what reached it.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "tests/gateway/harness.h"

namespace mcpgate::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kKey = "AKIA4YSNI2G3IITN5XVK";  // fake, in AWS's format

// A CA, and certificates it signs, made with the openssl command.
class Pki {
 public:
  explicit Pki(const TempDir& dir, const std::string& name) : dir_(dir.path() + "/" + name) {
    run("mkdir -p " + dir_);
    run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 "
        "-subj '/CN=mcpgate test CA " +
        name + "' -keyout " + dir_ + "/ca.key -out " + dir_ + "/ca.pem");
  }
  [[nodiscard]] std::string ca() const { return dir_ + "/ca.pem"; }

  // Writes NAME.pem and NAME.key; returns the path without the extension.
  std::string issue(const std::string& name, const std::string& extensions) {
    const std::string base = dir_ + "/" + name;
    std::ofstream(base + ".ext") << extensions << "\n";
    run("openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj '/CN=" + name +
        "' -keyout " + base + ".key -out " + base + ".csr");
    run("openssl x509 -req -in " + base + ".csr -CA " + ca() + " -CAkey " + dir_ +
        "/ca.key -CAcreateserial -days 1 -out " + base + ".pem -extfile " + base + ".ext");
    return base;
  }
  std::string server(const std::string& name,
                     const std::string& san = "DNS:localhost,IP:127.0.0.1") {
    return issue(name, "subjectAltName=" + san + "\nextendedKeyUsage=serverAuth");
  }
  std::string client(const std::string& name) { return issue(name, "extendedKeyUsage=clientAuth"); }

 private:
  static void run(const std::string& command) {
    CommandResult result = runCommand(command);
    if (result.exit_code != 0) throw std::runtime_error(command + ": " + result.output);
  }
  std::string dir_;
};

// tests/servers/remote_server.mjs as a child of the test.
class RemoteServer {
 public:
  explicit RemoteServer(const std::vector<std::string>& options) {
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
    std::vector<std::string> argv = {"node", sourceDir() + "/tests/servers/remote_server.mjs"};
    argv.insert(argv.end(), options.begin(), options.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      ::execvp("node", args.data());
      ::_exit(127);
    }
    ::close(out[1]);
    std::string line;
    pollfd pfd{out[0], POLLIN, 0};
    while (line.find('\n') == std::string::npos && ::poll(&pfd, 1, 15000) > 0) {
      char buf[256];
      ssize_t n = ::read(out[0], buf, sizeof buf);
      if (n <= 0) break;
      line.append(buf, static_cast<std::size_t>(n));
    }
    ::close(out[0]);
    auto parsed = json::parse(line, nullptr, false);
    if (!parsed.is_object()) throw std::runtime_error("remote_server did not start: " + line);
    port_ = parsed["port"];
  }
  ~RemoteServer() { stop(); }
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  [[nodiscard]] int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

std::string remoteYaml(const std::string& url, const std::string& extra = "") {
  return "  remote:\n    url: " + url + "\n" + extra;
}

std::string config(const std::string& servers, const std::string& extra = "") {
  return "listen: 127.0.0.1:0\nservers:\n" + servers +
         "session: {idle_timeout: 60s, grace: 2s, request_timeout: 10s}\n" + extra;
}

class RemoteTest : public ::testing::Test {
 protected:
  TempDir dir_;
  std::string record_ = dir_.path() + "/record.jsonl";
};

TEST_F(RemoteTest, PlainLoopbackHttpListsAndCallsToolsWithTheConfiguredHeaders) {
  RemoteServer remote({"--record", record_, "--require-header", "x-api-key=s3cret-value"});
  Gateway gw(config(remoteYaml("http://127.0.0.1:" + std::to_string(remote.port()) + "/mcp",
                               "    headers: {X-Api-Key: \"${REMOTE_TEST_KEY}\"}\n")),
             {"REMOTE_TEST_KEY=s3cret-value"});
  const std::string sid = gw.initialize("remote");
  auto list = gw.post("remote", {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}}, sid,
                      "application/json");
  ASSERT_EQ(list.status, 200) << list.body;
  std::vector<std::string> names;
  const json listed = list.json_body();
  for (const json& tool : listed["result"]["tools"]) names.push_back(tool["name"]);
  EXPECT_EQ(names,
            (std::vector<std::string>{"echo", "aws_key", "big", "announce", "sample", "progress"}))
      << list.body;
  EXPECT_EQ(text(gw.callTool("remote", sid, "echo", {{"text", "héllo remote"}})), "héllo remote");

  // Progress notifications stream through, then the answer.
  json call = toolCall(6, "progress", {{"steps", 3}});
  call["params"]["_meta"] = {{"progressToken", "tok"}};
  auto progress = gw.post("remote", call, sid);
  ASSERT_EQ(progress.status, 200);
  auto events = progress.events();
  ASSERT_EQ(events.size(), 4u) << progress.body;
  EXPECT_EQ(events[0]["method"], "notifications/progress");
  EXPECT_EQ(events[3]["result"]["content"][0]["text"], "done 3 steps");

  EXPECT_EQ(http(gw.port(), "DELETE", "/mcp/remote", {{"Mcp-Session-Id", sid}}).status, 200);
  // The remote saw the session end too, with its own session id.
  EXPECT_TRUE(waitUntil(
      [&] { return readFile(record_).find("\"method\":\"DELETE\"") != std::string::npos; }, 5s));
  EXPECT_EQ(gw.log().find("s3cret-value"), std::string::npos) << "header value in the log";
}

TEST_F(RemoteTest, MessagesOutsideRequestsComeThroughTheGetStream) {
  RemoteServer remote({"--record", record_});
  Gateway gw(config(remoteYaml("http://127.0.0.1:" + std::to_string(remote.port()) + "/mcp")));
  const std::string sid = gw.initialize("remote");
  // The gateway opened its own GET stream to the remote after initialized.
  EXPECT_TRUE(waitUntil(
      [&] { return readFile(record_).find("\"method\":\"GET\"") != std::string::npos; }, 5s));
  StreamingRequest stream(gw.port(), "GET", "/mcp/remote",
                          {{"Accept", "text/event-stream"}, {"Mcp-Session-Id", sid}}, "");
  EXPECT_EQ(text(gw.callTool("remote", sid, "announce", json::object())), "announcing");
  EXPECT_TRUE(stream.readUntil("notifications/tools/list_changed", 5s)) << stream.raw();
}

TEST_F(RemoteTest, WrongHeaderIsAnHttpErrorForTheRequest) {
  RemoteServer remote({"--require-header", "x-api-key=right"});
  Gateway gw(config(remoteYaml("http://127.0.0.1:" + std::to_string(remote.port()) + "/mcp",
                               "    headers: {X-Api-Key: wrong}\n")));
  auto r = gw.post("remote", initializeRequest(), "", "application/json");
  ASSERT_EQ(r.status, 200) << r.body;
  json error = r.json_body()["error"];
  EXPECT_EQ(error["code"], -32000);
  EXPECT_EQ(error["message"],
            "MCP server 'remote' answered HTTP 401 Unauthorized (check the server's headers)");
  EXPECT_EQ(error["data"]["status"], 401);
  EXPECT_EQ(error["data"]["reason"], "upstream_http_error");
}

class RemoteTlsTest : public RemoteTest {
 protected:
  Pki pki_{dir_, "trusted"};
  std::string server_ = pki_.server("server");

  std::string httpsYaml(int port, const std::string& tls) {
    return remoteYaml("https://localhost:" + std::to_string(port) + "/mcp",
                      "    tls: " + tls + "\n");
  }
};

TEST_F(RemoteTlsTest, HttpsWithTheConfiguredCa) {
  RemoteServer remote({"--cert", server_ + ".pem", "--key", server_ + ".key", "--record", record_});
  Gateway gw(config(httpsYaml(remote.port(), "{ca_file: " + pki_.ca() + "}")));
  const std::string sid = gw.initialize("remote");
  EXPECT_EQ(text(gw.callTool("remote", sid, "echo", {{"text", "over tls"}})), "over tls");
  // By IP address too: the certificate names 127.0.0.1.
  Gateway by_ip(config(remoteYaml("https://127.0.0.1:" + std::to_string(remote.port()) + "/mcp",
                                  "    tls: {ca_file: " + pki_.ca() + "}\n")));
  const std::string sid2 = by_ip.initialize("remote");
  EXPECT_EQ(text(by_ip.callTool("remote", sid2, "echo", {{"text", "by ip"}})), "by ip");
}

TEST_F(RemoteTlsTest, KeyInArgumentsIsBlockedAndNeverReachesTheRemote) {
  RemoteServer remote({"--cert", server_ + ".pem", "--key", server_ + ".key", "--record", record_});
  Gateway gw(config(httpsYaml(remote.port(), "{ca_file: " + pki_.ca() + "}"),
                    "dlp: {default_action: {request: block}}\n"));
  const std::string sid = gw.initialize("remote");
  json blocked = gw.callTool("remote", sid, "echo", {{"text", std::string("key ") + kKey}});
  EXPECT_EQ(blocked["error"]["code"], -32003) << blocked;
  EXPECT_EQ(blocked["error"]["data"]["rules"], json::array({"aws-access-key-id"}));
  EXPECT_EQ(text(gw.callTool("remote", sid, "echo", {{"text", "clean"}})), "clean");
  const std::string received = readFile(record_);
  EXPECT_NE(received.find("clean"), std::string::npos);
  EXPECT_EQ(received.find(kKey), std::string::npos) << "the remote received the key";
}

TEST_F(RemoteTlsTest, KeyInTheRemotesResultIsRedacted) {
  RemoteServer remote({"--cert", server_ + ".pem", "--key", server_ + ".key"});
  Gateway gw(config(httpsYaml(remote.port(), "{ca_file: " + pki_.ca() + "}")));
  const std::string sid = gw.initialize("remote");
  EXPECT_EQ(text(gw.callTool("remote", sid, "aws_key", json::object())),
            "the key is [REDACTED:aws-access-key-id] here");
  EXPECT_EQ(gw.log().find(kKey), std::string::npos);
}

TEST_F(RemoteTlsTest, CertificateFromAnotherCaIsRefusedAndNothingIsSent) {
  Pki other(dir_, "other");
  const std::string impostor = other.server("impostor");
  RemoteServer remote(
      {"--cert", impostor + ".pem", "--key", impostor + ".key", "--record", record_});
  Gateway gw(config(httpsYaml(remote.port(), "{ca_file: " + pki_.ca() + "}")));
  auto r = gw.post("remote", initializeRequest(), "", "application/json");
  ASSERT_EQ(r.status, 200) << r.body;
  json error = r.json_body()["error"];
  EXPECT_EQ(error["code"], -32000);
  EXPECT_EQ(error["message"], "cannot reach MCP server 'remote' at https://localhost:" +
                                  std::to_string(remote.port()) +
                                  ": its TLS certificate was not accepted: unable to get local "
                                  "issuer certificate");
  EXPECT_EQ(error["data"]["reason"], "upstream_tls_failed");
  EXPECT_EQ(readFile(record_), "") << "a request reached the impostor";
}

TEST_F(RemoteTlsTest, CertificateForAnotherHostIsRefused) {
  const std::string elsewhere = pki_.server("elsewhere", "DNS:elsewhere.example");
  RemoteServer remote(
      {"--cert", elsewhere + ".pem", "--key", elsewhere + ".key", "--record", record_});
  Gateway gw(config(httpsYaml(remote.port(), "{ca_file: " + pki_.ca() + "}")));
  auto r = gw.post("remote", initializeRequest(), "", "application/json");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.json_body()["error"]["message"].get<std::string>().find(
                "its TLS certificate was not accepted: hostname mismatch"),
            std::string::npos)
      << r.body;
  EXPECT_EQ(readFile(record_), "");
}

TEST_F(RemoteTlsTest, ClientCertificateRequiredByTheRemote) {
  Pki clients(dir_, "clients");
  const std::string client = clients.client("gateway");
  RemoteServer remote({"--cert", server_ + ".pem", "--key", server_ + ".key", "--client-ca",
                       clients.ca(), "--record", record_});
  {
    Gateway without(config(httpsYaml(remote.port(), "{ca_file: " + pki_.ca() + "}")));
    auto r = without.post("remote", initializeRequest(), "", "application/json");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.json_body()["error"]["data"]["reason"], "upstream_tls_failed") << r.body;
  }
  Gateway with(config(httpsYaml(remote.port(), "{ca_file: " + pki_.ca() + ", cert_file: " + client +
                                                   ".pem, key_file: " + client + ".key}")));
  const std::string sid = with.initialize("remote");
  EXPECT_EQ(text(with.callTool("remote", sid, "echo", {{"text", "mutual"}})), "mutual");
}

TEST_F(RemoteTest, RemoteDownIsACleanErrorAndTheGatewayKeepsServing) {
  int port = 0;
  {
    RemoteServer gone({});
    port = gone.port();
  }  // stopped: nothing listens there now
  Gateway gw(config(remoteYaml("http://127.0.0.1:" + std::to_string(port) + "/mcp") +
                    testServerYaml("local")));
  const auto start = std::chrono::steady_clock::now();
  auto r = gw.post("remote", initializeRequest(), "", "application/json");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  ASSERT_EQ(r.status, 200) << r.body;
  json error = r.json_body()["error"];
  EXPECT_EQ(r.json_body()["id"], 0);
  EXPECT_EQ(error["code"], -32000);
  EXPECT_EQ(error["message"], "cannot reach MCP server 'remote' at http://127.0.0.1:" +
                                  std::to_string(port) + ": Connection refused");
  EXPECT_EQ(error["data"]["reason"], "upstream_unreachable");
  // The session that never started does not hold a slot.
  EXPECT_TRUE(waitUntil(
      [&] {
        return gw.log().find("was stopped: it could not be initialized: cannot reach") !=
               std::string::npos;
      },
      5s))
      << gw.log();
  if (!r.header("mcp-session-id").empty()) {
    EXPECT_EQ(gw.post("remote", toolCall(1, "echo"), r.header("mcp-session-id")).status, 404);
  }
  // Other servers are unaffected.
  const std::string sid = gw.initialize("local");
  EXPECT_EQ(text(gw.callTool("local", sid, "echo", {{"text", "still serving"}})), "still serving");
}

TEST_F(RemoteTest, RemoteThatForgetsTheSessionEndsIt) {
  std::unique_ptr<RemoteServer> remote = std::make_unique<RemoteServer>(std::vector<std::string>{});
  const int port = remote->port();
  Gateway gw(config(remoteYaml("http://127.0.0.1:" + std::to_string(port) + "/mcp")));
  const std::string sid = gw.initialize("remote");
  EXPECT_EQ(text(gw.callTool("remote", sid, "echo", {{"text", "before"}})), "before");
  remote->stop();  // a restart: the new process knows no session
  remote = std::make_unique<RemoteServer>(std::vector<std::string>{"--port", std::to_string(port)});
  json lost = gw.callTool("remote", sid, "echo", {{"text", "after"}});
  EXPECT_EQ(lost["error"]["code"], -32000) << lost;
  EXPECT_EQ(lost["error"]["message"],
            "MCP server 'remote' was stopped: it lost its remote session (the remote answered "
            "404 Not Found to its session id)");
  // The gateway's session is gone too: the client starts a new one.
  EXPECT_EQ(gw.post("remote", toolCall(2, "echo", {{"text", "x"}}), sid).status, 404);
  const std::string fresh = gw.initialize("remote");
  EXPECT_EQ(text(gw.callTool("remote", fresh, "echo", {{"text", "again"}})), "again");
}

TEST_F(RemoteTest, StdioProxiesARemoteEvenWhenTheClientDoesNotWaitForInitialize) {
  RemoteServer remote({"--record", record_});
  const std::string file = dir_.write(
      "gw.yaml", config(remoteYaml("http://127.0.0.1:" + std::to_string(remote.port()) + "/mcp")));
  const std::string lines =
      initializeRequest().dump() + "\n" +
      json({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}).dump() + "\n" +
      toolCall(2, "echo", {{"text", "piped"}}).dump() + "\n";
  dir_.write("in.jsonl", lines);
  // All three lines at once; stdin stays open until the call's answer is out (compiling the
  // shipped rule packs with no cache takes seconds on a loaded or sanitized build), at most 60 s.
  dir_.write("run.sh", "d=" + dir_.path() +
                           "\n"
                           "(cat $d/in.jsonl; i=0\n"
                           " while [ $i -lt 600 ] && ! grep -q '\"id\":2}' $d/out.jsonl; do\n"
                           "   sleep 0.1; i=$((i+1)); done) |\n"
                           "  \"$1\" stdio -c \"$2\" remote > $d/out.jsonl 2>$d/err.log\n"
                           "s=$?; cat $d/out.jsonl; [ $s = 0 ] || cat $d/err.log; exit $s\n");
  auto r = runCommand("sh " + dir_.path() + "/run.sh " + mcpgateBinary() + " " + file);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(
      r.output.find(
          R"({"result":{"content":[{"type":"text","text":"piped"}]},"jsonrpc":"2.0","id":2})"),
      std::string::npos)
      << r.output;
}

TEST_F(RemoteTest, AnswerOverTheLineLimitIsAnErrorForThatRequest) {
  for (const std::string mode : {"--json", "--sse"}) {
    std::vector<std::string> options;
    if (mode == "--json") options.push_back(mode);
    RemoteServer remote(options);
    Gateway gw(config(remoteYaml("http://127.0.0.1:" + std::to_string(remote.port()) + "/mcp"),
                      "limits: {max_line_bytes: 4KiB}\n"));
    const std::string sid = gw.initialize("remote");
    json big = gw.callTool("remote", sid, "big", {{"bytes", 8192}});
    EXPECT_EQ(big["error"]["code"], -32000) << mode << " " << big;
    EXPECT_EQ(big["error"]["message"],
              "MCP server 'remote' sent an answer larger than max_line_bytes (4096 bytes)")
        << mode;
    EXPECT_EQ(big["error"]["data"]["reason"], "upstream_too_large") << mode;
    EXPECT_EQ(text(gw.callTool("remote", sid, "big", {{"bytes", 10}})), "xxxxxxxxxx") << mode;
  }
}

// Issue 19, item 1 for remote servers: a remote that floods a POST's SSE
// stream (200,000 events of 1 KB, written as its socket drains) to a client
// that reads the first event and then nothing. The gateway stops reading the
// remote's socket while the session is over budget, so its RSS stays bounded,
// and ends the stalled stream with stream_overflow; the session goes on.
TEST_F(RemoteTest, ARemoteFloodingAClientThatDoesNotReadCannotGrowTheGateway) {
  RemoteServer remote({});
  Gateway gw(config(remoteYaml("http://127.0.0.1:" + std::to_string(remote.port()) + "/mcp"),
                    "limits: {max_stream_queue_bytes: 4MiB, max_session_queue_bytes: 8MiB, "
                    "stream_stall_timeout: 3s}\n"));
  const std::string sid = gw.initialize("remote");
  const long before = rssKiB(gw.pid());
  ASSERT_GT(before, 0);
  StreamingRequest stalled(gw.port(), "POST", "/mcp/remote",
                           {{"Content-Type", "application/json"},
                            {"Accept", "application/json, text/event-stream"},
                            {"Mcp-Session-Id", sid}},
                           toolCall(9, "flood", {{"count", 200'000}, {"bytes", 1000}}).dump());
  ASSERT_TRUE(stalled.readUntil("event: message", 20s)) << stalled.raw().substr(0, 500);
  // Until the stream is ended (on a loaded machine the server may take a while to fill the
  // socket buffers and the budget), and 2 s more: what the server sends meanwhile is dropped.
  const auto [peak, ended] =
      watchRssUntilLogged(gw, before, "client stream ended: the client does not read it", 120s);
  ASSERT_TRUE(ended) << gw.log().substr(0, 3000);
  std::printf("gateway RSS %ld KiB before the flood, peak %ld KiB\n", before, peak);
#if !defined(__SANITIZE_ADDRESS__)  // ASan's quarantine holds freed memory in RSS
  EXPECT_LT(peak - before, 64 * 1024) << "RSS grew from " << before << " KiB to " << peak << " KiB";
#endif
  ASSERT_TRUE(stalled.readUntil("stream_overflow", 60s));
  ASSERT_TRUE(stalled.readUntil("0\r\n\r\n", 30s));
  const auto events = parseResponse(stalled.raw()).events();
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back()["id"], 9);
  EXPECT_EQ(events.back()["error"]["data"]["reason"], "stream_overflow") << events.back().dump();
  EXPECT_EQ(text(gw.callTool("remote", sid, "echo", {{"text", "still here"}})), "still here");
}

TEST_F(RemoteTest, PlainHttpToAnotherHostIsRefusedAtLoad) {
  auto r = runCommand(mcpgateBinary() + " config check " +
                      dir_.write("gw.yaml", config(remoteYaml("http://mcp.example.com/mcp"))));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("is plain http to another host"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mcpgate::testing
