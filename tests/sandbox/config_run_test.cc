// `mcpgate sandbox run -c FILE --server NAME`: a server from a real gateway
// config, run by the real mcpgate binary under the sandbox its config
// describes (global section plus the server's own), with stdio passed through.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/process.h"

namespace mcpgate::sandbox {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMcpgate = MCPGATE_BINARY;

using Result = mcpgate::test_support::ProcessResult;

Result run(const std::vector<std::string>& argv, const std::string& input = "") {
  return mcpgate::test_support::runProcess(argv, input);
}

class SandboxRunFromConfig : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (fs::temp_directory_path() / "mcpgate-sandbox-config-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
    // Run as root, the sandbox's user is unprivileged on the host: it must be
    // able to reach the bind source through mkdtemp's 0700 directory.
    ::chmod(dir_.c_str(), 0755);
    fs::create_directory(dir_ + "/data");
    std::ofstream(dir_ + "/data/note.txt") << "from the bind";
    // sandbox.commands lists node alone: python3 is refused at config load.
    std::ofstream(dir_ + "/gw.yaml") << R"yaml(sandbox:
  commands: [node]
  limits: {processes: 64}
servers:
  probe:
    command: node
    args: ["-e", "console.log(require('os').hostname()), console.log(require('fs').readFileSync('/data/note.txt', 'utf8')), process.exit(3)"]
    sandbox:
      binds: [{src: )yaml" << dir_ << R"yaml(/data, dst: /data}]
  echo:
    command: node
    args: ["-e", "process.stdin.pipe(process.stdout)"]
)yaml";
  }

  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  std::string dir_;
};

TEST_F(SandboxRunFromConfig, RunsTheServersCommandInItsSandboxAndExitsWithItsCode) {
  const Result r = run({kMcpgate, "sandbox", "run", "-c", dir_ + "/gw.yaml", "--server", "probe"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(r.out, "mcp-probe\nfrom the bind\n") << r.err;
}

TEST_F(SandboxRunFromConfig, PassesStdinThrough) {
  const Result r = run({kMcpgate, "sandbox", "run", "--server", "echo", "-c", dir_ + "/gw.yaml"},
                       "{\"jsonrpc\":\"2.0\"}\n");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"jsonrpc\":\"2.0\"}\n") << r.err;
}

TEST_F(SandboxRunFromConfig, ReportsAnUnknownServerAndConfigErrors) {
  Result r = run({kMcpgate, "sandbox", "run", "-c", dir_ + "/gw.yaml", "--server", "nope"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "sandbox run: no server 'nope' in " + dir_ + "/gw.yaml (servers: echo, probe)\n");

  std::ofstream(dir_ + "/bad.yaml")
      << "sandbox: {commands: [node]}\nservers:\n  x: {command: python3}\n";
  r = run({kMcpgate, "sandbox", "run", "-c", dir_ + "/bad.yaml", "--server", "x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "sandbox run: " + dir_ +
                       "/bad.yaml:3: servers.x.command: command 'python3' (/usr/bin/python3) is "
                       "not in the sandbox command allowlist [node]; add it to sandbox.commands\n");

  r = run({kMcpgate, "sandbox", "run", "-c", dir_ + "/gw.yaml", "--server", "echo", "--", "sh"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("sandbox run: '--' cannot be combined with --server"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace mcpgate::sandbox
