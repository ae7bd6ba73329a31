#!/usr/bin/env bash
# Builds the mcpgate image with Podman from nothing but Debian's archive and the
# npm registry: the offline base (docker/build-base.sh), then the unchanged
# Dockerfile with --pull=never. The compile runs niced (it takes long on 2 cores).
#
# usage: docker/build-image.sh [TAG]   (default localhost/mcpgate:latest; root)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
tag=${1:-localhost/mcpgate:latest}
export CONTAINERS_CONF=${CONTAINERS_CONF:-$here/docker/containers.conf}
bash docker/build-base.sh
# The host's extra CAs (a TLS-inspecting proxy on the way to the npm registry).
find docker/build-ca -name '*.crt' -delete
cp /usr/local/share/ca-certificates/*.crt docker/build-ca/ 2>/dev/null || true
start=$(date +%s)
nice -n 10 podman build --pull=never --format docker -f docker/Dockerfile -t "$tag" .
echo "build-image: $tag built in $(($(date +%s) - start)) s"
