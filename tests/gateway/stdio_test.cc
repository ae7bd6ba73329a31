// `mcpgate stdio`: a desktop client's view, through real pipes.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/gateway/harness.h"

namespace mcpgate::testing {
namespace {

using namespace std::chrono_literals;

class StdioGateway {
 public:
  explicit StdioGateway(const std::string& config_yaml) {
    // Its own state_dir: tool pins must not leak between tests or runs.
    std::string cfg =
        dir_.write("mcpgate.yaml", config_yaml + "\nstate_dir: " + dir_.path() + "/state\n");
    log_ = dir_.path() + "/stderr.log";
    int in[2], out[2];
    EXPECT_EQ(::pipe2(in, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
    std::string bin = mcpgateBinary();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(in[0], STDIN_FILENO);
      ::dup2(out[1], STDOUT_FILENO);
      int err = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(err, STDERR_FILENO);
      ::execl(bin.c_str(), bin.c_str(), "stdio", "-c", cfg.c_str(), "test", nullptr);
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  ~StdioGateway() {
    closeInput();
    if (from_ >= 0) ::close(from_);
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  void send(const std::string& line) {
    std::string data = line + "\n";
    ASSERT_EQ(::write(to_, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  }
  void closeInput() {
    if (to_ >= 0) ::close(to_);
    to_ = -1;
  }
  // The next line from the gateway's stdout, parsed; null on timeout.
  json receive(std::chrono::milliseconds timeout = 10s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return json::parse(line);
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{from_, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) return nullptr;
      char buf[65536];
      ssize_t n = ::read(from_, buf, sizeof buf);
      if (n <= 0) return nullptr;
      buffer_.append(buf, static_cast<std::size_t>(n));
    }
  }
  std::optional<int> wait(std::chrono::milliseconds timeout) {
    int status = 0;
    bool done = waitUntil([&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; }, timeout);
    if (!done) return std::nullopt;
    pid_ = -1;
    return status;
  }
  [[nodiscard]] pid_t pid() const { return pid_; }

 private:
  TempDir dir_;
  std::string log_;
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string buffer_;
};

std::string config() { return "servers:\n" + testServerYaml(); }

TEST(Stdio, ProxiesAClientSessionAndExitsWhenTheClientCloses) {
  StdioGateway gw(config());
  gw.send(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  json init = gw.receive();
  ASSERT_FALSE(init.is_null());
  EXPECT_EQ(init["result"]["serverInfo"]["name"], "mcpgate-test-server");
  gw.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  const std::set<pid_t> processes = descendants(gw.pid());
  ASSERT_FALSE(processes.empty());

  // Progress and the response arrive in order on stdout.
  gw.send(
      R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{"steps":2},"_meta":{"progressToken":7}}})");
  EXPECT_EQ(gw.receive()["method"], "notifications/progress");
  EXPECT_EQ(gw.receive()["method"], "notifications/progress");
  EXPECT_EQ(gw.receive()["id"], 3);

  gw.closeInput();
  auto status = gw.wait(10s);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0);
  EXPECT_FALSE(anyAlive(processes));
}

TEST(Stdio, MalformedLinesGetErrorsAndTheProxyStaysUp) {
  StdioGateway gw(config());
  gw.send("{not json");
  json err = gw.receive();
  EXPECT_EQ(err["error"]["code"], -32700);
  EXPECT_EQ(err["id"], nullptr);
  gw.send(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
  json pong = gw.receive();
  EXPECT_EQ(pong["id"], 1);
  EXPECT_TRUE(pong.contains("result"));
}

TEST(Stdio, ServerCrashFailsPendingRequestAndExitsNonZero) {
  StdioGateway gw(config());
  gw.send(
      R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"crash","arguments":{}}})");
  json err = gw.receive();
  EXPECT_EQ(err["id"], 4);
  EXPECT_EQ(err["error"]["code"], -32000);
  auto status = gw.wait(10s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(WEXITSTATUS(*status), 1);
}

TEST(Stdio, DlpBlocksAndRedactsAsOverHttp) {
  const std::string key = "AKIA4YSNI2G3IITN5XVK";  // synthetic, in AWS's format
  StdioGateway gw("servers:\n" + testServerYaml("test", "    env: {FAKE_KEY: " + key + "}\n") +
                  "dlp: {default_action: {request: block}}\n");
  gw.send(
      R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":")" +
      key + R"("}}})");
  json blocked = gw.receive();
  EXPECT_EQ(blocked["id"], 5);
  EXPECT_EQ(blocked["error"]["code"], -32003);
  EXPECT_EQ(blocked["error"]["data"]["rules"], json::array({"aws-access-key-id"}));
  // Responses keep the rules' own action (redact for this one).
  gw.send(
      R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"env","arguments":{"name":"FAKE_KEY"}}})");
  json redacted = gw.receive();
  EXPECT_EQ(redacted["id"], 6);
  EXPECT_EQ(redacted["result"]["content"][0]["text"], "[REDACTED:aws-access-key-id]");
}

// The answer to request `id`, skipping notifications on the way.
json answerTo(StdioGateway& gw, int id) {
  for (int i = 0; i < 20; ++i) {
    json message = gw.receive();
    if (message.is_null() || message.value("id", json()) == id) return message;
  }
  return nullptr;
}

std::vector<std::string> listedTools(StdioGateway& gw, int id) {
  gw.send(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"tools/list"})");
  std::vector<std::string> names;
  const json answer = answerTo(gw, id);  // named: a range-for would not keep it alive
  for (const json& tool : answer["result"]["tools"]) names.push_back(tool["name"]);
  return names;
}

TEST(Stdio, PolicyAndPinningApplyAsOverHttp) {
  StdioGateway gw(config() + "policies:\n  - match: {tool: env}\n    deny: true\n");
  gw.send(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  ASSERT_FALSE(answerTo(gw, 1).is_null());
  auto names = listedTools(gw, 2);
  EXPECT_EQ(std::count(names.begin(), names.end(), "env"), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), "echo"), 1);

  gw.send(
      R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mutate","arguments":{"tool":"echo","description":"changed"}}})");
  ASSERT_EQ(answerTo(gw, 3)["result"]["content"][0]["text"], "changed echo");
  names = listedTools(gw, 4);
  EXPECT_EQ(std::count(names.begin(), names.end(), "echo"), 0);

  gw.send(
      R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}})");
  json held = answerTo(gw, 5);
  EXPECT_EQ(held["error"]["code"], -32004) << held.dump();
  EXPECT_EQ(held["error"]["data"]["reason"], "tool_not_approved");
  gw.send(
      R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"env","arguments":{"name":"HOME"}}})");
  json denied = answerTo(gw, 6);
  EXPECT_EQ(denied["error"]["code"], -32004) << denied.dump();
  EXPECT_EQ(denied["error"]["data"]["reason"], "tool_denied");
}

TEST(Stdio, UnknownServerIsAClearError) {
  TempDir dir;
  std::string cfg = dir.write("c.yaml", config());
  auto run = runCommand(mcpgateBinary() + " stdio -c " + cfg + " nope");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.output.find("no server 'nope'"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace mcpgate::testing
