#!/usr/bin/env bash
# What the network: host block costs (sandbox/socket_notify.h): connect
# latency on loopback with and without the block, and the time to start a
# sandbox with network: host and exit, in one run, variants round-robin so a
# change in the machine's load hits all of them alike.
#
#   bench/host_connect.sh [BUILD_DIR] [ROUNDS] [CONNECTS]
#
# BUILD_DIR (default build) must hold tests/sandbox/sandbox_runner and
# bench/host_connect (cmake --build BUILD_DIR --target sandbox_runner host_connect).
# Variants: the client outside any sandbox; in the sandbox with
# --no-host-block (the plain filter); in the sandbox with the block (every
# connect answered by the supervisor). Root: the full sandbox with cgroups.
set -euo pipefail

BUILD=${1:-build}
ROUNDS=${2:-5}
CONNECTS=${3:-2000}
RUNNER=$BUILD/tests/sandbox/sandbox_runner
CLIENT=$(cd "$BUILD/bench" && pwd)/host_connect
for f in "$RUNNER" "$CLIENT"; do
  [[ -x $f ]] || { echo "missing $f" >&2; exit 2; }
done
BENCH_DIR=$(dirname "$CLIENT")

# One run of a variant: "<wall us per connect> <CPU us per connect>", the CPU
# being user+system of the whole tree (the runner is the supervisor, and
# reaps the init, which reaps the client), spawn included. Wall time on a
# loaded machine is mostly waiting for a CPU; CPU time is what the block costs.
run_variant() {  # variant mode
  local cmd=()
  case $1 in
    direct) cmd=("$CLIENT" "$CONNECTS" "$2") ;;
    plain) cmd=("$RUNNER" sandbox run --network host --no-host-block --bind "$BENCH_DIR:/opt/bench"
                -- /opt/bench/host_connect "$CONNECTS" "$2") ;;
    block) cmd=("$RUNNER" sandbox run --network host --bind "$BENCH_DIR:/opt/bench"
                -- /opt/bench/host_connect "$CONNECTS" "$2") ;;
  esac
  local out cpu
  out=$(mktemp)
  cpu=$( { TIMEFORMAT='%U %S'; time "${cmd[@]}" >"$out"; } 2>&1 | tail -1)
  echo "$(awk '{print $2}' "$out") $(awk -v n="$CONNECTS" '{printf "%.2f", ($1 + $2) * 1e6 / n}' <<<"$cpu")"
  rm -f "$out"
}

spawn_ms() {  # variant -> milliseconds for one sandbox start and exit
  local flags=()
  [[ $1 == plain ]] && flags=(--no-host-block)
  local t0 t1
  t0=$(date +%s%N)
  "$RUNNER" sandbox run --network host "${flags[@]}" -- /usr/bin/true
  t1=$(date +%s%N)
  echo "scale=2; ($t1 - $t0) / 1000000" | bc
}

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

declare -A wall cpu
for ((r = 0; r < ROUNDS; r++)); do
  for mode in blocking nonblocking; do
    for v in direct plain block; do
      read -r w c <<<"$(run_variant $v $mode)"
      wall[$v.$mode]+="$w "
      cpu[$v.$mode]+="$c "
    done
  done
  for i in 1 2 3 4; do
    for v in plain block; do wall[$v.spawn]+="$(spawn_ms $v) "; done
  done
done

med() { tr ' ' '\n' <<<"$1" | grep . | median; }
echo "# $(uname -r), $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo '?'), $ROUNDS rounds x $CONNECTS connects, medians, load $(cut -d' ' -f1 /proc/loadavg)"
for mode in blocking nonblocking; do
  for what in wall cpu; do
    declare -n m=$what
    d=$(med "${m[direct.$mode]}"); p=$(med "${m[plain.$mode]}"); b=$(med "${m[block.$mode]}")
    printf '%-12s %-4s us per connect+close: direct %s, sandbox without block %s, with block %s; with/without %.2fx\n' \
      "$mode" "$what" "$d" "$p" "$b" "$(echo "$b / $p" | bc -l)"
  done
done
p=$(med "${wall[plain.spawn]}"); b=$(med "${wall[block.spawn]}")
printf 'spawn (sandbox run --network host -- true) wall ms: without block %s, with block %s; %.2fx\n' \
  "$p" "$b" "$(echo "$b / $p" | bc -l)"
