# Shared by scripts/run and scripts/test: install missing Debian packages, configure, build.
# Sourced, not executed.

LIMITSCOPE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LIMITSCOPE_JOBS="${LIMITSCOPE_JOBS:-$(nproc 2>/dev/null || echo 2)}"

# Build and runtime packages, all from Debian 12.
LIMITSCOPE_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev qtkeychain-qt6-dev
  libgl-dev libegl-dev libglu1-mesa-dev fonts-dejavu-core
  libhiredis-dev nlohmann-json3-dev libyaml-cpp-dev libcpp-httplib-dev libssl-dev
  libre2-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  redis-server redis-tools prometheus wrk
  faketime
  nodejs npm
  clang libclang-rt-14-dev clang-format
  xvfb xauth
  desktop-file-utils lintian
)

log() { printf '[limitscope] %s\n' "$*" >&2; }

install_missing_packages() {
  local missing=()
  local pkg
  # What installed packages provide counts as installed: NodeSource's nodejs provides (and
  # conflicts with) npm, so asking apt for Debian's npm there would fail.
  local provided
  provided="$(dpkg-query -W -f='${Status}\t${Provides}\n' 2>/dev/null | grep '^install ok installed' |
    cut -f2 | tr ',' '\n' | sed -E 's/^ *([^ (]+).*/\1/' | sort -u)"
  for pkg in "${LIMITSCOPE_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' &&
      ! grep -qxF "$pkg" <<<"$provided"; then
      missing+=("$pkg")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  log "installing missing packages: ${missing[*]}"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

# configure BUILD_DIR [cmake args...]: configures (Ninja when a new build dir), then runs the
# package guard (scripts/lib/package_guard.sh) on what configure found, so a package that only a
# developer's machine has fails here, with its name, instead of on a user's fresh machine.
configure() {
  local dir="$1"; shift
  local generator=()
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    command -v ninja >/dev/null && generator=(-G Ninja)
  fi
  cmake -S "$LIMITSCOPE_ROOT" -B "$dir" "${generator[@]}" "$@" >/dev/null
  # shellcheck source=package_guard.sh
  source "$LIMITSCOPE_ROOT/scripts/lib/package_guard.sh"
  if ! check_package_closure "$dir/CMakeCache.txt" "${LIMITSCOPE_PACKAGES[@]}"; then
    log "package guard failed: a package configure used is not in LIMITSCOPE_PACKAGES' closure"
    return 1
  fi
}

# configure_and_build BUILD_DIR [cmake args...] -- [targets...]
configure_and_build() {
  local dir="$1"; shift
  local cmake_args=() targets=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do cmake_args+=("$1"); shift; done
  [ "${1:-}" = "--" ] && shift
  targets=("$@")
  configure "$dir" "${cmake_args[@]}"
  if [ ${#targets[@]} -gt 0 ]; then
    cmake --build "$dir" -j "$LIMITSCOPE_JOBS" --target "${targets[@]}"
  else
    cmake --build "$dir" -j "$LIMITSCOPE_JOBS"
  fi
}
