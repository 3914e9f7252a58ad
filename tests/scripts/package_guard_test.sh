#!/usr/bin/env bash
# The package guard (scripts/lib/package_guard.sh) on CMake caches made up for the test, against
# this machine's dpkg database: it must fail, naming the package and the CMake package, when a
# found config file belongs to a package outside the list's Depends closure (the Qt6OpenGL case
# that broke fresh machines), and pass when the list holds it or a package depending on it.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$root/scripts/lib/package_guard.sh"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

config=/usr/lib/x86_64-linux-gnu/cmake/Qt6OpenGL/Qt6OpenGLConfig.cmake
if [ ! -f "$config" ]; then
  # The guard itself demands libqt6opengl6-dev before anything builds, so this cannot happen
  # under scripts/test; say so rather than pass on nothing.
  fail "$config is missing: libqt6opengl6-dev is not installed"
  exit 1
fi
cat > "$tmp/CMakeCache.txt" <<CACHE
Qt6OpenGL_DIR:PATH=$(dirname "$config")
pkgcfg_lib_HIREDIS_hiredis:FILEPATH=/usr/lib/x86_64-linux-gnu/libhiredis.so
Foo_DIR:PATH=Foo_DIR-NOTFOUND
Local_DIR:PATH=/opt/local/lib/cmake/Local
CMAKE_MAKE_PROGRAM:FILEPATH=/usr/bin/ninja
CACHE

# 1. qt6-base-dev only recommends libqt6opengl6-dev: the guard must fail and name both.
out="$(check_package_closure "$tmp/CMakeCache.txt" qt6-base-dev libhiredis-dev 2>&1)"; rc=$?
[ "$rc" -ne 0 ] || fail "guard passed a list without libqt6opengl6-dev"
grep -q "package 'libqt6opengl6-dev'" <<<"$out" || fail "guard did not name libqt6opengl6-dev: $out"
grep -q "CMake package 'Qt6OpenGL'" <<<"$out" || fail "guard did not name the CMake package: $out"
grep -q "libhiredis-dev" <<<"$out" && fail "guard blamed libhiredis-dev, which is listed: $out"

# 2. Listed directly: passes.
out="$(check_package_closure "$tmp/CMakeCache.txt" libqt6opengl6-dev libhiredis-dev 2>&1)" ||
  fail "guard failed with libqt6opengl6-dev listed: $out"

# 3. Pulled in through Depends of a listed package: passes (the runtime library libqt6opengl6
#    is not listed, but libqt6opengl6-dev depends on it).
printf 'Qt6OpenGLLib_LIBRARY:FILEPATH=%s\n' "$(readlink -f /usr/lib/x86_64-linux-gnu/libQt6OpenGL.so.6)" \
  > "$tmp/CMakeCache2.txt"
out="$(check_package_closure "$tmp/CMakeCache2.txt" libqt6opengl6-dev 2>&1)" ||
  fail "guard did not follow Depends (libqt6opengl6-dev -> libqt6opengl6): $out"

# 4. A missing cache is a failure, not a pass.
check_package_closure "$tmp/none/CMakeCache.txt" qt6-base-dev 2>/dev/null &&
  fail "guard passed with no CMake cache"

if [ "$failures" -eq 0 ]; then echo "package guard test: ok"; fi
exit "$failures"
