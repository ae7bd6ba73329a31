#!/usr/bin/env bash
# Spawn-to-first-response time of a trivial MCP server (and of a bare echo):
# no sandbox, mcpgate's default sandbox profile, and bwrap with the equivalent
# flags from NOTES.md, in one run.
#
#   bench/sandbox_spawn.sh [SANDBOX_BIN] [ROUNDS]
#
# SANDBOX_BIN is any binary with the `sandbox run` subcommand: mcpgate, or
# build-sandbox/tests/sandbox/sandbox_runner (the default). hyperfine is not
# installed here, so a small harness in /usr/bin/python3 does the timing: for
# each sample it starts the command with pipes, writes an MCP `initialize`
# request, and takes the time until the first byte of the answer (for echo:
# the first byte of output). Variants run round-robin, so a change in the
# machine's load hits all of them alike. Run as root for the full profile (as
# another user the cgroup layer is unavailable: add --on-unavailable degrade).
set -euo pipefail

BIN=${1:-build-sandbox/tests/sandbox/sandbox_runner}
ROUNDS=${2:-200}
export BIN ROUNDS

exec /usr/bin/python3 - <<'PY'
import os, statistics, subprocess, time

bin_ = os.environ["BIN"]
rounds = int(os.environ["ROUNDS"])
# The same clean environment everywhere: mcpgate's sandbox builds its own, and
# a caller's NODE_OPTIONS or NODE_EXTRA_CA_CERTS would skew node's start.
env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp"}
bwrap = ["bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr",
         "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
         "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
         "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
mcpgate = [bin_, "sandbox", "run", "--"]
nocg = [bin_, "sandbox", "run", "--memory", "0", "--processes", "0", "--"]

reply = '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"t","version":"1"}}}'
sh_server = ["/bin/sh", "-c", "read line; echo '" + reply + "'"]
node_server = ["/usr/bin/node", "-e",
               "process.stdin.once('data',()=>{console.log(JSON.stringify(" + reply + "));process.exit(0)})"]
echo = ["/bin/echo", "ready"]
request = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n'

variants = []
for name, cmd in [("echo", echo), ("sh MCP server", sh_server), ("node MCP server", node_server)]:
    if cmd[0] == "/usr/bin/node" and not os.path.exists(cmd[0]):
        continue
    variants += [(name + ": direct", cmd), (name + ": mcpgate sandbox (default)", mcpgate + cmd),
                 (name + ": mcpgate sandbox, no cgroups", nocg + cmd), (name + ": bwrap", bwrap + cmd)]

def sample(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env)
    try:
        p.stdin.write(request)
        p.stdin.flush()
    except BrokenPipeError:
        pass  # echo does not read
    first = p.stdout.read(1)
    t1 = time.perf_counter()
    p.stdout.read()
    try:
        p.stdin.close()
    except BrokenPipeError:
        pass
    if p.wait() != 0 or not first:
        raise SystemExit("failed: " + " ".join(cmd))
    return (t1 - t0) * 1e6

for _, cmd in variants:
    sample(cmd)  # warm the page cache
times = {name: [] for name, _ in variants}
for _ in range(rounds):
    for name, cmd in variants:
        times[name].append(sample(cmd))

load = open("/proc/loadavg").read().split()[:3]
print(f"# {os.uname().release}, {os.cpu_count()} cores, load {' '.join(load)}, {rounds} rounds, uid {os.getuid()}")
print(f"{'time to first response byte (microseconds)':<48} {'median':>8} {'p90':>8} {'mean':>8}")
for name, _ in variants:
    v = sorted(times[name])
    print(f"{name:<48} {statistics.median(v):8.0f} {v[int(len(v) * 0.9)]:8.0f} {statistics.mean(v):8.0f}")
PY
