#!/usr/bin/env bash
# Configures and builds one tree. Usage: scripts/build.sh DIR [CMAKE OPTIONS...]
# MCPGATE_JOBS sets the parallelism (default 2: these machines have 2 cores).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=$1
shift
cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$dir" -j "${MCPGATE_JOBS:-2}"
