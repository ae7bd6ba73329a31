#!/usr/bin/env bash
# Sets up, builds and starts mcpgate with the demo config in front of the
# MCP reference server "everything". Ctrl-C stops it (and its servers).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash docker/install-deps.sh
echo "demo: building (first time: a few minutes)"
bash scripts/build.sh build -DMCPGATE_TESTS=OFF -DMCPGATE_BENCH=OFF
cat <<MSG

  mcpgate is starting with config/examples/demo.yaml
  MCP URL:  http://127.0.0.1:8080/mcp/everything
  Try it, from another terminal in $root:
    node scripts/try.mjs http://127.0.0.1:8080/mcp/everything

MSG
exec ./build/gateway/mcpgate serve -c config/examples/demo.yaml "$@"
