# Sourced by scripts/test: builds every libFuzzer target fuzz/*_fuzz.cpp (clang, ASan + UBSan)
# in build-fuzz/ and runs each one briefly from its seed corpus; a crash, a leak or a failed
# check fails the step. A target names its seeds and dictionary in comment lines:
#   // seed-corpus: tests/data/metrics      // dict: fuzz/exposition.dict
# LIMITSCOPE_FUZZ_SECONDS (default 15) and LIMITSCOPE_FUZZ_RUNS (default 10000) bound each target. docs/fuzzing.md tells how to
# run them for hours.

run_fuzz_smoke() {
  local seconds="${LIMITSCOPE_FUZZ_SECONDS:-15}"
  local dir="${LIMITSCOPE_FUZZ_BUILD_DIR:-$LIMITSCOPE_ROOT/build-fuzz}"
  CC=clang CXX=clang++ configure_and_build "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DLIMITSCOPE_FUZZ=ON -DLIMITSCOPE_BUILD_GUI=OFF -DLIMITSCOPE_BUILD_BENCH=OFF \
    -DLIMITSCOPE_WERROR=ON -- limitscope_fuzzers || return 1
  local status=0 src name work seeds dict
  for src in "$LIMITSCOPE_ROOT"/fuzz/*_fuzz.cpp; do
    [ -e "$src" ] || continue
    name="$(basename "$src" .cpp)"
    seeds="$(sed -n 's|^// seed-corpus: *||p' "$src" | head -n 1)"
    dict="$(sed -n 's|^// dict: *||p' "$src" | head -n 1)"
    # New inputs go to a scratch corpus; the seeds in the repository are only read.
    work="$(mktemp -d)"
    # A fixed seed makes the smoke run replay the same mutation sequence each time, so CI is
    # not red by chance; long runs (docs/fuzzing.md) use random seeds to find new inputs.
    # -runs bounds the work, not the time, so the same build replays exactly the same inputs.
    local args=(-seed="${LIMITSCOPE_FUZZ_SEED:-1}" -runs="${LIMITSCOPE_FUZZ_RUNS:-10000}"
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048
      -artifact_prefix="$dir/$name-" -print_final_stats=1)
    [ -n "$dict" ] && args+=(-dict="$LIMITSCOPE_ROOT/$dict")
    local corpus=("$work")
    [ -n "$seeds" ] && corpus+=("$LIMITSCOPE_ROOT/$seeds")
    log "fuzz: $name for ${seconds}s (seeds: ${seeds:-none})"
    if "$dir/fuzz/$name" "${args[@]}" "${corpus[@]}" >"$dir/$name.log" 2>&1; then
      log "fuzz: $name ok ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$dir/$name.log" | grep -o '[0-9]*$') runs)"
    else
      log "fuzz: $name FAILED; the crashing input is $dir/$name-crash-* (log: $dir/$name.log)"
      tail -n 40 "$dir/$name.log" >&2
      status=1
    fi
    rm -rf "$work"
  done
  return "$status"
}
