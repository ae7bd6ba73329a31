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

namespace mcpgate::sandbox {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMcpgate = MCPGATE_BINARY;

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

std::string drain(int fd) {
  std::string text;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(n));
  ::close(fd);
  return text;
}

// Runs argv with `input` on stdin and stdout/stderr captured.
Result run(const std::vector<std::string>& argv, const std::string& input = "") {
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    return {};
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  Result result;
  std::thread errors([&] { result.err = drain(err[0]); });
  if (!input.empty()) (void)!::write(in[1], input.data(), input.size());
  ::close(in[1]);
  result.out = drain(out[0]);
  errors.join();
  int status = 0;
  ::waitpid(pid, &status, 0);
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
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
