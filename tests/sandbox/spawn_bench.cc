// Spawn-to-first-response time through the gateway's own path: the caller is
// an already-running process that calls sandbox::spawn() (posix_spawn of the
// init binary with the spec in a memfd), writes an MCP `initialize` request
// and waits for the first byte of the answer, exactly as gateway/upstream.cc
// does. bwrap and the direct start go through the same spawn() without a
// policy, so the harness costs every variant alike. Every round runs each
// variant once, in a shuffled order, so a change in the machine's load hits
// all of them alike and none always runs after the same neighbour.
//
//   spawn_bench [--rounds N] [--init LABEL=BINARY]... [--only TEXT]
//
// Each --init adds an "mcpgate" variant whose init is BINARY (a binary whose
// main() dispatches sandbox-init), e.g. gateway/mcpgate-sandbox-init.
// One more variant runs the first init without the cgroup limits (memory 0,
// processes 0), to show what that layer costs.
// CPU time is the whole reaped tree's (RUSAGE_CHILDREN), per spawn.

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "sandbox/command.h"
#include "sandbox/spawn.h"

namespace {

using mcpgate::sandbox::Child;
using mcpgate::sandbox::SandboxPolicy;
using mcpgate::sandbox::SpawnSpec;

constexpr std::string_view kRequest =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})"
    "\n";
constexpr const char* kReply =
    R"({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},)"
    R"("serverInfo":{"name":"t","version":"1"}}})";

// The flags NOTES.md gives as bwrap's equivalent of the default profile.
// clang-format off
const std::vector<std::string> kBwrap = {
    "--unshare-all", "--die-with-parent",
    "--ro-bind", "/usr", "/usr",
    "--symlink", "usr/lib", "/lib",
    "--symlink", "usr/lib64", "/lib64",
    "--symlink", "usr/bin", "/bin",
    "--symlink", "usr/sbin", "/sbin",
    "--proc", "/proc",
    "--dev", "/dev",
    "--tmpfs", "/tmp"};
// clang-format on

struct Variant {
  std::string name;
  SpawnSpec spec;
  std::vector<double> wall_us;
  std::vector<double> cpu_us;
};

double cpuOfChildrenUs() {
  rusage ru{};
  ::getrusage(RUSAGE_CHILDREN, &ru);
  auto us = [](const timeval& tv) { return tv.tv_sec * 1e6 + static_cast<double>(tv.tv_usec); };
  return us(ru.ru_utime) + us(ru.ru_stime);
}

bool waitReadable(int fd, int timeout_ms) {
  pollfd pfd{fd, POLLIN, 0};
  int r = 0;
  do {
    r = ::poll(&pfd, 1, timeout_ms);
  } while (r < 0 && errno == EINTR);
  return r == 1;
}

std::string drain(int fd) {
  std::string text;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      text.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN && waitReadable(fd, 10000)) continue;
    return text;
  }
}

// One sample: spawn, send the request, time to the first byte of the answer.
bool sample(Variant& v) {
  double cpu0 = cpuOfChildrenUs();
  auto t0 = std::chrono::steady_clock::now();
  auto child = mcpgate::sandbox::spawn(v.spec);
  if (!child) {
    std::fprintf(stderr, "%s: %s\n", v.name.c_str(), child.error().message.c_str());
    return false;
  }
  (void)::write(child->stdin_fd.get(), kRequest.data(), kRequest.size());  // echo does not read
  char first = 0;
  ssize_t n = -1;
  while (waitReadable(child->stdout_fd.get(), 10000)) {
    n = ::read(child->stdout_fd.get(), &first, 1);
    if (n >= 0 || errno != EINTR) break;
  }
  auto t1 = std::chrono::steady_clock::now();
  drain(child->stdout_fd.get());
  child->stdin_fd.reset();
  std::string err = drain(child->stderr_fd.get());
  int status = 0;
  while (::waitpid(child->pid, &status, 0) < 0 && errno == EINTR) {
  }
  // bwrap's outer process exits without reaping its pid-1 child; as subreaper
  // we reap such orphans here, so their CPU time is counted too.
  while (::waitpid(-1, nullptr, 0) > 0 || errno == EINTR) {
  }
  double cpu1 = cpuOfChildrenUs();
  if (n != 1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "%s failed (%s): %s\n", v.name.c_str(),
                 mcpgate::sandbox::describeExit(status).c_str(), err.c_str());
    return false;
  }
  v.wall_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  v.cpu_us.push_back(cpu1 - cpu0);
  return true;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(static_cast<double>(v.size()) * q))];
}

}  // namespace

int main(int argc, char** argv) {
  ::signal(SIGPIPE, SIG_IGN);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  int rounds = 100;
  std::string only;  // keep the variants whose name contains this (for profiling one)
  std::vector<std::pair<std::string, std::string>> inits;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--rounds" && i + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else if (a == "--init" && i + 1 < argc) {
      std::string v = argv[++i];
      auto eq = v.find('=');
      if (eq == std::string::npos) {
        inits.emplace_back(v, v);
      } else {
        inits.emplace_back(v.substr(0, eq), v.substr(eq + 1));
      }
    } else {
      std::fprintf(stderr,
                   "usage: spawn_bench [--rounds N] [--init LABEL=BINARY]... [--only TEXT]\n");
      return 2;
    }
  }
  // spawn()'s default would be this harness itself, which has no sandbox-init mode.
  if (inits.empty()) {
    std::fprintf(stderr, "spawn_bench: give at least one --init LABEL=BINARY\n");
    return 2;
  }

  struct Server {
    std::string name, command;
    std::vector<std::string> args;
  };
  std::vector<Server> servers = {
      {"echo", "/usr/bin/echo", {"ready"}},
      {"sh MCP server", "/usr/bin/sh", {"-c", std::string("read line; echo '") + kReply + "'"}},
  };
  if (::access("/usr/bin/node", X_OK) == 0) {
    servers.push_back({"node MCP server",
                       "/usr/bin/node",
                       {"-e", std::string("process.stdin.once('data',()=>{console.log(JSON."
                                          "stringify(") +
                                  kReply + "));process.exit(0)})"}});
  }

  std::vector<Variant> variants;
  for (const auto& s : servers) {
    SpawnSpec direct;
    direct.name = "bench";
    direct.command = s.command;
    direct.args = s.args;
    variants.push_back({s.name + ": direct", direct, {}, {}});
    for (const auto& [label, binary] : inits) {
      SpawnSpec sandboxed = direct;
      SandboxPolicy policy;
      policy.commands = {s.command};
      policy.arg_deny.clear();  // the one-liners hold ';' and quotes
      sandboxed.sandbox = policy;
      sandboxed.init_binary = binary;
      variants.push_back({s.name + ": mcpgate spawn(), " + label, sandboxed, {}, {}});
    }
    // What the cgroup layer costs, through the first init.
    SpawnSpec no_cgroups = variants[variants.size() - inits.size()].spec;
    no_cgroups.sandbox->limits.memory_bytes = 0;
    no_cgroups.sandbox->limits.processes = 0;
    variants.push_back(
        {s.name + ": mcpgate spawn(), " + inits[0].first + ", no cgroups", no_cgroups, {}, {}});
    SpawnSpec bwrap = direct;
    bwrap.command = "/usr/bin/bwrap";
    bwrap.args = kBwrap;
    bwrap.args.push_back(s.command);
    bwrap.args.insert(bwrap.args.end(), s.args.begin(), s.args.end());
    variants.push_back({s.name + ": bwrap", bwrap, {}, {}});
  }

  std::erase_if(variants, [&](const Variant& v) { return v.name.find(only) == std::string::npos; });
  for (auto& v : variants) {  // warm the page cache; fail early
    if (!sample(v)) return 1;
    v.wall_us.clear();
    v.cpu_us.clear();
  }
  // A fresh order every round: each spawn leaves work behind in the kernel
  // (network namespace and cgroup teardown run asynchronously), so a fixed
  // order would favour whichever variant follows the cheapest one.
  std::vector<std::size_t> order(variants.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 shuffle(42);
  for (int r = 0; r < rounds; ++r) {
    std::shuffle(order.begin(), order.end(), shuffle);
    for (std::size_t i : order) {
      if (!sample(variants[i])) return 1;
    }
  }

  double load[3] = {};
  ::getloadavg(load, 3);
  std::printf("# %d rounds, uid %d, load %.2f %.2f %.2f, %ld cores\n", rounds, ::getuid(), load[0],
              load[1], load[2], ::sysconf(_SC_NPROCESSORS_ONLN));
  std::printf("%-60s %8s %8s %8s %9s\n", "first response byte via spawn() (microseconds)", "median",
              "p90", "mean", "CPU mean");
  for (const auto& v : variants) {
    double mean = std::accumulate(v.wall_us.begin(), v.wall_us.end(), 0.0) /
                  static_cast<double>(v.wall_us.size());
    double cpu = std::accumulate(v.cpu_us.begin(), v.cpu_us.end(), 0.0) /
                 static_cast<double>(v.cpu_us.size());
    std::printf("%-60s %8.0f %8.0f %8.0f %9.0f\n", v.name.c_str(), quantile(v.wall_us, 0.5),
                quantile(v.wall_us, 0.9), mean, cpu);
  }
  return 0;
}
