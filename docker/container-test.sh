#!/usr/bin/env bash
# Builds the image from nothing but Debian's archive and the npm registry, runs
# it as a user would (non-root, read-only root, our seccomp profile), and checks:
# `mcpgate sandbox probe` inside reports every namespace, mount and seccomp
# layer enforced; the HEALTHCHECK passes; the official MCP SDK client's
# tools/call reaches the sandboxed server through the container (published on
# 127.0.0.1 only). Exit 77 (CTest: skipped) when podman is not installed.
#
# usage: docker/container-test.sh   (root; MCPGATE_IMAGE=name to reuse a built image)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
if ! command -v podman >/dev/null; then
  echo "container-test: podman is not installed (docker/install-deps.sh --container): skipped"
  exit 77
fi
export CONTAINERS_CONF=${CONTAINERS_CONF:-$here/docker/containers.conf}
image=${MCPGATE_IMAGE:-localhost/mcpgate:test}
name=mcpgate-ctest-$$
work=$(mktemp -d)
cleanup() {
  podman rm -f -t 2 "$name" >/dev/null 2>&1 || true
  podman volume rm -f "$name-state" "$name-cache" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

if [ -z "${MCPGATE_IMAGE:-}" ]; then
  bash docker/build-base.sh
  start=$(date +%s)
  nice -n 10 podman build --pull=never --format docker -q -f docker/Dockerfile -t "$image" . >/dev/null
  echo "container-test: image built in $(($(date +%s) - start)) s (cached layers count as 0)"
fi

# A config of the test's own: one token, the demo server of the image.
token=$(podman run --rm --read-only "$image" token new --client tester | head -1)
[ -n "$token" ] || { echo "container-test: mcpgate token new printed no token" >&2; exit 1; }
sha=$(printf '%s' "$token" | sha256sum | cut -d' ' -f1)
mkdir -p "$work/etc"
sed "s/0\{64\}/$sha/; s/client: operator/client: tester/" docker/mcpgate.yaml \
  >"$work/etc/mcpgate.yaml"
echo "sandbox: {on_unavailable: degrade}   # cgroup limits: see the probe check below" \
  >>"$work/etc/mcpgate.yaml"
chmod -R a+rX "$work"

port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
# Every flag is explained in the README's "Container" section.
podman run -d --name "$name" \
  --read-only --tmpfs /tmp:rw,nosuid,nodev,size=64m \
  -v "$name-state:/var/lib/mcpgate" -v "$name-cache:/var/cache/mcpgate" \
  --security-opt seccomp="$here/docker/seccomp.json" \
  --security-opt unmask=/proc/* \
  --security-opt no-new-privileges \
  --cap-drop ALL \
  -v "$work/etc:/etc/mcpgate:ro" \
  -p "127.0.0.1:$port:8080" \
  "$image" >/dev/null

fail() { echo "container-test: FAIL: $*" >&2; podman logs --tail 30 "$name" >&2 || true; exit 1; }
for _ in $(seq 100); do
  podman exec "$name" node -e 'fetch("http://127.0.0.1:8080/healthz").then(r=>process.exit(r.ok?0:1),()=>process.exit(1))' \
    2>/dev/null && break
  sleep 0.2
done
podman healthcheck run "$name" >/dev/null || fail "HEALTHCHECK does not pass"
echo "ok: HEALTHCHECK on /healthz passes"

uid=$(podman exec "$name" id -u)
[ "$uid" = 10001 ] || fail "runs as uid $uid, not 10001"
echo "ok: the gateway runs as uid $uid (non-root)"
podman exec "$name" touch /usr/share/x 2>/dev/null && fail "the root filesystem is writable"
echo "ok: the root filesystem is read-only"

probe=$(podman exec "$name" mcpgate sandbox probe 2>&1) || true
echo "$probe" | sed 's/^/  probe: /'
# Every namespace, the mount layer, seccomp, no_new_privs, capabilities, rlimits
# and the environment filter must be enforceable. cgroup limits need a cgroup
# delegated to the container's user, which this kind of host (cgroup v1, no
# delegation) cannot give: the test's config degrades only what is missing and
# the spawn report below must name nothing but cgroup layers.
missing=$(echo "$probe" | awk '$2 == "UNAVAILABLE" && $1 !~ /^cgroup-/ {print $1}')
[ "$(echo "$probe" | grep -c ' enforceable ')" -ge 11 ] || fail "sandbox probe printed too few layers"
[ -z "$missing" ] || fail "sandbox probe inside the container: not enforceable: $missing"
echo "ok: sandbox probe: every namespace, mount, seccomp, rlimit and privilege layer enforceable"

out=$(node tests/deploy/sdk_call.mjs "http://127.0.0.1:$port/mcp/everything" --token "$token" --calls 5) ||
  fail "the SDK client's calls failed"
echo "ok: SDK client through the container: $out"
# The server really ran in the sandbox; only cgroup layers may be degraded.
# All of it read, then shown in part: `| head` would end grep with SIGPIPE, which pipefail and
# set -e turn into a silent exit once the log holds more than five such lines.
logs=$(podman logs "$name" 2>&1)
spawn_log=$(grep -i 'degraded\|sandbox' <<<"$logs" || true)
sed -n '1,5s/^/  log: /p' <<<"$spawn_log"
if echo "$spawn_log" | grep -o '"layer":"[a-z_-]*"\|degraded[^,]*' | grep -v cgroup | grep -q layer; then
  fail "a layer other than cgroup was degraded"
fi

podman stop -t 15 "$name" >/dev/null
code=$(podman inspect --format '{{.State.ExitCode}}' "$name")
[ "$code" = 0 ] || fail "exit code $code after SIGTERM"
echo "ok: SIGTERM stops the container with exit code 0"
echo "container-test: 6 passed, 0 failed"
