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

run_variant() {  # variant mode -> microseconds per connect
  case $1 in
    direct) "$CLIENT" "$CONNECTS" "$2" ;;
    plain) "$RUNNER" sandbox run --network host --no-host-block --bind "$BENCH_DIR:/opt/bench" \
             -- /opt/bench/host_connect "$CONNECTS" "$2" ;;
    block) "$RUNNER" sandbox run --network host --bind "$BENCH_DIR:/opt/bench" \
             -- /opt/bench/host_connect "$CONNECTS" "$2" ;;
  esac | awk '{print $2}'
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

declare -A results
for ((r = 0; r < ROUNDS; r++)); do
  for mode in blocking nonblocking; do
    for v in direct plain block; do
      results[$v.$mode]+="$(run_variant $v $mode) "
    done
  done
  for i in 1 2 3 4; do
    for v in plain block; do results[$v.spawn]+="$(spawn_ms $v) "; done
  done
done

echo "# $(uname -r), $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo '?'), $ROUNDS rounds x $CONNECTS connects, medians"
for mode in blocking nonblocking; do
  d=$(tr ' ' '\n' <<<"${results[direct.$mode]}" | grep . | median)
  p=$(tr ' ' '\n' <<<"${results[plain.$mode]}" | grep . | median)
  b=$(tr ' ' '\n' <<<"${results[block.$mode]}" | grep . | median)
  printf '%-12s connect+close us: direct %s, sandbox without block %s, with block %s; block/without %.2fx\n' \
    "$mode" "$d" "$p" "$b" "$(echo "$b / $p" | bc -l)"
done
p=$(tr ' ' '\n' <<<"${results[plain.spawn]}" | grep . | median)
b=$(tr ' ' '\n' <<<"${results[block.spawn]}" | grep . | median)
printf 'spawn (sandbox run --network host -- true) ms: without block %s, with block %s; %.2fx\n' \
  "$p" "$b" "$(echo "$b / $p" | bc -l)"
