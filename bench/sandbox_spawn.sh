#!/usr/bin/env bash
# Spawn-to-first-response time of a trivial MCP server (and of a bare echo):
# no sandbox, mcpgate's default sandbox profile through the gateway's own path,
# and bwrap with the equivalent flags from NOTES.md, in one run.
#
#   bench/sandbox_spawn.sh [BUILD_DIR] [ROUNDS]
#
# BUILD_DIR (default build-sandbox) must hold tests/sandbox/spawn_bench and
# gateway/mcpgate-sandbox-init (cmake --build BUILD_DIR --target spawn_bench
# mcpgate-sandbox-init; add mcpgate for the fallback variant).
#
# spawn_bench is a stand-in gateway: it calls sandbox::spawn() as
# gateway/upstream.cc does (posix_spawn of the init binary, the spec and the
# precompiled seccomp program in a sealed memfd), writes an MCP `initialize`
# request and times the first byte of the answer; bwrap and the direct start
# go through the same spawn() without a policy. Variants run round-robin, so
# a change in the machine's load hits all of them alike. "CPU" is the whole
# process tree's user+system time per spawn (the harness is a subreaper, so
# bwrap's unreaped pid 1 counts too), less sensitive to load than wall time.
#
# Init binaries compared:
#   mcpgate-sandbox-init  what the gateway starts (found next to mcpgate)
#   mcpgate               the fallback when it is missing (/proc/self/exe)
# plus the first one without cgroup limits, to show what that layer costs.
#
# Run as root for the full profile: as another user no cgroup can be created
# here, and the default (on_unavailable: fail) refuses to start.
set -euo pipefail

BUILD=${1:-build-sandbox}
ROUNDS=${2:-200}
BENCH=$BUILD/tests/sandbox/spawn_bench
INIT=$BUILD/gateway/mcpgate-sandbox-init
GATEWAY=$BUILD/gateway/mcpgate

for f in "$BENCH" "$INIT"; do
  [[ -x $f ]] || { echo "missing $f: cmake --build $BUILD --target spawn_bench mcpgate-sandbox-init" >&2; exit 2; }
done
command -v bwrap >/dev/null || { echo "bwrap not installed (apt-get install bubblewrap)" >&2; exit 2; }

args=(--rounds "$ROUNDS" --init "mcpgate-sandbox-init=$INIT")
[[ -x $GATEWAY ]] && args+=(--init "mcpgate as init (fallback)=$GATEWAY")

echo "# $(uname -r), bwrap $(bwrap --version | cut -d' ' -f2), $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo '?')"
exec env -i PATH=/usr/bin:/bin HOME=/tmp "$BENCH" "${args[@]}"
