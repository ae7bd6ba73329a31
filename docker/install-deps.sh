#!/usr/bin/env bash
# The one place that installs what mcpgate needs to build, run and test:
# Debian 12 packages, then the pinned npm test dependencies (package-lock.json)
# into node_modules/ at the repository root. Idempotent: a second run only
# checks. Used by the README, .ci/run and the Dockerfile.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  libboost1.81-dev            # Beast and Asio (header-only)
  libhyperscan-dev libre2-dev # DLP engine
  nlohmann-json3-dev libyaml-cpp-dev
  libssl-dev libseccomp-dev libcap-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  iproute2 util-linux procps  # sandbox tests: ip, setpriv, ps
  bubblewrap wrk gnuplot-nox  # benchmarks: peers to compare against, plots
)

missing=()
for p in "${packages[@]}"; do
  [[ "$p" == \#* ]] && continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  missing+=(nodejs npm)
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
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
