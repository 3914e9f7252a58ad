#!/usr/bin/env bash
# The core layering check of scripts/test (check_core_layers, scripts/lib/boundaries.sh) on
# made-up core/ trees: it must fail on a cycle between folders, naming the folders and the
# include lines that make its edges, and pass on a tree whose folders form a DAG; and the real
# tree must pass.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
log() { echo "$*" >&2; }
source "$root/scripts/lib/boundaries.sh"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

mkdir -p "$tmp/core/common" "$tmp/core/a" "$tmp/core/b" "$tmp/core/c"
echo '#pragma once' > "$tmp/core/common/base.h"
printf '#include "core/common/base.h"\n#include "core/b/b.h"\n' > "$tmp/core/a/a.h"
printf '#include "core/c/c.h"\n' > "$tmp/core/b/b.h"
printf '#include "core/common/base.h"\n' > "$tmp/core/c/c.h"

# 1. a -> b -> c, all -> common: a DAG, passes.
out="$(LIMITSCOPE_ROOT="$tmp" check_core_layers 2>&1)" || fail "a DAG was refused: $out"

# 2. c -> a closes a cycle: fails, naming the three folders and the lines of the edges.
printf '#include "core/common/base.h"\n\n#include "core/a/a.h"\n' > "$tmp/core/c/c.cpp"
out="$(LIMITSCOPE_ROOT="$tmp" check_core_layers 2>&1)"; rc=$?
[ "$rc" -ne 0 ] || fail "the cycle a -> b -> c -> a passed"
for edge in "a -> b: core/a/a.h:2" "b -> c: core/b/b.h:1" "c -> a: core/c/c.cpp:3"; do
  grep -qF "$edge" <<<"$out" || fail "the report lacks '$edge': $out"
done
grep -qF "common" <<<"$out" && fail "the report names common, which is in no cycle: $out"

# 3. An include of a folder's own header is no edge.
rm "$tmp/core/c/c.cpp"
printf '#include "core/a/a.h"\n' > "$tmp/core/a/a.cpp"
out="$(LIMITSCOPE_ROOT="$tmp" check_core_layers 2>&1)" || fail "a folder's own include was a cycle: $out"

# 4. This tree.
out="$(LIMITSCOPE_ROOT="$root" check_core_layers 2>&1)" || fail "core/ has a cycle: $out"

[ "$failures" -eq 0 ] && echo "boundaries_test: all passed"
exit $((failures > 0))
