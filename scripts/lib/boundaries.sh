# Sourced by scripts/test (check_boundaries): the module boundaries docs/architecture.md draws,
# checked over the sources so they stay true. core/ (limitscope_core) starts no process (the
# private redis-servers of tests and benchmarks live in process/, limitscope_process) and
# includes no Qt.

# check_boundaries: fails, naming each file and line, when core/ spawns a process or includes Qt.
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
  return "$rc"
}
