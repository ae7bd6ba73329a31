// A sandboxed server that closes its stdout (or stdin) but stays alive: the gateway must see the
// close at once. The sandbox's supervisor and init are processes of their own between the
// gateway and the server; a copy of the pipe kept in either hides the close until the server
// exits, and every request to it waits for the request timeout.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "sandbox/lifecycle.h"
#include "sandbox/policy.h"
#include "sandbox/spawn.h"
#include "tests/sandbox/sandbox_test_util.h"

namespace mcpgate::sandbox {
namespace {

using namespace tests;

Child spawnProbe(std::vector<std::string> actions) {
  SpawnSpec spec = sandboxedProbe(std::move(actions));
  // As an unprivileged gateway would run it, too: no cgroup is needed to show the pipe behaviour.
  spec.sandbox->on_unavailable = OnUnavailable::kDegrade;
  auto child = spawn(spec);
  EXPECT_TRUE(child) << child.error().message;
  return child ? std::move(*child) : Child{};
}

// Reads `fd` to its end (or 10 s); what it read, and whether the end came.
std::pair<std::string, bool> readToEnd(int fd) {
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd pfd{fd, POLLIN, 0};
    if (::poll(&pfd, 1, 100) <= 0) continue;
    char buf[1024];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) return {text, true};
    if (n < 0 && errno != EAGAIN) return {text, true};
    if (n > 0) text.append(buf, static_cast<std::size_t>(n));
  }
  return {text, false};
}

bool running(const Child& child) {
  pollfd exited{child.pidfd.get(), POLLIN, 0};
  return ::poll(&exited, 1, 0) == 0;
}

void stop(Child& child) {
  signalChild(child, SIGKILL);
  pollfd exited{child.pidfd.get(), POLLIN, 0};
  ::poll(&exited, 1, 5000);
  (void)tryReap(child);
}

TEST(ServerPipes, AStdoutClosedByALiveServerReachesTheGatewayAsEndOfFile) {
  Child child = spawnProbe({"ids", "close:1", "sleep:60"});
  ASSERT_GT(child.pid, 0);
  const auto [text, ended] = readToEnd(child.stdout_fd.get());
  EXPECT_TRUE(text.starts_with("ids: ok")) << text;
  EXPECT_TRUE(ended) << "stdout stayed open after the server closed it";
  EXPECT_TRUE(running(child)) << "the server should still be alive (sleeping)";
  stop(child);
}

TEST(ServerPipes, AStdinClosedByALiveServerFailsTheGatewaysWrites) {
  Child child = spawnProbe({"close:0", "ids", "sleep:60"});
  ASSERT_GT(child.pid, 0);
  // Once the probe has closed stdin (it reports afterwards), nobody reads the pipe any more.
  std::string text;
  {
    pollfd pfd{child.stdout_fd.get(), POLLIN, 0};
    for (int i = 0; i < 100 && text.find('\n') == std::string::npos; ++i) {
      if (::poll(&pfd, 1, 100) <= 0) continue;
      char buf[256];
      const ssize_t n = ::read(child.stdout_fd.get(), buf, sizeof buf);
      if (n > 0) text.append(buf, static_cast<std::size_t>(n));
    }
  }
  ASSERT_TRUE(text.starts_with("ids: ok")) << text;
  ::signal(SIGPIPE, SIG_IGN);
  errno = 0;
  const ssize_t n = ::write(child.stdin_fd.get(), "{}\n", 3);
  EXPECT_EQ(n, -1);
  EXPECT_EQ(errno, EPIPE) << "a copy of the stdin pipe is still open in the sandbox";
  EXPECT_TRUE(running(child));
  stop(child);
}

}  // namespace
}  // namespace mcpgate::sandbox
