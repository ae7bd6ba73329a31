#!/usr/bin/env bash
# Sets up, builds and runs every test: a release tree with warnings as errors
# (unit, integration, end-to-end with the official MCP SDK, conformance,
# rule packs), then an ASan+UBSan tree running the unit and integration tests, then
# every libFuzzer target for a bounded time (where clang 16 is installed).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash docker/install-deps.sh

echo "== build (release, -Werror)"
# Options spelled out: `scripts/demo.sh` configures the same tree without tests.
bash scripts/build.sh build -DMCPGATE_WERROR=ON -DMCPGATE_SANITIZE=OFF -DMCPGATE_TESTS=ON \
  -DMCPGATE_BENCH=ON
echo "== clang-tidy (C++ lines changed since the fork point, or by the last commit)"
bash scripts/tidy.sh build
echo "== tests (release)"
# Not here: `container` and `lb` (image builds, HAProxy; tests/deploy/CMakeLists.txt).
(cd build && ctest --output-on-failure --no-tests=error --timeout 600 -LE 'container|lb|soak|hostile')

echo "== build (ASan + UBSan)"
bash scripts/build.sh build-asan -DMCPGATE_WERROR=ON -DMCPGATE_SANITIZE=ON -DMCPGATE_TESTS=ON \
  -DMCPGATE_BENCH=OFF
echo "== tests (ASan + UBSan: unit and integration)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd build-asan && ctest --output-on-failure --no-tests=error --timeout 600 -LE 'e2e|conformance|bench|container|lb|soak|hostile')

# Fuzz targets (tests/fuzz/README.md): a clang tree holding only them and the libraries they
# fuzz, each run for MCPGATE_FUZZ_SECONDS (default 10) from its seed corpus.
if command -v clang++-16 >/dev/null; then
  echo "== build (libFuzzer targets, clang 16)"
  CC=clang-16 CXX=clang++-16 cmake -S "$root" -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMCPGATE_FUZZ=ON -DMCPGATE_TESTS=OFF -DMCPGATE_BENCH=OFF \
    -DMCPGATE_FUZZ_SECONDS="${MCPGATE_FUZZ_SECONDS:-10}" >/dev/null
  cmake --build build-fuzz -j "${MCPGATE_JOBS:-2}" --target fuzz_targets
  echo "== fuzz (each target ${MCPGATE_FUZZ_SECONDS:-10} s)"
  (cd build-fuzz && ctest --output-on-failure --no-tests=error -L fuzz)
else
  echo "== fuzz: skipped (no clang++-16; docker/install-deps.sh installs it)"
fi
