// spawn(), the gateway's entry point, as real processes: a server in the
// sandbox is never host root and leaves nothing behind, signals reach it
// through the namespace's init, and the whole tree dies with its supervisor
// or with the gateway.

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "sandbox/lifecycle.h"
#include "sandbox/policy.h"
#include "sandbox/spawn.h"
#include "tests/sandbox/sandbox_test_util.h"

namespace mcpgate::sandbox {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace tests;

std::vector<pid_t> childrenOf(pid_t pid) {
  std::vector<pid_t> kids;
  std::ifstream f("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  pid_t k = 0;
  while (f >> k) kids.push_back(k);
  return kids;
}

std::string statusField(pid_t pid, const std::string& field) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.starts_with(field + ":")) return line.substr(field.size() + 2);
  }
  return "";
}

std::size_t countEntries(const char* dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

std::size_t countLines(const char* file) {
  std::ifstream f(file);
  std::size_t n = 0;
  std::string line;
  while (std::getline(f, line)) ++n;
  return n;
}

// Reads the child's stdout until `needle` appears or 10 s pass.
std::string readUntil(const Child& child, const std::string& needle) {
  std::string text;
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (text.find(needle) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    pollfd pfd{child.stdout_fd.get(), POLLIN, 0};
    if (::poll(&pfd, 1, 100) <= 0) continue;
    char buf[1024];
    ssize_t n = ::read(child.stdout_fd.get(), buf, sizeof buf);
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  return text;
}

TEST(Spawn, WithoutAPolicyBehavesAsBefore) {
  SpawnSpec spec{"echo", "echo", {"plain"}, {{"GREETING", "hi"}}, ""};
  auto child = spawn(spec);
  ASSERT_TRUE(child) << child.error().message;
  EXPECT_EQ(readUntil(*child, "\n"), "plain\n");
  pollfd exited{child->pidfd.get(), POLLIN, 0};
  ASSERT_EQ(::poll(&exited, 1, 5000), 1);
  auto status = tryReap(*child);
  ASSERT_TRUE(status);
  EXPECT_EQ(*status, 0) << describeExit(*status);
}

TEST(Spawn, SandboxedServerIsNeverHostRootAndLeavesNothingBehind) {
  if (::geteuid() != 0) GTEST_SKIP() << "checks the host-root mapping";
  std::size_t fds_before = countEntries("/proc/self/fd");
  std::size_t mounts_before = countLines("/proc/self/mountinfo");
  auto child = spawn(sandboxedProbe({"ids", "sleep:60"}));
  ASSERT_TRUE(child) << child.error().message;
  pid_t supervisor = child->pid;
  EXPECT_EQ(readUntil(*child, "\n"), "ids: ok uid=1000 euid=1000 gid=1000 egid=1000\n");

  // supervisor -> init (PID 1 inside) -> server, seen from the host.
  auto inits = childrenOf(supervisor);
  ASSERT_EQ(inits.size(), 1u);
  auto servers = childrenOf(inits[0]);
  ASSERT_EQ(servers.size(), 1u);
  pid_t server = servers[0];
  EXPECT_EQ(statusField(server, "Uid"), "65534\t65534\t65534\t65534");
  EXPECT_EQ(statusField(server, "CapEff"), "0000000000000000");
  EXPECT_EQ(statusField(server, "NoNewPrivs"), "1");
  EXPECT_EQ(statusField(server, "Seccomp"), "2");
  EXPECT_EQ(statusField(server, "NSpid").substr(statusField(server, "NSpid").rfind('\t') + 1), "2");
  EXPECT_FALSE(leftoverCgroups(supervisor).empty()) << "the sandbox should be in its own cgroup";
  // The server was born inside them: its memory, pids and cpu groups are the sandbox's.
  std::string inside;
  {
    std::ifstream groups("/proc/" + std::to_string(server) + "/cgroup");
    std::string line;
    while (std::getline(groups, line)) {
      if (line.find("mcpgate-" + std::to_string(supervisor) + "-") != std::string::npos)
        inside += line.substr(line.find(':') + 1, line.rfind(':') - line.find(':') - 1) + " ";
    }
  }
  EXPECT_EQ(inside, "pids memory cpu ");

  int status = terminate(*child, 2s);
  EXPECT_TRUE(WIFEXITED(status) || WIFSIGNALED(status));
  EXPECT_EQ(::kill(server, 0), -1);
  EXPECT_EQ(::kill(inits[0], 0), -1);
  EXPECT_EQ(leftoverCgroups(supervisor), std::vector<std::string>{});
  *child = Child{};
  EXPECT_EQ(countEntries("/proc/self/fd"), fds_before);
  EXPECT_EQ(countLines("/proc/self/mountinfo"), mounts_before);
}

TEST(Spawn, SigtermReachesTheServerThroughInit) {
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "needs /usr/bin/python3";
  SpawnSpec spec;
  spec.name = "term";
  spec.command = "python3";
  // Short sleeps, not one long one: Python runs a handler between bytecodes,
  // so a SIGTERM that lands after its last check and before a sleep starts
  // would wait for that sleep to end (this test once failed so, under load).
  spec.args = {"-c",
               "import signal, sys, time\n"
               "signal.signal(signal.SIGTERM, lambda *a: sys.exit(7))\n"
               "print('ready', flush=True)\n"
               "for _ in range(1200): time.sleep(0.05)\n"};
  SandboxPolicy policy;
  policy.arg_deny.clear();  // the script has newlines; this test is about signals
  policy.on_unavailable = OnUnavailable::kDegrade;
  spec.sandbox = policy;
  spec.init_binary = kInit;
  auto child = spawn(spec);
  ASSERT_TRUE(child) << child.error().message;
  ASSERT_EQ(readUntil(*child, "ready\n"), "ready\n");
  int status = terminate(*child, 5s);
  ASSERT_TRUE(WIFEXITED(status)) << describeExit(status);
  EXPECT_EQ(WEXITSTATUS(status), 7);
}

TEST(Spawn, KillingTheSupervisorKillsTheWholeTree) {
  SpawnSpec spec = sandboxedProbe({"ids", "sleep:60"});
  spec.sandbox->on_unavailable = OnUnavailable::kDegrade;
  auto child = spawn(spec);
  ASSERT_TRUE(child) << child.error().message;
  readUntil(*child, "\n");
  auto inits = childrenOf(child->pid);
  ASSERT_EQ(inits.size(), 1u);
  auto servers = childrenOf(inits[0]);
  ASSERT_EQ(servers.size(), 1u);
  ASSERT_TRUE(signalChild(*child, SIGKILL));
  ::waitpid(child->pid, nullptr, 0);
  // die-with-parent: the init and the server go without anyone signalling them.
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while ((::kill(servers[0], 0) == 0 || ::kill(inits[0], 0) == 0) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(::kill(servers[0], 0), -1);
  EXPECT_EQ(::kill(inits[0], 0), -1);
  // The SIGKILLed supervisor could not remove its cgroup; a later spawn does
  // once the host has reaped the dead init (it keeps the group busy until then).
  deadline = std::chrono::steady_clock::now() + 10s;
  while (!leftoverCgroups(child->pid).empty() && std::chrono::steady_clock::now() < deadline) {
    auto next = spawn(sandboxedProbe({"exit:0"}));
    ASSERT_TRUE(next) << next.error().message;
    pollfd exited{next->pidfd.get(), POLLIN, 0};
    ::poll(&exited, 1, 5000);
    terminate(*next, 2s);
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(leftoverCgroups(child->pid), std::vector<std::string>{});
}

TEST(Spawn, ServerEverythingAnswersUnderTheDefaultProfile) {
  fs::path modules = NODE_MODULES_DIR;
  fs::path entry = modules / "@modelcontextprotocol/server-everything/dist/index.js";
  if (!fs::exists(entry))
    GTEST_SKIP() << "npm test dependencies not installed (docker/install-deps.sh)";
  SpawnSpec spec;
  spec.name = "everything";
  spec.command = "node";
  spec.args = {"/srv/node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"};
  SandboxPolicy policy;  // the default profile: network none, default limits
  policy.binds = {{modules.string(), "/srv/node_modules", true}};
  policy.on_unavailable = OnUnavailable::kDegrade;  // cgroups need root
  spec.sandbox = policy;
  spec.init_binary = kInit;
  auto child = spawn(spec);
  ASSERT_TRUE(child) << child.error().message;
  std::string requests =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
      R"("capabilities":{},"clientInfo":{"name":"sandbox_test","version":"1"}}})"
      "\n"
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
      "\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo",)"
      R"("arguments":{"message":"hi from the sandbox"}}})"
      "\n";
  ASSERT_EQ(::write(child->stdin_fd.get(), requests.data(), requests.size()),
            static_cast<ssize_t>(requests.size()));
  std::string out = readUntil(*child, "Echo: hi from the sandbox");
  EXPECT_NE(out.find(R"("id":1)"), std::string::npos) << out;
  EXPECT_NE(out.find("Echo: hi from the sandbox"), std::string::npos) << out;
  terminate(*child, 2s);
}

TEST(Spawn, TheTreeDiesWithTheGateway) {
  // A stand-in gateway process spawns a sandboxed server, reports the
  // supervisor's pid, and is then SIGKILLed.
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  pid_t gateway = ::fork();
  if (gateway == 0) {
    // Degrade where no cgroup can be made (an unprivileged run): the tree must die without one.
    SpawnSpec spec = sandboxedProbe({"sleep:60"});
    spec.sandbox->on_unavailable = OnUnavailable::kDegrade;
    auto child = spawn(spec);
    pid_t pid = child ? child->pid : -1;
    (void)::write(report[1], &pid, sizeof pid);
    ::pause();
    ::_exit(0);
  }
  ::close(report[1]);
  pid_t supervisor = -1;
  ASSERT_EQ(::read(report[0], &supervisor, sizeof supervisor),
            static_cast<ssize_t>(sizeof supervisor));
  ::close(report[0]);
  ASSERT_GT(supervisor, 0);
  // The sandbox comes up in its own time (slower unprivileged or under load): wait for the init
  // and the server under it, up to 10 s.
  std::vector<pid_t> inits, servers;
  for (const auto up = std::chrono::steady_clock::now() + 10s;
       std::chrono::steady_clock::now() < up; std::this_thread::sleep_for(20ms)) {
    inits = childrenOf(supervisor);
    servers = inits.size() == 1 ? childrenOf(inits[0]) : std::vector<pid_t>{};
    if (servers.size() == 1) break;
  }
  ASSERT_EQ(inits.size(), 1u);
  ASSERT_EQ(servers.size(), 1u);
  ::kill(gateway, SIGKILL);
  ::waitpid(gateway, nullptr, 0);
  auto deadline = std::chrono::steady_clock::now() + 5s;
  auto alive = [&] {
    return ::kill(supervisor, 0) == 0 || ::kill(inits[0], 0) == 0 || ::kill(servers[0], 0) == 0;
  };
  while (alive() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(alive()) << "supervisor, init or server outlived the gateway";
}

TEST(Spawn, RefusesCommandsOutsideTheAllowlistAndDeniedArguments) {
  SpawnSpec spec;
  spec.command = "sh";
  spec.args = {"-c", "id"};
  spec.sandbox = SandboxPolicy{};
  spec.init_binary = kInit;
  auto refused = spawn(spec);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("not in the sandbox command allowlist"), std::string::npos)
      << refused.error().message;

  spec.command = "node";
  spec.args = {"server.js; rm -rf ~"};
  auto bad_args = spawn(spec);
  ASSERT_FALSE(bad_args);
  EXPECT_NE(bad_args.error().message.find("denied pattern ';'"), std::string::npos)
      << bad_args.error().message;

  // A lone `&` (as a word of its own) is refused like `&&`; one inside a
  // word, as in a URL's query, is not.
  for (const char* arg : {"&", "server.js & curl x", "run\t&"}) {
    spec.args = {arg};
    auto background = spawn(spec);
    ASSERT_FALSE(background) << arg;
    EXPECT_NE(background.error().message.find("denied word '&'"), std::string::npos)
        << background.error().message;
  }
  SpawnSpec url = sandboxedProbe({"exit:3", "https://example.invalid/?a=1&b=2"});
  url.sandbox->on_unavailable = OnUnavailable::kDegrade;
  auto allowed = spawn(url);
  ASSERT_TRUE(allowed) << allowed.error().message;
  pollfd exited{allowed->pidfd.get(), POLLIN, 0};
  ASSERT_EQ(::poll(&exited, 1, 10000), 1);
  auto status = tryReap(*allowed);
  ASSERT_TRUE(status);
  EXPECT_EQ(WEXITSTATUS(*status), 3) << describeExit(*status);
}

}  // namespace
}  // namespace mcpgate::sandbox
