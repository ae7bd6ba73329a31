#!/bin/bash
# Instructions per call of the gateway, counted by callgrind rather than timed:
# what a change costs in the gateway's own code, free of this machine's noise.
#
#   bash bench/callgrind_call.sh MCPGATE legacy|modern [BUILD] [SECONDS]
#
# As root, with valgrind (apt install valgrind). The gateway runs unprivileged
# (uid 64123) under callgrind with one worker and DLP off; its echo servers
# come from mcpgate-spawner (root, not under valgrind: seccomp cannot be set
# up under valgrind). Two connections, 4 KiB calls; the counts are zeroed after
# a 3 s warm-up and dumped after SECONDS (8) of load. Prints the calls, the
# instructions per call and the dump's path (read it with callgrind_annotate).
# DLP_RULES=DIR turns DLP on with that rule directory; the gateway first runs
# once outside valgrind to fill its rule cache (a cold compile under valgrind
# takes minutes).
set -euo pipefail
BIN=$(realpath "$1"); MODE=$2
BUILD=$(realpath "${3:-build}"); SECONDS_RUN=${4:-8}
USER_ID=64123
WORK=$(mktemp -d /tmp/mcpgate-callgrind.XXXXXX)
chmod 755 "$WORK"
cleanup() {
  [ -n "${VG:-}" ] && kill "$VG" 2>/dev/null || true
  [ -n "${SPAWNER:-}" ] && kill "$SPAWNER" 2>/dev/null || true
}
trap cleanup EXIT
ECHO=$BUILD/bench/mcp_echo_server
cat > "$WORK/gw.yaml" <<EOF
listen: 127.0.0.1:0
servers:
  echo:
    command: $ECHO
    sandbox: {binds: [{src: $(dirname "$ECHO"), dst: $(dirname "$ECHO")}]}
sandbox: {commands: [$ECHO]}
session: {idle_timeout: 600s}
state_dir: $WORK/state
cache_dir: $WORK/cache
dlp: {enabled: false}
EOF
if [ -n "${DLP_RULES:-}" ]; then
  sed -i "s|^dlp: .*|dlp: {enabled: true, rules: [$(realpath "$DLP_RULES")]}|" "$WORK/gw.yaml"
fi
chmod 644 "$WORK/gw.yaml"
install -d -o $USER_ID -g $USER_ID "$WORK/state" "$WORK/cache" "$WORK/out"

setsid "$BUILD/gateway/mcpgate-spawner" --config "$WORK/gw.yaml" --socket "$WORK/spawner.sock" \
  --gateway-user $USER_ID > "$WORK/spawner.log" 2>&1 < /dev/null &
SPAWNER=$!
for _ in $(seq 1 50); do [ -S "$WORK/spawner.sock" ] && break; sleep 0.2; done

if [ -n "${DLP_RULES:-}" ]; then
  setsid setpriv --reuid $USER_ID --regid $USER_ID --clear-groups \
    "$BIN" serve -c "$WORK/gw.yaml" --threads 1 --spawner "$WORK/spawner.sock" \
    > "$WORK/warm.log" 2>&1 < /dev/null &
  WARM=$!
  for _ in $(seq 1 300); do grep -aq '"msg":"listening"' "$WORK/warm.log" && break; sleep 0.5; done
  kill "$WARM"; wait "$WARM" 2>/dev/null || true
fi

OUT=$WORK/out/callgrind.out
setsid setpriv --reuid $USER_ID --regid $USER_ID --clear-groups \
  valgrind --tool=callgrind --callgrind-out-file="$OUT" \
  "$BIN" serve -c "$WORK/gw.yaml" --threads 1 --spawner "$WORK/spawner.sock" \
  > "$WORK/gateway.log" 2>&1 < /dev/null &
VG=$!
for _ in $(seq 1 300); do grep -aq '"msg":"listening"' "$WORK/gateway.log" && break; sleep 0.5; done
PORT=$(grep -ao '"msg":"listening".*"address":"[^"]*:[0-9]*"' "$WORK/gateway.log" | head -1 |
       grep -o '[0-9]*"$' | tr -d '"')
[ -n "$PORT" ] || { echo "the gateway did not start: $WORK/gateway.log" >&2; exit 1; }
control() { timeout 60 setpriv --reuid $USER_ID --regid $USER_ID --clear-groups callgrind_control "$@" > /dev/null 2>&1; }
FLAG=(); [ "$MODE" = modern ] && FLAG=(--modern)
LOAD=(--url "http://127.0.0.1:$PORT/mcp/echo" --sessions 2 --payload 4096 --warmup 0 "${FLAG[@]}")
"$BUILD/bench/mcp_loadgen" "${LOAD[@]}" --duration 3 > /dev/null 2>&1
control -z "$VG"
"$BUILD/bench/mcp_loadgen" "${LOAD[@]}" --duration "$SECONDS_RUN" > "$WORK/load.json" 2> /dev/null
control -d "$VG"
for _ in $(seq 1 30); do [ -s "$OUT.1" ] && break; sleep 1; done
TOTAL=$(awk '/^summary:/ {print $2}' "$OUT.1")
python3 - "$WORK/load.json" "$TOTAL" "$OUT.1" "$MODE" <<'EOF'
import json, sys
load = json.load(open(sys.argv[1]))
calls, errors, total = load["calls"], load["errors"], int(sys.argv[2])
if calls == 0 or errors:
    sys.exit(f"{calls} calls, {errors} errors: nothing to count")
print(f"{sys.argv[4]}: {calls} calls, {total / calls:,.0f} instructions per call ({sys.argv[3]})")
EOF
