#!/usr/bin/env bash
# clang-tidy (checks in .clang-tidy) on the C++ lines a change adds or modifies; exits 1 on
# any finding there. Code nobody touched is not held to it until someone touches it.
#   scripts/tidy.sh [BUILD_DIR] [BASE]
# BUILD_DIR holds compile_commands.json (default build). BASE: the commit to compare with;
# default the fork point from main, or HEAD~1 on main itself (CI's clean clone).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${1:-build}
base=${2:-}
tidy_diff=$(command -v clang-tidy-diff-14.py || command -v clang-tidy-diff || true)
if [[ -z "$tidy_diff" ]] || ! command -v clang-tidy-14 >/dev/null; then
  echo "tidy: clang-tidy 14 is not installed (apt-get install clang-tidy-14)" >&2
  exit 1
fi
if [[ ! -f "$build/compile_commands.json" ]]; then
  echo "tidy: no $build/compile_commands.json: configure the build first" >&2
  exit 1
fi
if [[ -z "$base" ]]; then
  if git rev-parse -q --verify main >/dev/null &&
     [[ "$(git rev-parse main)" != "$(git rev-parse HEAD)" ]]; then
    base=$(git merge-base main HEAD)
  else
    base=HEAD~1
  fi
fi
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
  echo "tidy: no commit $base to compare with: nothing to check"
  exit 0
fi
# g++ builds the tree; clang 14 reads the same commands. It knows C++23 as c++2b, and
# libstdc++ 12 hides std::expected from a compiler whose __cpp_concepts is below 202002.
out=$(git diff -U0 "$base" -- '*.cc' | "$tidy_diff" -clang-tidy-binary "$(command -v clang-tidy-14)" \
  -p1 -path "$build" -quiet -j 2 -extra-arg=-std=c++2b -extra-arg=-U__cpp_concepts -extra-arg=-D__cpp_concepts=202002L \
  -extra-arg=-Wno-unknown-warning-option 2>&1 || true)
# Compiler diagnostics are g++'s job (the -Werror build), not tidy's: clang 14's differ, come
# for whole files whatever lines changed, and it cannot parse every use of libstdc++ 12's
# <expected> ("attempt to use a deleted function" where g++ accepts the code). They are counted
# apart and do not fail the step; findings of the checks in .clang-tidy do.
compiler=$(grep -cE '^[^ ]+:[0-9]+:[0-9]+: (warning|error): .*\[clang-diagnostic-[a-z0-9-]+\]$' \
  <<<"$out" || true)
findings=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' <<<"$out" |
  grep -vE '\[clang-diagnostic-[a-z0-9-]+\]$' || true)
if [[ "$compiler" -gt 0 ]]; then
  echo "tidy: $compiler clang compiler diagnostic(s) not counted (g++ -Werror builds the code)"
fi
if [[ -n "$findings" ]]; then
  echo "$out"
  echo "tidy: $(wc -l <<<"$findings") finding(s) on lines changed since $(git rev-parse --short "$base")" >&2
  exit 1
fi
echo "tidy: no findings on lines changed since $(git rev-parse --short "$base")"
