#!/usr/bin/env bash
# The Debian package on a clean Debian 12: builds it with CPack from BUILD_DIR
# (default build/), installs it with `apt install ./mcpgate_*.deb` in a fresh
# container of the debootstrap base (docker/build-base.sh), runs the systemd
# unit's ExecStart by hand as the unit's user (systemd is not PID 1 there), and
# calls the example config's server with the official SDK client over loopback.
# Exit 77 (skipped) without podman.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
build=${1:-build}
command -v podman >/dev/null || { echo "deb-test: podman is not installed: skipped"; exit 77; }
export CONTAINERS_CONF=${CONTAINERS_CONF:-$here/docker/containers.conf}
name=mcpgate-deb-$$
trap 'podman rm -f -t 1 "$name" >/dev/null 2>&1 || true' EXIT

(cd "$build" && cpack -G DEB >/dev/null)
deb=$(realpath "$(ls -t "$build"/mcpgate_*.deb | head -1)")  # BUILD_DIR may be absolute (ctest)
echo "deb-test: $deb ($(stat -c %s "$deb") bytes)"
bash docker/build-base.sh

port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
exec_start=$(sed -n 's/^ExecStart=//p' docker/mcpgate.service)
# Host network: the gateway's loopback port is the host's (nothing leaves loopback).
podman run -d --name "$name" --network host \
  --security-opt seccomp="$here/docker/seccomp.json" --security-opt unmask=/proc/* \
  -v "$deb:/tmp/mcpgate.deb:ro" docker.io/library/debian:bookworm-slim sleep 600 >/dev/null
podman exec "$name" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ./tmp/mcpgate.deb' \
  >/tmp/deb-test-apt.log 2>&1 || { tail -20 /tmp/deb-test-apt.log; exit 1; }
echo "ok: apt install ./$(basename "$deb") on a clean Debian 12"
# A container gives its non-root user no cgroup to delegate (systemd's
# Delegate=yes does, on a host): only the cgroup layers may be missing here.
podman exec "$name" sh -c 'echo "sandbox: {on_unavailable: degrade}" >>/etc/mcpgate/mcpgate.yaml'
podman exec "$name" test -f /lib/systemd/system/mcpgate.service
podman exec "$name" id mcpgate >/dev/null
podman exec -d "$name" runuser -u mcpgate -- $exec_start --listen "127.0.0.1:$port"
for _ in $(seq 100); do
  curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  node -e "fetch('http://127.0.0.1:$port/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" && break
  sleep 0.2
done
echo "ok: the unit's ExecStart ($exec_start) serves, as user mcpgate"
out=$(node tests/deploy/sdk_call.mjs "http://127.0.0.1:$port/mcp/echo" --calls 3) || {
  podman exec "$name" sh -c 'ls -la /var/lib/mcpgate' ; exit 1; }
echo "ok: SDK client through the installed package: $out"
echo "deb-test: 3 passed, 0 failed"
