#!/bin/sh
# `cmake --install` puts the shipped packs in <prefix>/share/mcpgate/rules, and a binary installed
# in <prefix>/bin finds them there by default (no --rules, no MCPGATE_RULES), before the source
# tree. Usage: install_rules_test.sh CMAKE BUILD_DIR PREFIX DLP_RULES_BINARY
set -eu
cmake=$1 build=$2 prefix=$3 runner=$4
rm -rf "$prefix"
"$cmake" --install "$build" --prefix "$prefix" --component rules >/dev/null
rules=$prefix/share/mcpgate/rules
for f in pii.yaml injection.yaml command.yaml secrets/cloud.yaml; do
  test -f "$rules/$f" || { echo "not installed: $rules/$f"; exit 1; }
done
# Drop the secret packs from the installed copy: the rule count then shows which copy was read.
rm -r "$rules/secrets"
want=$(cat "$rules"/*.yaml | grep -c '^  - id:')
mkdir -p "$prefix/bin"
cp "$runner" "$prefix/bin/"
out=$(env -u MCPGATE_RULES "$prefix/bin/$(basename "$runner")" test)
echo "$out"
case $out in
  "$want rules, "*", 0 failed") ;;
  *) echo "expected $want rules from $rules"; exit 1 ;;
esac
