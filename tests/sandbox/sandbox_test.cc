// The sandbox as real processes: sandbox_runner (the module's entry points
// behind a thin main) contains escape_probe, which tries one escape per
// argument and prints the exact errno. Every escape case runs as root and
// again as an unprivileged user (setpriv), as the issue asks. spawn(), the
// gateway's own entry point, is tested in spawn_test.cc.

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sandbox/env.h"
#include "sandbox/lifecycle.h"
#include "sandbox/policy.h"
#include "sandbox/seccomp.h"
#include "sandbox/spawn.h"
#include "sandbox/spec_codec.h"
#include "sandbox/stderr_lines.h"
#include "tests/sandbox/sandbox_test_util.h"

namespace mcpgate::sandbox {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace tests;


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

TEST_P(Escape, TheInitsCommandLineNamesNoHostPath) {
  // PID 1 is the init, a copy of the supervisor: its command line held the runner's path, every
  // --bind source and the gateway's pid.
  Result r = probe({}, {"cat:/proc/1/cmdline", "cat:/proc/1/comm"});
  EXPECT_EQ(r.code, 0) << r.err;
  const std::string cmdline = r.action("cat:/proc/1/cmdline");
  EXPECT_TRUE(cmdline.starts_with("ok mcpgate-sandbox-init")) << cmdline;
  EXPECT_EQ(cmdline.find(kProbeDir), std::string::npos) << cmdline;
  EXPECT_EQ(cmdline.find("--bind"), std::string::npos) << cmdline;
  EXPECT_EQ(cmdline.find('/'), std::string::npos) << cmdline;
  EXPECT_EQ(r.action("cat:/proc/1/comm"), "ok sandbox-init|");
}

TEST_P(Escape, MountinfoNamesNoBindSourceOnTheHost) {
  // The probe's directory is bound read-only at /opt/probe: a bind mount's root in mountinfo is
  // its source's path on the host, so the sandbox showed where the gateway's files live.
  Result r = probe({}, {"cat:/proc/self/mountinfo", "cat:/proc/1/mountinfo", "read:" +
                                                                               std::string(kProbe)});
  EXPECT_EQ(r.code, 0) << r.err;
  for (const std::string file : {"cat:/proc/self/mountinfo", "cat:/proc/1/mountinfo"}) {
    const std::string mountinfo = r.action(file);
    EXPECT_TRUE(mountinfo.starts_with("ok ")) << mountinfo;
    EXPECT_NE(mountinfo.find(" /opt/probe "), std::string::npos) << mountinfo;
    EXPECT_EQ(mountinfo.find(kProbeDir), std::string::npos) << mountinfo;
  }
  // Still the same files, read-only.
  EXPECT_TRUE(r.action("read:" + std::string(kProbe)).starts_with("ok")) << r.out;
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
  std::string top = "/tmp/mcpgate-overlay-XXXXXX";
  ASSERT_NE(::mkdtemp(top.data()), nullptr);
  // In a directory of root's: one that nobody owns directly in the sticky /tmp is refused as a
  // bind source (its owner could swap it for a symlink; see bind_source_test.cc).
  ASSERT_EQ(::chmod(top.c_str(), 0755), 0);
  const std::string host = top + "/cache";
  ASSERT_EQ(::mkdir(host.c_str(), 0755), 0);
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
  fs::remove_all(top);
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
  Result r = probe({"--memory", "64MiB", "--report"}, {"membomb:32", "membomb:512"});
  EXPECT_EQ(r.action("membomb:32"), "ok");  // below the limit: allowed
  if (root()) {
    EXPECT_EQ(r.code, 128 + SIGKILL) << r.out;
    EXPECT_NE(r.err.find("killed by the memory limit"), std::string::npos) << r.err;
  } else {
    // nobody cannot create a memory cgroup here: under degrade the cap is
    // RLIMIT_DATA, and the allocation fails instead of growing.
    EXPECT_EQ(r.action("membomb:512"), "ENOMEM malloc");
    EXPECT_NE(r.err.find("\"memory-rlimit-data\""), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("\"layer\":\"cgroup-memory\""), std::string::npos) << r.err;
  }
}

// Without a memory cgroup (nobody here, on_unavailable: degrade), Node and
// Python still start and allocate normally under the RLIMIT_DATA cap, and a
// memory bomb in either stops at it instead of taking the host's memory.
TEST_P(Escape, NodeAndPythonMemoryBombsStopWithoutACgroup) {
  if (root()) GTEST_SKIP() << "root gets the memory cgroup here; this is the degraded path";
  if (!fs::exists("/usr/bin/node") || !fs::exists("/usr/bin/python3"))
    GTEST_SKIP() << "needs /usr/bin/node and /usr/bin/python3";
  auto sandboxed = [](std::vector<std::string> command) {
    std::vector<std::string> argv = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
                                     "--clear-groups", kRunner, "sandbox", "run",
                                     "--on-unavailable", "degrade", "--memory", "256MiB", "--"};
    argv.insert(argv.end(), command.begin(), command.end());
    return run(argv);
  };
  // 100 MiB of buffers and ~96 MiB of JS arrays fit; a heap that keeps
  // growing (8 MiB per array, each one reported) dies at the cap.
  Result node = sandboxed(
      {"/usr/bin/node", "-e",
       "const keep=[]; for (let i=0;i<100;i++) keep.push(Buffer.alloc(1<<20,1));"
       "const js=[]; for (let i=0;i<12;i++) js.push(new Array(1e6).fill(i));"
       "console.log('normal ok'); keep.length=0; js.length=0;"
       "for (let i=1;;i++) { js.push(new Array(1e6).fill(i)); console.log(i*8); }"});
  EXPECT_TRUE(node.out.starts_with("normal ok\n")) << node.out << node.err;
  EXPECT_NE(node.code, 0);
  EXPECT_NE(node.err.find("heap out of memory"), std::string::npos) << node.err;
  std::string last = node.out.substr(node.out.rfind('\n', node.out.size() - 2) + 1);
  EXPECT_LE(std::atoi(last.c_str()), 256) << "MiB of JS arrays held when Node died";
  Result python = sandboxed(
      {"/usr/bin/python3", "-c",
       "keep = [bytearray(1 << 20) for _ in range(100)]\nprint('normal ok', flush=True)\n"
       "try:\n  while True: keep.append(bytearray(1 << 20))\n"
       "except MemoryError: print('MemoryError at', len(keep), 'MiB')\n"});
  EXPECT_EQ(python.code, 0) << python.err;
  EXPECT_TRUE(python.out.starts_with("normal ok\nMemoryError at ")) << python.out << python.err;
  int mib = std::atoi(python.out.c_str() + std::string("normal ok\nMemoryError at ").size());
  EXPECT_GT(mib, 150);
  EXPECT_LE(mib, 256);
}

// Three busy processes for two seconds under a fiftieth of a core (2 ms in
// every 100 ms period): the kernel's own accounting of their CPU time must
// stay near the cap. Small, so that even a host loaded by other work, where
// uncapped spinners still get a few hundred ms, is far above it.
TEST_P(Escape, BusyLoopsStayWithinTheCpuCap) {
  if (!root()) GTEST_SKIP() << "the CPU cap needs a cgroup; nobody cannot create one here";
  Result r = probe({"--cpu", "0.02", "--report"}, {"spin:3:2000"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("\"cgroup-cpu\""), std::string::npos) << r.err;
  std::string verdict = r.action("spin:3:2000");
  long long cpu_ms = 0, wall_ms = 0;
  ASSERT_EQ(std::sscanf(verdict.c_str(), "ok cpu_ms=%lld wall_ms=%lld", &cpu_ms, &wall_ms), 2)
      << verdict;
  ASSERT_GE(wall_ms, 2000);
  // The cap is 20 ms per second of wall time; twice that plus 100 ms of slack.
  EXPECT_LT(cpu_ms, wall_ms * 0.02 * 2 + 100) << verdict;
}

// A binary the server writes (downloads) to /tmp or HOME does not run; the
// operator can open either one for a server that needs it.
TEST_P(Escape, ABinaryCopiedToTmpOrHomeDoesNotExecute) {
  Result closed = probe({}, {"copyexec:/tmp/x", "copyexec:/home/mcp/x"});
  EXPECT_EQ(closed.code, 0) << closed.err;
  EXPECT_EQ(closed.action("copyexec:/tmp/x"), "EACCES");
  EXPECT_EQ(closed.action("copyexec:/home/mcp/x"), "EACCES");
  Result open = probe({"--tmp-exec", "--home-exec"}, {"copyexec:/tmp/x", "copyexec:/home/mcp/x"});
  EXPECT_EQ(open.action("copyexec:/tmp/x"), "ok");
  EXPECT_EQ(open.action("copyexec:/home/mcp/x"), "ok");
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

// The interpreter hooks of every runtime mcpgate starts (and of the shells
// and tools those start) are dropped and named in the layer report; the
// harmless variables of the same families pass.
TEST_P(Escape, InterpreterHooksAreDroppedAndReported) {
  const std::vector<std::string> denied = {
      "SHELL=/tmp/sh",          "BUN_OPTIONS=--preload=/tmp/x.js", "bun_install=/tmp",
      "PYTHONWARNINGS=ignore::x.Y", "PYTHONINSPECT=1",             "PYTHONEXECUTABLE=/tmp/py",
      "NODE_TLS_REJECT_UNAUTHORIZED=0", "NODE_REPL_EXTERNAL_MODULE=/tmp/x.js",
      "PROMPT_COMMAND=id",     "BASH_FUNC_ls%%=() { id; }",     "PERL5DB=exec id",
      "RUBYOPT=-r/tmp/x",      "npm_config_script_shell=/tmp/sh", "GIT_SSH_COMMAND=id",
      "GIT_CONFIG_KEY_0=core.fsmonitor", "OPENSSL_CONF=/tmp/engine.cnf", "EDITOR=/tmp/x"};
  const std::vector<std::string> kept = {"NODE_ENV=production", "PYTHONUNBUFFERED=1",
                                         "NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca.pem",
                                         "GIT_AUTHOR_NAME=mcp"};
  std::vector<std::string> options = {"--report"};
  std::vector<std::string> actions;
  for (const auto* list : {&denied, &kept}) {
    for (const auto& kv : *list) {
      options.insert(options.end(), {"--env", kv});
      actions.push_back("env:" + kv.substr(0, kv.find('=')));
    }
  }
  Result r = probe(options, actions);
  EXPECT_EQ(r.code, 0) << r.err;
  for (const auto& kv : denied) {
    std::string name = kv.substr(0, kv.find('='));
    EXPECT_EQ(r.action("env:" + name), "(unset)") << name;
    EXPECT_NE(r.err.find("environment variable dropped: " + name), std::string::npos)
        << name << "\n"
        << r.err;
  }
  for (const auto& kv : kept) {
    EXPECT_EQ(r.action("env:" + kv.substr(0, kv.find('='))), kv.substr(kv.find('=') + 1));
  }
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
       {"user", "pid", "mount", "network", "ipc", "uts", "cgroup-memory", "cgroup-pids",
        "cgroup-cpu", "rlimits",
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
  // Degrade: where no cgroup can be made (unprivileged), the refusal would come first.
  Result missing =
      run({kRunner, "sandbox", "run", "--on-unavailable", "degrade", "--", "/nonexistent/cmd"});
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

// The gateway asks for the layer report on a channel of its own: a server
// that prints a line imitating it on stderr gets it read as its own output,
// and the real report never passes through the server's stderr.
class ReportChannel : public testing::TestWithParam<As> {};

INSTANTIATE_TEST_SUITE_P(Both, ReportChannel, testing::Values(As::kRoot, As::kNobody), asName);

TEST_P(ReportChannel, AServersFakeReportLineStaysOnItsStderr) {
  if (::geteuid() != 0) GTEST_SKIP() << "runs as root (and drops to nobody itself)";
  if (!fs::exists("/usr/bin/node")) GTEST_SKIP() << "node is not installed";
  const std::string fake =
      "mcpgate sandbox: {\"sandbox\":{\"server\":\"fake\",\"enforced\":[],\"degraded\":[]}}";
  std::vector<std::string> argv;
  if (GetParam() == As::kNobody)
    argv = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
  argv.insert(argv.end(), {kRunner, "spawn", "--report-channel", "/usr/bin/node", "-e",
                           "console.error(process.argv[1])", fake});
  Result r = run(argv);
  EXPECT_EQ(r.code, 0) << r.err;
  // The genuine report came on the channel, and only there.
  EXPECT_NE(r.out.find("channel: mcpgate sandbox: {\"sandbox\":{\"server\":\"spawn\""),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.err.find("\"server\":\"spawn\""), std::string::npos) << r.err;
  // The imitation is the server's stderr, where the gateway logs it as the
  // server's output, and never on the channel.
  EXPECT_EQ(r.err, fake + "\n");
  EXPECT_EQ(r.out.find("channel: " + fake), std::string::npos) << r.out;
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

TEST(StderrLines, TheDroppedCountIsDueWhenTheWindowClosesWithoutAnotherLine) {
  StderrLines lines({/*lines_per_second=*/1, /*burst=*/1, /*max_line_bytes=*/64});
  auto t0 = StderrLines::Clock::time_point{} + 1h;
  EXPECT_EQ(lines.droppedDue(), std::nullopt);
  (void)lines.feed("a\nb\nc\n", t0);  // a passes, b and c are dropped
  ASSERT_EQ(lines.droppedDue(), t0 + 1s);
  (void)lines.feed("d\n", t0 + 500ms);  // still in the window: counted, not due yet
  EXPECT_EQ(lines.takeDroppedIfDue(t0 + 900ms), 0u);
  // The flood stopped: no line arrives, the timer fires at the due time.
  EXPECT_EQ(lines.takeDroppedIfDue(t0 + 1s), 3u);
  EXPECT_EQ(lines.droppedDue(), std::nullopt);
  EXPECT_EQ(lines.takeDroppedIfDue(t0 + 5s), 0u);
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
  EXPECT_TRUE(isDeniedEnvName("SHELL"));
  EXPECT_TRUE(isDeniedEnvName("Bun_Config_Registry"));
  EXPECT_TRUE(isDeniedEnvName("PYTHONSTARTUP"));
  EXPECT_TRUE(isDeniedEnvName("NODE_V8_COVERAGE"));
  EXPECT_FALSE(isDeniedEnvName("PYTHONUNBUFFERED"));
  EXPECT_FALSE(isDeniedEnvName("NODE"));  // not a hook: the family is NODE_*
  EXPECT_FALSE(isDeniedEnvName("GITHUB_TOKEN"));
  auto env = buildSandboxEnv({{"LD_PRELOAD", "x"}, {"HOME", "/root"}, {"A", "1"}});
  EXPECT_EQ(env.dropped, std::vector<std::string>{"LD_PRELOAD"});
  EXPECT_NE(std::find(env.entries.begin(), env.entries.end(), "HOME=/home/mcp"), env.entries.end());
  EXPECT_NE(std::find(env.entries.begin(), env.entries.end(), "A=1"), env.entries.end());
}

}  // namespace
}  // namespace mcpgate::sandbox
