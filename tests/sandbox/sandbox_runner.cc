// A thin executable over the sandbox module's entry points, so the sandbox
// is built and tested without the gateway: the same dispatch mcpgate does.
//
//   sandbox_runner sandbox-init --spec-fd N
//   sandbox_runner sandbox run [options] -- CMD ARGS
//   sandbox_runner sandbox probe
//   sandbox_runner spawn [--report-channel] CMD ARGS
//
// `spawn` is the gateway's way in: sandbox::spawn() with the default policy
// (degraded when not root: no cgroups for nobody here) and the default init
// binary. It prints "init: <the supervisor's executable>", sends "ping\n" to
// the server's stdin, then copies the server's stdout and stderr to its own
// and exits with the server's exit code. With --report-channel the layer
// report is asked for on its own channel, whose lines are printed to stdout
// as "channel: <line>".

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <iostream>
#include <span>
#include <string>

#include "sandbox/command.h"
#include "sandbox/entry.h"
#include "sandbox/lifecycle.h"
#include "sandbox/spawn.h"

namespace {

namespace sandbox = mcpgate::sandbox;

int spawnMain(std::span<char* const> args) {
  if (args.empty()) {
    std::cerr << "usage: sandbox_runner spawn CMD [ARGS...]\n";
    return 2;
  }
  sandbox::SpawnSpec spec;
  if (std::strcmp(args[0], "--report-channel") == 0) {
    spec.report_channel = true;
    args = args.subspan(1);
    if (args.empty()) return 2;
  }
  spec.name = "spawn";
  spec.command = args[0];
  for (char* const a : args.subspan(1)) spec.args.emplace_back(a);
  sandbox::SandboxPolicy policy;
  auto resolved = sandbox::resolveCommand(spec.command);
  policy.commands = {resolved ? *resolved : spec.command};
  if (::geteuid() != 0) policy.on_unavailable = sandbox::OnUnavailable::kDegrade;
  policy.report = spec.report_channel;
  spec.sandbox = policy;
  auto child = sandbox::spawn(spec);
  if (!child) {
    std::cerr << "spawn: " << child.error().message << "\n";
    return 125;
  }
  // The supervisor is waiting for our "ping", so it is alive and its exe readable.
  std::array<char, 4096> exe{};
  ssize_t n = ::readlink(("/proc/" + std::to_string(child->pid) + "/exe").c_str(), exe.data(),
                         exe.size() - 1);
  std::cout << "init: " << (n > 0 ? std::string(exe.data(), static_cast<std::size_t>(n)) : "?")
            << std::endl;
  (void)::write(child->stdin_fd.get(), "ping\n", 5);
  child->stdin_fd.reset();

  std::array<pollfd, 3> fds = {pollfd{child->stdout_fd.get(), POLLIN, 0},
                               pollfd{child->stderr_fd.get(), POLLIN, 0},
                               pollfd{child->report_fd.valid() ? child->report_fd.get() : -1,
                                      POLLIN, 0}};
  int open_count = child->report_fd.valid() ? 3 : 2;
  std::string channel;
  while (open_count > 0) {
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) break;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      std::array<char, 4096> buf{};
      ssize_t got = ::read(fds[i].fd, buf.data(), buf.size());
      if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (got <= 0) {
        fds[i].fd = -1;
        --open_count;
        continue;
      }
      if (i == 2) {
        channel.append(buf.data(), static_cast<std::size_t>(got));
        continue;
      }
      (i == 0 ? std::cout : std::cerr).write(buf.data(), got).flush();
    }
  }
  for (std::size_t nl; (nl = channel.find('\n')) != std::string::npos; channel.erase(0, nl + 1)) {
    std::cout << "channel: " << channel.substr(0, nl) << "\n";
  }
  int status = 0;
  while (::waitpid(child->pid, &status, 0) < 0 && errno == EINTR) {
  }
  return sandbox::exitCodeOf(status);
}

}  // namespace

int main(int argc, char** argv) {
  std::span<char* const> args(argv + 1, static_cast<std::size_t>(argc - 1));
  if (!args.empty() && std::strcmp(args[0], "sandbox-init") == 0) {
    return sandbox::sandboxInitMain(args.subspan(1));
  }
  if (!args.empty() && std::strcmp(args[0], "sandbox") == 0) {
    return sandbox::sandboxCommandMain(args.subspan(1), std::cout, std::cerr);
  }
  if (!args.empty() && std::strcmp(args[0], "spawn") == 0) return spawnMain(args.subspan(1));
  std::cerr << "usage: sandbox_runner sandbox run|probe ... | spawn CMD ... | sandbox-init "
               "--spec-fd N\n";
  return 2;
}
