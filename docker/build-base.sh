#!/usr/bin/env bash
# Builds the Debian 12 base image the Dockerfile starts from, offline: a
# debootstrap `minbase` root from the Debian archive apt already uses, imported
# with `podman import` and tagged with the name the Dockerfile's FROM lines use
# (docker.io/library/debian:bookworm-slim), so `podman build --pull=never` of the
# unchanged Dockerfile needs no registry. Idempotent: an existing tag is kept
# unless --force is given.
#
# usage: docker/build-base.sh [--force] [--tag NAME]
# needs: root, debootstrap, podman (docker/install-deps.sh --container)
set -euo pipefail

tag=docker.io/library/debian:bookworm-slim
force=0
while [ $# -gt 0 ]; do
  case "$1" in
    --force) force=1 ;;
    --tag) tag=$2; shift ;;
    *) echo "usage: $0 [--force] [--tag NAME]" >&2; exit 2 ;;
  esac
  shift
done

if [ "$force" -eq 0 ] && podman image exists "$tag"; then
  echo "build-base: $tag exists (--force rebuilds it)"
  exit 0
fi

# The mirror apt uses here: the first deb822 URIs line or sources.list entry.
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
if [ -z "$mirror" ]; then
  mirror=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
fi
mirror=${mirror:-http://deb.debian.org/debian}

root=$(mktemp -d "${TMPDIR:-/tmp}/mcpgate-base.XXXXXX")
trap 'rm -rf "$root"' EXIT
echo "build-base: debootstrap --variant=minbase bookworm from $mirror"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 || {
  tail -20 "$root.log" >&2
  exit 1
}
rm -f "$root.log"
# Like the official slim image: no apt lists or caches, no docs or man pages.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/usr/share/doc/* \
  "$root"/usr/share/man/* "$root"/usr/share/info/*
# The sources the image's apt uses: the same mirror (and the security archive
# beside it when this host uses one).
{
  echo "deb $mirror bookworm main"
  echo "deb $mirror bookworm-updates main"
} >"$root/etc/apt/sources.list"
security=$(sed -n 's/^URIs: *\([^ ]*debian-security[^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources \
  2>/dev/null | head -1)
[ -n "$security" ] && echo "deb $security bookworm-security main" >>"$root/etc/apt/sources.list"

tar -C "$root" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["bash"]' - "$tag" >/dev/null
echo "build-base: $tag ($(podman image inspect --format '{{.Size}}' "$tag") bytes)"
