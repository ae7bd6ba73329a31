#!/usr/bin/env bash
# Spawn-to-output time of a trivial command: no sandbox, mcpgate's default
# sandbox profile, and bwrap with the equivalent flags (NOTES.md), in one run.
#
#   bench/sandbox_spawn.sh [SANDBOX_BIN] [ITERATIONS]
#
# SANDBOX_BIN is any binary with the `sandbox run` subcommand: mcpgate, or
# build-sandbox/tests/sandbox/sandbox_runner. Each sample is the wall time from
# fork to the command's exit after it printed its line (for `echo` that is
# spawn-to-first-output plus a few microseconds), measured with date +%s%N
# so no extra tool is needed. Run as root for the full profile (cgroups).
set -euo pipefail

BIN=${1:-build-sandbox/tests/sandbox/sandbox_runner}
N=${2:-200}
CMD=(/bin/echo ready)
NODE_CMD=(/usr/bin/node -e 'console.log("ready")')

# The same clean environment everywhere: mcpgate's sandbox builds its own,
# and a caller's NODE_EXTRA_CA_CERTS or NODE_OPTIONS would skew node's start.
CLEAN=(env -i PATH=/usr/bin:/bin HOME=/tmp)
BWRAP=("${CLEAN[@]}" bwrap --unshare-all --die-with-parent --ro-bind /usr /usr --symlink usr/lib /lib
       --symlink usr/lib64 /lib64 --symlink usr/bin /bin --symlink usr/sbin /sbin
       --proc /proc --dev /dev --tmpfs /tmp)

# Prints "median p90 mean" in microseconds for N runs of "$@".
measure() {
  local samples=()
  for ((i = 0; i < N; i++)); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null
    t1=$(date +%s%N)
    samples+=($(((t1 - t0) / 1000)))
  done
  printf '%s\n' "${samples[@]}" | sort -n | awk '
    { v[NR] = $1; s += $1 }
    END { printf "%8d %8d %8d\n", v[int(NR * 0.5) + 1], v[int(NR * 0.9) + 1], s / NR }'
}

row() {
  local label=$1
  shift
  "$@" >/dev/null 2>&1 || { printf '%-34s failed: %s\n' "$label" "$*"; return; }
  printf '%-34s %s\n' "$label" "$(measure "$@")"
}

echo "# $(uname -r), $(nproc) cores, ${N} iterations, $(id -un); times in microseconds"
printf '%-34s %8s %8s %8s\n' "variant" "median" "p90" "mean"
row "echo: direct" "${CLEAN[@]}" "${CMD[@]}"
row "echo: mcpgate sandbox (default)" "${CLEAN[@]}" "$BIN" sandbox run -- "${CMD[@]}"
row "echo: mcpgate sandbox, no cgroups" "${CLEAN[@]}" "$BIN" sandbox run --memory 0 --processes 0 -- "${CMD[@]}"
row "echo: bwrap" "${BWRAP[@]}" "${CMD[@]}"
if [[ -x /usr/bin/node ]]; then
  row "node: direct" "${CLEAN[@]}" "${NODE_CMD[@]}"
  row "node: mcpgate sandbox (default)" "${CLEAN[@]}" "$BIN" sandbox run -- "${NODE_CMD[@]}"
  row "node: bwrap" "${BWRAP[@]}" "${NODE_CMD[@]}"
fi
