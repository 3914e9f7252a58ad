# Sourced by scripts/test (check_boundaries): the module boundaries docs/architecture.md draws,
# checked over the sources so they stay true. core/ (limitscope_core) starts no process (the
# private redis-servers of tests and benchmarks live in process/, limitscope_process),
# includes no Qt, and its folders use each other without a cycle (a layering: the table in
# docs/architecture.md).

# core_folder_edges: "from to" for each core folder whose files include another's header, with
# the file and line that makes it ("from to file:line"), one line per include.
core_folder_edges() {
  (cd "$LIMITSCOPE_ROOT" && grep -rnoE '^#include[[:space:]]*"core/[a-z_]+/' core) |
    sed -nE 's#^core/([a-z_]+)/([^:]*):([0-9]+):\#include[[:space:]]*"core/([a-z_]+)/$#\1 \4 core/\1/\2:\3#p' |
    awk '$1 != $2'
}

# check_core_layers: fails, naming the folders of a cycle and the includes that make its edges,
# when core's folders include each other in a circle (tsort finds the loop).
check_core_layers() {
  local edges loop
  edges="$(core_folder_edges)"
  loop="$(cut -d' ' -f1,2 <<<"$edges" | sort -u | tsort 2>&1 >/dev/null |
    sed -nE 's/^tsort: ([a-z_]+)$/\1/p')"
  [[ -z "$loop" ]] && return 0
  log "boundaries: core folders include each other in a cycle ($(tr '\n' ' ' <<<"$loop")); move the shared type to the lower folder"
  local a b
  for a in $loop; do
    for b in $loop; do
      awk -v a="$a" -v b="$b" '$1 == a && $2 == b { print "  " a " -> " b ": " $3 }' <<<"$edges" >&2
    done
  done
  return 1
}

# check_boundaries: fails, naming each file and line, when core/ spawns a process, includes Qt
# or its folders include each other in a cycle.
check_boundaries() {
  local spawn='\b(fork|vfork|posix_spawnp?|exec(l|lp|le|v|vp|ve|vpe)|popen|system)\(|#include[[:space:]]*<(spawn|sys/wait)\.h>'
  local qt='#include[[:space:]]*<Q'
  local rc=0 hits
  if hits="$(cd "$LIMITSCOPE_ROOT" && grep -rnE "$spawn" core)"; then
    printf '%s\n' "$hits" >&2
    log "boundaries: core/ starts a process; that belongs in process/ (limitscope_process)"
    rc=1
  fi
  if hits="$(cd "$LIMITSCOPE_ROOT" && grep -rnE "$qt" core)"; then
    printf '%s\n' "$hits" >&2
    log "boundaries: core/ includes Qt; core is Qt-free (ui/ holds the Qt code)"
    rc=1
  fi
  check_core_layers || rc=1
  return "$rc"
}
