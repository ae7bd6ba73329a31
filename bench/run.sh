#!/usr/bin/env bash
# The whole gateway comparison of issue 6 in one command: installs what it
# needs, builds the release tree's gateway and the native bench tools, runs
# every system (progress on stderr), and writes bench/RESULTS.md and
# bench/plots/*.png. Arguments go to bench/run.mjs (--smoke: a few seconds,
# figures meaningless, output in a temporary directory). Run as root, like
# the gateway itself: every server it starts is sandboxed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash docker/install-deps.sh
# The same tree and options as scripts/test.sh, so neither reconfigures the other.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMCPGATE_WERROR=ON \
  -DMCPGATE_SANITIZE=OFF -DMCPGATE_TESTS=ON -DMCPGATE_BENCH=ON >/dev/null
cmake --build build -j "${MCPGATE_JOBS:-2}" --target mcpgate mcpgate-sandbox-init \
  mcp_echo_server mcp_bare_server mcp_loadgen
exec node bench/run.mjs --build build "$@"
