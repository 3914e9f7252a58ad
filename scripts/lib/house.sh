# Sourced by scripts/test (check_house): the house rules STYLE.md states, checked over the
# tracked sources and docs so they stay true without anyone remembering them:
#  - no file longer than 700 lines (split by responsibility before that);
#  - no test waits by sleeping (inject the clock, or wait on an event: tests/support);
#  - no left-behind work markers in code or docs (the words `marker` below spells in pieces, so
#    that this file does not trip its own check).

# house_files: the tracked text files the rules cover, one path per line.
house_files() {
  (cd "$LIMITSCOPE_ROOT" &&
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then git ls-files; else
      find . -type f -not -path './build*' -not -path './.git/*' | sed 's#^\./##'; fi) |
    grep -E '\.(cpp|h|hpp|c|lua|md|sh|cmake|py|js|mjs|yml|yaml|desktop)$|(^|/)CMakeLists\.txt$|^scripts/[a-z-]+$'
}

# check_house: fails, naming each file (and line), when a rule above is broken.
check_house() {
  local rc=0 files hits
  files="$(house_files)"
  hits="$(cd "$LIMITSCOPE_ROOT" && xargs -d '\n' wc -l <<<"$files" | awk '$2 != "total" && $1 > 700')"
  if [[ -n "$hits" ]]; then
    printf '%s\n' "$hits" >&2
    log "house: files over 700 lines; split them by responsibility"
    rc=1
  fi
  if hits="$(cd "$LIMITSCOPE_ROOT" && grep -E '^tests/' <<<"$files" |
    xargs -d '\n' grep -nE '\b(sleep_for|sleep_until|usleep|nanosleep)\b' /dev/null)"; then
    printf '%s\n' "$hits" >&2
    log "house: tests wait by sleeping; inject the clock or wait on an event (tests/support)"
    rc=1
  fi
  local marker='to''do|fix''me'
  if hits="$(cd "$LIMITSCOPE_ROOT" && xargs -d '\n' grep -niE "$marker" /dev/null <<<"$files")"; then
    printf '%s\n' "$hits" >&2
    log "house: work-left markers in code or docs; finish the work or file it as an issue"
    rc=1
  fi
  return "$rc"
}
