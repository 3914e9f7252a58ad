# The package guard: every Debian package that owns a file CMake found while configuring must be
# one the scripts install, directly or through its Depends/PreDepends closure. A package that is
# only *recommended* (or was installed by hand) is present on a developer's machine and missing on
# a fresh one, where configure then fails; this check fails on every machine instead.
# Sourced, not executed. Needs dpkg-query and apt-cache (every Debian machine has both).

# guard_found_files CMAKE_CACHE: prints "cmake-entry<TAB>file" for each file configure found:
# the package config file of each <Pkg>_DIR entry, and each library found by pkg-config or
# find_library (<X>_LIBRARY and pkgcfg_lib_* entries). Entries outside /usr are ignored (a
# package built by hand in /opt is the user's business, not Debian's).
guard_found_files() {
  local cache="$1"
  local line name value file
  while IFS= read -r line; do
    name="${line%%:*}"
    value="${line#*=}"
    case "$value" in /usr/*) ;; *) continue ;; esac
    case "$name" in
      *_DIR)
        [ -d "$value" ] || continue
        file=""
        for candidate in "$value"/*Config.cmake "$value"/*-config.cmake; do
          if [ -f "$candidate" ]; then file="$candidate"; break; fi
        done
        [ -n "$file" ] && printf '%s\t%s\n' "${name%_DIR}" "$file"
        ;;
      *_LIBRARY|pkgcfg_lib_*)
        [ -f "$value" ] && printf '%s\t%s\n' "$name" "$value"
        ;;
    esac
  done < <(grep -E '^[A-Za-z0-9_.+-]+:(PATH|FILEPATH)=' "$cache" | grep -v '^CMAKE_')
}

# guard_owner FILE: the Debian package that owns FILE (tries the path as found, its real path,
# and the /usr-less form that merged-/usr systems still record for some packages).
guard_owner() {
  local file="$1"
  local real candidates=("$file")
  real="$(readlink -f "$file" 2>/dev/null || true)"
  [ -n "$real" ] && [ "$real" != "$file" ] && candidates+=("$real")
  case "$real" in /usr/lib/*) candidates+=("${real#/usr}") ;; esac
  local c owner
  for c in "${candidates[@]}"; do
    owner="$(dpkg-query -S "$c" 2>/dev/null | head -n 1 | cut -d: -f1 | cut -d, -f1)"
    if [ -n "$owner" ]; then printf '%s\n' "$owner"; return 0; fi
  done
  return 1
}

# guard_closure PKG...: the packages PKG... pull in through Depends and PreDepends (recursively,
# every alternative, no Recommends or Suggests), one a line, the named ones included.
guard_closure() {
  apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances "$@" 2>/dev/null |
    sed -n -E 's/^([a-z0-9][a-z0-9.+-]*)(:[a-z0-9]+)?$/\1/p; s/^ *\|?(Pre)?Depends: ([a-z0-9][a-z0-9.+-]*)(:[a-z0-9]+)?$/\2/p' |
    sort -u
}

# check_package_closure CMAKE_CACHE PKG...: 0 when every owner of a found file is among PKG...
# or their closure; otherwise prints one line per missing package (the package, the CMake entry
# that needed it and the file) and returns 1.
check_package_closure() {
  local cache="$1"; shift
  if [ ! -f "$cache" ]; then
    echo "package guard: $cache: no CMake cache (configure did not run)" >&2
    return 1
  fi
  local closure
  closure="$(guard_closure "$@")"
  if [ -z "$closure" ]; then
    echo "package guard: apt-cache depends gave nothing for the package list (run apt-get update)" >&2
    return 1
  fi
  local entry file owner bad=0
  declare -A reported=()
  while IFS=$'\t' read -r entry file; do
    if ! owner="$(guard_owner "$file")"; then
      echo "package guard: $entry: $file belongs to no Debian package" >&2
      bad=1
      continue
    fi
    if ! grep -qx -- "$owner" <<<"$closure"; then
      if [ -z "${reported[$owner]:-}" ]; then
        echo "package guard: package '$owner' is not installed by the scripts (nor depended on by a package they install), yet CMake package '$entry' needed it ($file); add it to LIMITSCOPE_PACKAGES in scripts/lib/common.sh" >&2
        reported[$owner]=1
      fi
      bad=1
    fi
  done < <(guard_found_files "$cache")
  return "$bad"
}
