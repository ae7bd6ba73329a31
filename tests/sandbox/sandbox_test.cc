// The sandbox as real processes: sandbox_runner (the module's entry points
// behind a thin main) contains escape_probe, which tries one escape per
// argument and prints the exact errno. Every escape case runs as root and
// again as an unprivileged user (setpriv), as the issue asks.

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sandbox/env.h"
#include "sandbox/lifecycle.h"
#include "sandbox/policy.h"
#include "sandbox/seccomp.h"
#include "sandbox/spawn.h"
#include "sandbox/spec_codec.h"
#include "sandbox/stderr_lines.h"

namespace mcpgate::sandbox {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kRunner = SANDBOX_RUNNER;
constexpr const char* kInit = SANDBOX_INIT;  // mcpgate-sandbox-init, what the gateway starts
constexpr const char* kProbeDir = ESCAPE_PROBE_DIR;
constexpr const char* kProbe = "/opt/probe/escape_probe";  // where the tests bind it

struct Result {
  int code = -1;
  std::string out;
  std::string err;
  pid_t pid = -1;
  // "action" -> "ok ..." / "ENOENT ..." for every line escape_probe printed.
  [[nodiscard]] std::string action(const std::string& name) const {
    std::istringstream lines(out);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.starts_with(name + ": ")) return line.substr(name.size() + 2);
    }
    return "(no output for " + name + "; stderr: " + err + ")";
  }
};

// Runs argv with stdout and stderr captured, stdin from /dev/null, and a
// 60 s deadline after which the whole run is killed.
Result run(const std::vector<std::string>& argv) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) return {};
  pid_t pid = ::fork();
  if (pid == 0) {
    int null = ::open("/dev/null", O_RDONLY);
    ::dup2(null, 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  Result result;
  result.pid = pid;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  auto deadline = std::chrono::steady_clock::now() + 60s;
  int open_count = 2;
  while (open_count > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      ::kill(pid, SIGKILL);
      break;
    }
    if (::poll(fds, 2, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      } else {
        (i == 0 ? result.out : result.err).append(buf, static_cast<std::size_t>(n));
      }
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) ::close(f.fd);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

// Directories where the sandbox creates its cgroups (our own groups).
std::vector<fs::path> cgroupParents() {
  std::vector<fs::path> parents;
  std::ifstream self("/proc/self/cgroup");
  std::string line;
  while (std::getline(self, line)) {
    auto a = line.find(':'), b = line.find(':', a + 1);
    std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    for (const char* c : {"memory", "pids"}) {
      if (controllers == c) parents.push_back(fs::path("/sys/fs/cgroup") / c / path.substr(1));
    }
  }
  return parents;
}

std::vector<std::string> leftoverCgroups(pid_t supervisor) {
  std::vector<std::string> left;
  std::string prefix = "mcpgate-" + std::to_string(supervisor) + "-";
  for (const auto& parent : cgroupParents()) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(parent, ec)) {
      if (entry.path().filename().string().starts_with(prefix)) left.push_back(entry.path());
    }
  }
  return left;
}

enum class As { kRoot, kNobody };

std::string asName(const testing::TestParamInfo<As>& info) {
  return info.param == As::kRoot ? "Root" : "Unprivileged";
}

class Escape : public testing::TestWithParam<As> {
 protected:
  void SetUp() override {
    if (::geteuid() != 0)
      GTEST_SKIP() << "the escape battery runs as root (and drops to nobody itself)";
    if (GetParam() == As::kNobody) {
      Result can = run({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        "/usr/bin/test", "-x", kRunner});
      if (can.code != 0)
        GTEST_SKIP() << "nobody cannot execute " << kRunner << " (directory permissions)";
    }
  }

  bool root() const { return GetParam() == As::kRoot; }

  // Runs escape_probe with `actions` in a sandbox built from `options`. As
  // nobody no cgroup can be created, so those runs degrade (the report says so).
  Result probe(std::vector<std::string> options, const std::vector<std::string>& actions) {
    std::vector<std::string> argv;
    if (!root()) argv = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
    argv.insert(argv.end(),
                {kRunner, "sandbox", "run", "--bind", std::string(kProbeDir) + ":/opt/probe"});
    if (!root()) argv.insert(argv.end(), {"--on-unavailable", "degrade"});
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back("--");
    argv.push_back(kProbe);
    argv.insert(argv.end(), actions.begin(), actions.end());
    Result r = run(argv);
    // setpriv execs the runner, so the pid is the supervisor's either way.
    EXPECT_EQ(leftoverCgroups(r.pid), std::vector<std::string>{}) << "cgroups left behind";
    return r;
  }
};

INSTANTIATE_TEST_SUITE_P(Both, Escape, testing::Values(As::kRoot, As::kNobody), asName);

TEST_P(Escape, CannotReadAFileCreatedOutside) {
  std::string path = "/tmp/mcpgate-secret-XXXXXX";
  int fd = ::mkstemp(path.data());
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "secret", 6), 6);
  ::fchmod(fd, 0644);  // readable by anyone on the host: only the sandbox hides it
  ::close(fd);
  Result r =
      probe({}, {"read:" + path, "read:" + std::string(kProbeDir) + "/CMakeFiles/../Makefile",
                 "read:/root/.bashrc"});
  ::unlink(path.c_str());
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.action("read:" + path), "ENOENT");
  EXPECT_EQ(r.action("read:/root/.bashrc"), "ENOENT");
}

TEST_P(Escape, CannotWriteUnderUsrOrEtc) {
  Result r = probe({}, {"write:/usr/mcpgate-escape", "write:/usr/bin/node", "write:/etc/passwd",
                        "write:/newfile"});
  EXPECT_EQ(r.action("write:/usr/mcpgate-escape"), "EROFS");
  EXPECT_EQ(r.action("write:/usr/bin/node"), "EROFS");
  EXPECT_EQ(r.action("write:/etc/passwd"), "EROFS");
  EXPECT_EQ(r.action("write:/newfile"), "EROFS");
  EXPECT_FALSE(fs::exists("/usr/mcpgate-escape"));
}

TEST_P(Escape, AnOverlayBindIsWritableInsideAndUnchangedOutside) {
  const std::string dir = "/tmp/mcpgate-overlay-XXXXXX";
  std::string host = dir;
  ASSERT_NE(::mkdtemp(host.data()), nullptr);
  { std::ofstream(host + "/existing") << "from the host"; }
  // Owned by the host id the sandbox user maps to, as an installed cache is
  // (nobody in both runs: root maps to it, and nobody is itself).
  ASSERT_EQ(::chmod(host.c_str(), 0755), 0);
  ASSERT_EQ(::chown(host.c_str(), 65534, 65534), 0);
  ASSERT_EQ(::chown((host + "/existing").c_str(), 65534, 65534), 0);
  Result r = probe(
      {"--bind", host + ":/cache:overlay"},
      {"read:/cache/existing", "write:/cache/new", "write:/cache/existing", "read:/cache/new"});
  EXPECT_EQ(r.code, 0) << r.err;
  for (const char* action :
       {"read:/cache/existing", "write:/cache/new", "write:/cache/existing", "read:/cache/new"}) {
    EXPECT_TRUE(r.action(action).starts_with("ok")) << action << ": " << r.action(action);
  }
  // Nothing written inside reached the host directory.
  EXPECT_FALSE(fs::exists(host + "/new"));
  std::ifstream existing(host + "/existing");
  std::string content((std::istreambuf_iterator<char>(existing)), {});
  EXPECT_EQ(content, "from the host");
  fs::remove_all(host);
}

TEST_P(Escape, BindSourcesAreLookedUpWithTheCallersIds) {
  // A world-readable folder inside a 0700 one of root's (a checkout under
  // /root): root binds it for the sandbox's user (nobody), who could not have
  // walked the path itself; nobody, who cannot walk it either, is refused.
  std::string outer = "/tmp/mcpgate-private-XXXXXX";
  ASSERT_NE(::mkdtemp(outer.data()), nullptr);
  ASSERT_EQ(::chmod(outer.c_str(), 0700), 0);
  fs::create_directory(outer + "/pub");
  ASSERT_EQ(::chmod((outer + "/pub").c_str(), 0755), 0);
  { std::ofstream(outer + "/pub/file") << "shared"; }
  ASSERT_EQ(::chmod((outer + "/pub/file").c_str(), 0644), 0);
  Result r = probe({"--bind", outer + "/pub:/data"}, {"read:/data/file"});
  fs::remove_all(outer);
  if (root()) {
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(r.action("read:/data/file").starts_with("ok")) << r.action("read:/data/file");
  } else {
    EXPECT_EQ(r.code, 125) << r.out;
    EXPECT_NE(r.err.find("open bind source " + outer + "/pub: Permission denied"),
              std::string::npos)
        << r.err;
  }
}

TEST_P(Escape, CannotReadTheGatewaysEnvironOrSignalIt) {
  std::string me = std::to_string(::getpid());
  Result r = probe({}, {"read:/proc/" + me + "/environ", "kill:" + me, "read:/proc/1/environ"});
  EXPECT_EQ(r.action("read:/proc/" + me + "/environ"), "ENOENT");
  EXPECT_EQ(r.action("kill:" + me), "ESRCH");
  // PID 1 is the sandbox's own init, a copy of the supervisor: not dumpable,
  // so the server cannot read the supervisor's environment through it either.
  EXPECT_EQ(r.action("read:/proc/1/environ"), "EACCES");
}

TEST_P(Escape, KernelAttackSurfaceAnswersWithExactErrno) {
  Result r =
      probe({}, {"ptrace", "mount", "unshare", "clone-newnet", "keyctl", "io_uring_setup", "clone3",
                 "personality-norandom", "personality-query", "socket-packet", "socket-netlink"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.action("ptrace"), "EPERM");
  EXPECT_EQ(r.action("mount"), "EPERM");
  EXPECT_EQ(r.action("unshare"), "EPERM");
  EXPECT_EQ(r.action("clone-newnet"), "EPERM");
  EXPECT_EQ(r.action("keyctl"), "EPERM");
  EXPECT_EQ(r.action("io_uring_setup"), "EPERM");
  EXPECT_EQ(r.action("clone3"), "ENOSYS");  // so glibc, Node and Python fall back to clone
  EXPECT_EQ(r.action("personality-norandom"), "EPERM");
  EXPECT_EQ(r.action("personality-query").substr(0, 2), "ok");
  EXPECT_EQ(r.action("socket-packet"), "EAFNOSUPPORT");
  EXPECT_EQ(r.action("socket-netlink").substr(0, 2), "ok");
}

TEST_P(Escape, TiocstiIsRefusedEvenWithHighBitsSet) {
  Result r = probe({}, {"tiocsti", "tiocsti-high-bits"});
  EXPECT_EQ(r.action("tiocsti"), "EPERM");
  EXPECT_EQ(r.action("tiocsti-high-bits"), "EPERM");
}

TEST_P(Escape, ForkBombStopsAtTheProcessLimitAndTheHostCanStillFork) {
  Result r = probe({"--processes", "32"}, {"forkbomb"});
  std::string verdict = r.action("forkbomb");
  ASSERT_TRUE(verdict.starts_with("EAGAIN after ")) << verdict;
  int forked = std::stoi(verdict.substr(std::string("EAGAIN after ").size()));
  EXPECT_LT(forked, 32);
  EXPECT_GT(forked, 10);
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ASSERT_GT(pid, 0) << "the host could not fork after the bomb";
  ::waitpid(pid, nullptr, 0);
}

TEST_P(Escape, MemoryBombIsKilledAtTheMemoryLimit) {
  if (!root()) GTEST_SKIP() << "memory limits need a cgroup; nobody cannot create one here";
  Result r = probe({"--memory", "64MiB"}, {"membomb:32", "membomb:512"});
  EXPECT_EQ(r.action("membomb:32"), "ok");  // below the limit: allowed
  EXPECT_EQ(r.code, 128 + SIGKILL) << r.out;
  EXPECT_NE(r.err.find("killed by the memory limit"), std::string::npos) << r.err;
}

TEST_P(Escape, FillingTmpStopsAtTheTmpfsSize) {
  Result r = probe({"--tmpfs", "8MiB", "--file-size", "1GiB"}, {"fill:/tmp/f", "fill:/home/mcp/f"});
  EXPECT_EQ(r.action("fill:/tmp/f"), "ENOSPC after 8388608");
  EXPECT_EQ(r.action("fill:/home/mcp/f"), "ENOSPC after 8388608");
}

TEST_P(Escape, FileSizeLimitStopsOneLargeFile) {
  Result r = probe({"--file-size", "1MiB"}, {"fill:/tmp/f"});
  EXPECT_EQ(r.action("fill:/tmp/f"), "EFBIG after 1048576");
}

TEST_P(Escape, ExhaustingFdsStopsAtTheLimit) {
  Result r = probe({"--open-files", "64"}, {"fds"});
  EXPECT_EQ(r.action("fds"), "EMFILE after 61");  // 64 minus stdin, stdout, stderr
}

TEST_P(Escape, HostLoopbackIsUnreachableWithNetworkNone) {
  int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 8), 0);
  socklen_t len = sizeof addr;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  std::string action = "connect:" + std::to_string(ntohs(addr.sin_port));
  Result none = probe({}, {action});
  Result host = probe({"--network", "host"}, {action});
  ::close(listener);
  EXPECT_EQ(none.action(action), "ECONNREFUSED");
  EXPECT_EQ(host.action(action), "ok");  // the control: the listener was reachable
}

TEST_P(Escape, ABoundUnixSocketReachesExactlyOneHostService) {
  fs::path dir = fs::temp_directory_path() / ("mcpgate-sock-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ::chmod(dir.c_str(), 0755);
  fs::path path = dir / "svc.sock";
  int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 8), 0);
  ::chmod(path.c_str(), 0777);  // the sandbox's user is nobody on the host
  // Read-only binds still allow connect(): the kernel checks EROFS only for
  // files, directories and symlinks.
  Result r = probe({"--bind", path.string() + ":/run/svc.sock"},
                   {"unix:/run/svc.sock", "unix:" + path.string()});
  ::close(listener);
  fs::remove_all(dir);
  EXPECT_EQ(r.action("unix:/run/svc.sock"), "ok");
  EXPECT_EQ(r.action("unix:" + path.string()), "ENOENT");
}

TEST_P(Escape, DeniedEnvironmentNeverReachesTheServer) {
  Result r =
      probe({"--env", "LD_PRELOAD=/tmp/x.so", "--env", "ld_library_path=/tmp", "--env",
             "NODE_OPTIONS=--require=/tmp/x.js", "--env", "PYTHONPATH=/tmp", "--env",
             "BASH_ENV=/tmp/x", "--env", "PATH=/tmp", "--env", "GREETING=hello"},
            {"env:LD_PRELOAD", "env:ld_library_path", "env:NODE_OPTIONS", "env:PYTHONPATH",
             "env:BASH_ENV", "env:PATH", "env:HOME", "env:TMPDIR", "env:GREETING", "env:USER"});
  EXPECT_EQ(r.action("env:LD_PRELOAD"), "(unset)");
  EXPECT_EQ(r.action("env:ld_library_path"), "(unset)");
  EXPECT_EQ(r.action("env:NODE_OPTIONS"), "(unset)");
  EXPECT_EQ(r.action("env:PYTHONPATH"), "(unset)");
  EXPECT_EQ(r.action("env:BASH_ENV"), "(unset)");
  EXPECT_EQ(r.action("env:PATH"), kSafePath);
  EXPECT_EQ(r.action("env:HOME"), "/home/mcp");
  EXPECT_EQ(r.action("env:TMPDIR"), "/tmp");
  EXPECT_EQ(r.action("env:GREETING"), "hello");
  EXPECT_EQ(r.action("env:USER"), "(unset)");  // nothing of the caller's environment leaks
}

TEST_P(Escape, SetuidBinaryGainsNothing) {
  fs::path dir = fs::temp_directory_path() / ("mcpgate-suid-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec |
                           fs::perms::group_read | fs::perms::others_read);
  fs::copy_file(std::string(kProbeDir) + "/escape_probe", dir / "suid_probe",
                fs::copy_options::overwrite_existing);
  ASSERT_EQ(::chown((dir / "suid_probe").c_str(), 0, 0), 0);
  ASSERT_EQ(::chmod((dir / "suid_probe").c_str(), 04755), 0);
  std::vector<std::string> argv;
  if (!root()) argv = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
  argv.insert(argv.end(), {kRunner, "sandbox", "run", "--on-unavailable", "degrade", "--bind",
                           dir.string() + ":/opt/suid", "--", "/opt/suid/suid_probe", "ids"});
  Result r = run(argv);
  fs::remove_all(dir);
  EXPECT_EQ(r.action("ids"), "ok uid=1000 euid=1000 gid=1000 egid=1000");
}

TEST_P(Escape, CommandExitCodeAndStdioPassThrough) {
  Result r = probe({}, {"ids", "exit:42"});
  EXPECT_EQ(r.code, 42);
  EXPECT_EQ(r.action("ids"), "ok uid=1000 euid=1000 gid=1000 egid=1000");
}

TEST_P(Escape, NodeRunsUnderTheDefaultProfile) {
  if (!fs::exists("/usr/bin/node")) GTEST_SKIP() << "node is not installed";
  std::vector<std::string> argv;
  if (!root()) argv = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
  // Threads, a child process (clone3 -> clone fallback), the fs and the
  // resolver files: what an MCP server written in Node touches first.
  argv.insert(
      argv.end(),
      {kRunner, "sandbox", "run", "--on-unavailable", "degrade", "--", "/usr/bin/node", "-e",
       "const cp=require('child_process'); const fs=require('fs');"
       "fs.writeFileSync('/tmp/t','x');"
       "const out=cp.execFileSync('/bin/echo',['child']).toString().trim();"
       "require('crypto').randomBytes(8);"
       "console.log('node', out, fs.readFileSync('/tmp/t','utf8'), require('os').hostname())"});
  Result r = run(argv);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "node child x mcp-node\n") << r.err;
}

TEST(SandboxFailClosed, RefusesWhenALimitCannotBeEnforced) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to drop to nobody";
  // nobody cannot create cgroups here: the default (fail) must refuse.
  Result r = run({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", kRunner,
                  "sandbox", "run", "--", "/bin/true"});
  if (r.code == 127 && r.err.empty()) GTEST_SKIP() << "nobody cannot execute the runner";
  EXPECT_EQ(r.code, 125);
  EXPECT_NE(r.err.find("refusing to start: cgroup-memory"), std::string::npos) << r.err;
  // degrade runs, and the report names what is missing and why.
  Result d = run({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", kRunner,
                  "sandbox", "run", "--on-unavailable", "degrade", "--report", "--", "/bin/true"});
  EXPECT_EQ(d.code, 0) << d.err;
  EXPECT_NE(d.err.find("\"degraded\":[{\"layer\":\"cgroup-memory\""), std::string::npos) << d.err;
}

TEST(SandboxCommand, ProbeListsEveryLayer) {
  Result r = run({kRunner, "sandbox", "probe"});
  for (const char* layer :
       {"user", "pid", "mount", "network", "ipc", "uts", "cgroup-memory", "cgroup-pids", "rlimits",
        "seccomp", "no_new_privs", "capabilities", "environment"}) {
    EXPECT_NE(("\n" + r.out).find(std::string("\n") + layer + " "), std::string::npos)
        << layer << "\n"
        << r.out;
  }
}

TEST(SandboxCommand, RejectsBadOptionsWithUsage) {
  Result r = run({kRunner, "sandbox", "run", "--memory", "lots", "--", "/bin/true"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("invalid size 'lots'"), std::string::npos) << r.err;
  Result missing = run({kRunner, "sandbox", "run", "--", "/nonexistent/cmd"});
  EXPECT_EQ(missing.code, 127);
  EXPECT_NE(missing.err.find("/nonexistent/cmd"), std::string::npos) << missing.err;
}

TEST(SandboxCommand, ReportsWhyTheSandboxCouldNotBeBuilt) {
  Result r = run({kRunner, "sandbox", "run", "--on-unavailable", "degrade", "--bind",
                  "/nonexistent-mcpgate-src:/data", "--", "/bin/true"});
  EXPECT_EQ(r.code, 125);
  EXPECT_EQ(r.err,
            "mcpgate sandbox: bind source does not exist on the host: /nonexistent-mcpgate-src\n");
  Result cwd = run({kRunner, "sandbox", "run", "--on-unavailable", "degrade", "--", "/bin/true"});
  EXPECT_EQ(cwd.code, 0) << cwd.err;
}

// spawn(): the gateway's entry point.

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

SpawnSpec sandboxedProbe(std::vector<std::string> actions) {
  SpawnSpec spec;
  spec.name = "probe";
  spec.command = kProbe;
  spec.args = std::move(actions);
  SandboxPolicy policy;
  policy.commands = {kProbe};
  policy.binds = {{kProbeDir, "/opt/probe", true}};
  spec.sandbox = policy;
  spec.init_binary = kInit;
  return spec;
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
  // The server was born inside them: its memory and pids groups are the sandbox's.
  std::string inside;
  {
    std::ifstream groups("/proc/" + std::to_string(server) + "/cgroup");
    std::string line;
    while (std::getline(groups, line)) {
      if (line.find("mcpgate-" + std::to_string(supervisor) + "-") != std::string::npos)
        inside += line.substr(line.find(':') + 1, line.rfind(':') - line.find(':') - 1) + " ";
    }
  }
  EXPECT_EQ(inside, "pids memory ");

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
    auto child = spawn(sandboxedProbe({"sleep:60"}));
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
  std::this_thread::sleep_for(200ms);  // let the sandbox come up
  auto inits = childrenOf(supervisor);
  ASSERT_EQ(inits.size(), 1u);
  auto servers = childrenOf(inits[0]);
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
}

// The gateway leaves SpawnSpec::init_binary empty: spawn() starts the slim
// mcpgate-sandbox-init found next to the gateway's executable, and the
// gateway itself (/proc/self/exe sandbox-init) when there is none. A copy of
// the runner in a fresh directory plays the gateway (`spawn` calls spawn()
// like the gateway does), first alone, then with the init beside it, then
// with an init it cannot execute; the server must answer every time.
class InitBinary : public testing::TestWithParam<As> {};

INSTANTIATE_TEST_SUITE_P(Both, InitBinary, testing::Values(As::kRoot, As::kNobody), asName);

TEST_P(InitBinary, SlimInitNextToTheExecutableElseTheExecutableItself) {
  if (::geteuid() != 0) GTEST_SKIP() << "runs as root (and drops to nobody itself)";
  std::string dir_template = "/tmp/mcpgate-init-XXXXXX";
  ASSERT_NE(::mkdtemp(dir_template.data()), nullptr);
  fs::path dir = dir_template;
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                           fs::perms::others_read | fs::perms::others_exec);
  fs::path gateway = dir / "sandbox_runner";
  fs::path init = dir / std::string(kInitBinaryName);
  fs::copy_file(kRunner, gateway);
  auto spawnThroughTheCopy = [&] {
    std::vector<std::string> argv;
    if (GetParam() == As::kNobody)
      argv = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
    argv.insert(argv.end(), {gateway.string(), "spawn", "/usr/bin/cat"});
    return run(argv);
  };

  Result alone = spawnThroughTheCopy();
  EXPECT_EQ(alone.code, 0) << alone.err;
  EXPECT_EQ(alone.out, "init: " + gateway.string() + "\nping\n") << alone.err;

  fs::copy_file(kInit, init);
  Result beside = spawnThroughTheCopy();
  EXPECT_EQ(beside.code, 0) << beside.err;
  EXPECT_EQ(beside.out, "init: " + init.string() + "\nping\n") << beside.err;

  fs::permissions(init, fs::perms::owner_read | fs::perms::owner_write);
  Result unusable = spawnThroughTheCopy();
  EXPECT_EQ(unusable.code, 0) << unusable.err;
  EXPECT_EQ(unusable.out, "init: " + gateway.string() + "\nping\n") << unusable.err;
  fs::remove_all(dir);
}

// Units.

TEST(StderrLines, CapsLengthAndRateAndCountsWhatItDrops) {
  StderrLines lines({/*lines_per_second=*/2, /*burst=*/2, /*max_line_bytes=*/8});
  auto t0 = StderrLines::Clock::time_point{} + 1h;
  auto out = lines.feed("0123456789abc\nshort\nthird\nfourth\npart", t0);
  EXPECT_EQ(out, (std::vector<std::string>{"01234567…[truncated]", "short"}));
  EXPECT_EQ(lines.takeDropped(), 2u);  // third and fourth: over the burst
  EXPECT_EQ(lines.takeDropped(), 0u);
  // One second later the bucket has two lines again.
  out = lines.feed("ial\nnext\n", t0 + 1s);
  EXPECT_EQ(out, (std::vector<std::string>{"partial", "next"}));
  EXPECT_EQ(lines.feed("tail", t0 + 3s), std::vector<std::string>{});
  EXPECT_EQ(lines.finish(t0 + 3s), std::vector<std::string>{"tail"});
}

TEST(SpecCodec, RoundTripsEveryField) {
  SpawnSpec spec{"files", "npx", {"-y", "a\nb\\c"}, {{"K", "v=1"}}, "/data"};
  SandboxPolicy p;
  p.on_unavailable = OnUnavailable::kDegrade;
  p.network = NetworkMode::kHost;
  p.binds = {{"/srv/data", "/data", true},
             {"/run/x.sock", "/run/x.sock", false},
             {"/var/cache/x", "/cache", true, true}};
  p.limits.memory_bytes = 5;
  p.limits.tmpfs_bytes = 4096;
  p.env = {{"A", "b"}};
  p.hostname = "h";
  p.report = true;
  spec.sandbox = p;
  auto decoded = decodeSpec(encodeSpec(spec));
  ASSERT_TRUE(decoded) << decoded.error().message;
  EXPECT_EQ(decoded->args, spec.args);
  EXPECT_EQ(decoded->env, spec.env);
  EXPECT_EQ(decoded->cwd, "/data");
  ASSERT_TRUE(decoded->sandbox);
  EXPECT_EQ(decoded->sandbox->network, NetworkMode::kHost);
  EXPECT_EQ(decoded->sandbox->on_unavailable, OnUnavailable::kDegrade);
  ASSERT_EQ(decoded->sandbox->binds.size(), 3u);
  EXPECT_FALSE(decoded->sandbox->binds[1].ro);
  EXPECT_FALSE(decoded->sandbox->binds[1].overlay);
  EXPECT_TRUE(decoded->sandbox->binds[2].overlay);
  EXPECT_EQ(decoded->sandbox->limits.memory_bytes, 5u);
  EXPECT_EQ(decoded->sandbox->limits.processes, p.limits.processes);
  EXPECT_EQ(decoded->sandbox->commands, p.commands);
  EXPECT_EQ(decoded->sandbox->arg_deny, p.arg_deny);
  EXPECT_EQ(decoded->sandbox->env, p.env);
  EXPECT_TRUE(decoded->sandbox->report);
  EXPECT_TRUE(decoded->seccomp.empty()) << "no program sent: the init compiles its own";
}

TEST(SpecCodec, CarriesTheSeccompProgramCompiledOnce) {
  auto program = buildSeccompFilter();
  ASSERT_TRUE(program) << program.error().message;
  SpawnSpec spec{"files", "node", {}, {}, ""};
  spec.sandbox = SandboxPolicy{};
  auto decoded = decodeSpec(encodeSpec(spec, *program));
  ASSERT_TRUE(decoded) << decoded.error().message;
  ASSERT_EQ(decoded->seccomp.size(), program->size());
  EXPECT_EQ(
      std::memcmp(decoded->seccomp.data(), program->data(), program->size() * sizeof(sock_filter)),
      0);
  for (const char* bad : {"seccomp_bpf 0011\n", "seccomp_bpf 00112233445566zz\n"}) {
    auto refused = decodeSpec(std::string("version 1\n") + bad);
    ASSERT_FALSE(refused) << bad;
    EXPECT_NE(refused.error().message.find("malformed seccomp program"), std::string::npos);
  }
}

TEST(SpecCodec, RefusesUnknownKeys) {
  auto decoded = decodeSpec("version 1\nseccomp off\n");
  ASSERT_FALSE(decoded);
  EXPECT_NE(decoded.error().message.find("unknown key 'seccomp'"), std::string::npos);
}

TEST(Policy, ParsesSizesAndRejectsBadBinds) {
  EXPECT_EQ(parseSize("1GiB").value(), 1ULL << 30);
  EXPECT_EQ(parseSize("64MiB").value(), 64ULL << 20);
  EXPECT_EQ(parseSize("512k").value(), 512ULL << 10);
  EXPECT_FALSE(parseSize("12 parsecs"));
  SandboxPolicy p;
  p.binds = {{"relative", "/x", true}};
  EXPECT_FALSE(validatePolicy(p));
  p.binds = {{"/x", "/", true}};
  EXPECT_FALSE(validatePolicy(p));
}

TEST(Env, DenylistIsCaseInsensitiveAndCannotBeOverridden) {
  EXPECT_TRUE(isDeniedEnvName("LD_PRELOAD"));
  EXPECT_TRUE(isDeniedEnvName("ld_audit"));
  EXPECT_TRUE(isDeniedEnvName("Node_Options"));
  EXPECT_TRUE(isDeniedEnvName("DYLD_INSERT_LIBRARIES"));
  EXPECT_FALSE(isDeniedEnvName("NODE_ENV"));
  auto env = buildSandboxEnv({{"LD_PRELOAD", "x"}, {"HOME", "/root"}, {"A", "1"}});
  EXPECT_EQ(env.dropped, std::vector<std::string>{"LD_PRELOAD"});
  EXPECT_NE(std::find(env.entries.begin(), env.entries.end(), "HOME=/home/mcp"), env.entries.end());
  EXPECT_NE(std::find(env.entries.begin(), env.entries.end(), "A=1"), env.entries.end());
}

}  // namespace
}  // namespace mcpgate::sandbox
