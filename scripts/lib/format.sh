# Sourced by scripts/test (check_format) and scripts/format (apply_format): the C++ sources as
# .clang-format says (Google style, 100 columns). The files are the repository's own (git
# ls-files; a tree without git falls back to find), never a build directory's generated ones.

format_sources() {
  if git -C "$LIMITSCOPE_ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$LIMITSCOPE_ROOT" ls-files -z -- '*.cpp' '*.h'
  else
    (cd "$LIMITSCOPE_ROOT" && find app bench core fuzz process tests ui -name '*.cpp' -o -name '*.h' |
      tr '\n' '\0')
  fi
}

# check_format: fails, naming each file and line that differs, when a source is not formatted.
check_format() {
  local out
  out="$(mktemp)"
  local rc=0
  (cd "$LIMITSCOPE_ROOT" && format_sources | xargs -0 clang-format --dry-run -Werror) \
    >"$out" 2>&1 || rc=1
  if [ "$rc" -ne 0 ]; then
    grep -E '^[^ ].*: error:' "$out" | head -n 40 >&2
    log "format: $(grep -cE ': error:' "$out") places differ from .clang-format in" \
      "$(grep -E ': error:' "$out" | cut -d: -f1 | sort -u | wc -l) files; scripts/format fixes them"
  fi
  rm -f "$out"
  return "$rc"
}

# apply_format: rewrites every source in place.
apply_format() {
  (cd "$LIMITSCOPE_ROOT" && format_sources | xargs -0 clang-format -i)
}
