# The Debian package: build it with cpack in a configured build directory, then check it as a
# user's machine would see it. Sourced by scripts/test and scripts/package; needs common.sh.

# build_deb BUILD_DIR: runs cpack -G DEB there; prints the .deb's path.
build_deb() {
  local dir="$1"
  local version
  version="$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$dir/CMakeCache.txt")"
  local arch
  arch="$(dpkg --print-architecture)"
  local deb="$dir/limitscope_${version}_${arch}.deb"
  rm -f "$deb"
  (cd "$dir" && cpack -G DEB >/dev/null) || { log "cpack -G DEB failed in $dir"; return 1; }
  [ -f "$deb" ] || { log "cpack did not write $deb"; return 1; }
  printf '%s\n' "$deb"
}

# check_deb DEB: unpacks DEB into a temporary root with dpkg -x and runs each program's
# --version (must name the package's version) and --help from there; validates the desktop
# entry; checks the man pages and the computed Depends; runs lintian, failing on errors and
# listing warnings. Returns 1 on the first failed check, with a line saying which.
check_deb() {
  local deb="$1"
  local root
  root="$(mktemp -d)"
  # shellcheck disable=SC2064
  trap "rm -rf '$root'" RETURN
  dpkg -x "$deb" "$root" || { log "dpkg -x $deb failed"; return 1; }
  local version depends
  version="$(dpkg-deb -f "$deb" Version)"
  depends="$(dpkg-deb -f "$deb" Depends)"
  # dpkg-shlibdeps must have computed the library dependencies.
  for lib in libhiredis libyaml-cpp libssl3 libre2-9 libqt6charts6 libc6; do
    grep -q "$lib" <<<"$depends" || { log "package Depends lacks $lib: $depends"; return 1; }
  done
  local program out
  for program in limitscope limitscope-cli limitscope-gateway; do
    local exe="$root/usr/bin/$program"
    [ -x "$exe" ] || { log "package has no /usr/bin/$program"; return 1; }
    # No display: --help and --version must not need one.
    out="$(env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$exe" --version 2>&1)" ||
      { log "$program --version from the package failed: $out"; return 1; }
    grep -qx "$program $version" <<<"$out" ||
      { log "$program --version printed '$out', expected '$program $version'"; return 1; }
    out="$(env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$exe" --help 2>&1)" ||
      { log "$program --help from the package failed: $out"; return 1; }
    grep -qi "usage" <<<"$out" || { log "$program --help printed no usage: $out"; return 1; }
    [ -s "$root/usr/share/man/man1/$program.1.gz" ] ||
      { log "package has no man page for $program"; return 1; }
  done
  desktop-file-validate "$root/usr/share/applications/limitscope.desktop" ||
    { log "desktop-file-validate failed on the package's limitscope.desktop"; return 1; }
  [ -s "$root/usr/share/icons/hicolor/scalable/apps/limitscope.svg" ] ||
    { log "package has no scalable icon"; return 1; }
  local lintian_out rc=0
  lintian_out="$(lintian --fail-on error --allow-root --tag-display-limit 0 --display-info "$deb" 2>&1)" || rc=$?
  [ -n "$lintian_out" ] && printf '%s\n' "$lintian_out" | sed 's/^/[lintian] /' >&2
  if [ "$rc" -ne 0 ]; then
    log "lintian found errors in $deb"
    return 1
  fi
  log "package ok: $(basename "$deb") (Depends: $depends)"
}

# check_user_build_configure DIR: configures a package build (Release, no tests, no benchmarks)
# in DIR and fails if it looked for GoogleTest, Google Benchmark or Qt Test, which a user
# building the product must not need.
check_user_build_configure() {
  local dir="$1"
  rm -rf "$dir"
  configure "$dir" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DLIMITSCOPE_BUILD_BENCH=OFF ||
    { log "a package build (BUILD_TESTING=OFF) does not configure"; return 1; }
  local entry
  for entry in GTest_DIR benchmark_DIR Qt6Test_DIR; do
    if grep -q "^$entry:" "$dir/CMakeCache.txt"; then
      log "a package build (BUILD_TESTING=OFF) still looked for $entry"
      return 1
    fi
  done
  rm -rf "$dir"
}
