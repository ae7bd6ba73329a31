#!/usr/bin/env bash
# The one place that installs what mcpgate needs to build, run and test:
# Debian 12 packages, then the pinned npm test dependencies (package-lock.json)
# into node_modules/ at the repository root. Idempotent: a second run only
# checks. Used by the README, .ci/run and the Dockerfile.
#
#   --build-only  only what compiling mcpgate needs: no test or benchmark
#                 packages, no Node.js, no npm install (the Dockerfile's build stage)
#   --container   also the container and load-balancer tools that the `container`
#                 and `lb` test labels use (podman, runc, debootstrap, haproxy, ...).
#                 Opt-in: the default CI run does not need them and they pull in
#                 about 60 MB more plus podman's system services.
set -euo pipefail

build_only=0
container=0
for arg in "$@"; do
  case "$arg" in
    --build-only) build_only=1 ;;
    --container) container=1 ;;
    *) echo "usage: $0 [--build-only] [--container]" >&2; exit 2 ;;
  esac
done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  libboost1.81-dev            # Beast and Asio (header-only)
  libhyperscan-dev libre2-dev # DLP engine
  zlib1g-dev                  # DLP: gzip and zlib streams inside base64 are inflated
  nlohmann-json3-dev libyaml-cpp-dev
  libmimalloc-dev             # the gateway's allocator (CMakeLists.txt: MCPGATE_MIMALLOC)
  libssl-dev libseccomp-dev libcap-dev
)
test_packages=(
  libgtest-dev libgmock-dev libbenchmark-dev
  iproute2 util-linux procps  # sandbox tests: ip, setpriv, ps
  bubblewrap wrk gnuplot-nox  # benchmarks: peers to compare against, plots
  clang-16 libclang-rt-16-dev # fuzz targets: libFuzzer; clang 16 compiles libstdc++'s <expected>
  clang-tidy-14               # scripts/tidy.sh: clang-tidy on the lines a change touches (CI)
  nginx                       # bench/run.mjs: the static-answer ceiling (its own config, loopback)
  linux-perf                  # perf record -g of the gateway under bench load (bench/RESULTS.md)
)
container_packages=(
  podman runc                 # build and run the image (runc: crun refuses hybrid cgroups)
  catatonit                   # podman kube play: the pod's infra (pause) container
  buildah                     # podman build's engine, also usable alone
  debootstrap                 # the offline base image (docker/build-base.sh)
  uidmap slirp4netns fuse-overlayfs containernetworking-plugins iptables  # podman's helpers
  haproxy                     # replicas behind a load balancer (docker/haproxy.cfg)
  dpkg-dev                    # dpkg-shlibdeps for the CPack .deb
)
[ "$build_only" -eq 1 ] || packages+=("${test_packages[@]}")
if [ "$container" -eq 1 ]; then
  packages+=("${container_packages[@]}")
  # kubectl kustomize docker/k8s; any kubectl will do (another vendor's package may own the name)
  command -v kubectl >/dev/null || packages+=(kubernetes-client)
fi

missing=()
for p in "${packages[@]}"; do
  [[ "$p" == \#* ]] && continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "$build_only" -eq 0 ] && { ! command -v node >/dev/null || ! command -v npm >/dev/null; }; then
  missing+=(nodejs npm)
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  # nginx and haproxy are run by the tests with their own configs on loopback ports; their
  # Debian services (nginx's default site on port 80) must not start on the host. policy-rc.d
  # keeps them from starting during the install, and the units we installed are disabled.
  made_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
    $sudo chmod 755 /usr/sbin/policy-rc.d
    made_policy=1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  [ "$made_policy" -eq 0 ] || $sudo rm -f /usr/sbin/policy-rc.d
  for daemon in nginx haproxy; do
    if [[ " ${missing[*]} " == *" $daemon "* ]] && command -v systemctl >/dev/null &&
        [ -d /run/systemd/system ]; then
      $sudo systemctl disable --now "$daemon" >/dev/null 2>&1 || true
    fi
  done
fi

if [ "$build_only" -eq 1 ]; then
  echo "install-deps: ok (build only)"
  exit 0
fi

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "install-deps: Node.js >= 20 is needed, found $(node --version)" >&2
  exit 1
fi

# npm test dependencies, exactly as locked. Skip when the lock has not changed
# since the last successful install.
cd "$here"
stamp=node_modules/.mcpgate-lock-stamp
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  echo "install-deps: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
echo "install-deps: ok"
