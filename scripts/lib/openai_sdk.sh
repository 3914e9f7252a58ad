# The official OpenAI Node SDK for tests/e2e/openai_sdk_e2e_test.cpp, pinned by
# tests/e2e/openai_sdk/package-lock.json. Sourced, not executed (after common.sh).

# install_openai_sdk BUILD_DIR: npm ci into BUILD_DIR/openai-sdk (npm's cache first, then the
# registry). npm ci removes what a previous run installed first, so nothing stale survives a
# failure. On failure: one log line, and npm's output in BUILD_DIR/openai-sdk/npm-ci.log, which
# the test quotes when it fails; a missing SDK is a failed test, never a skipped one.
install_openai_sdk() {
  local dir="$1/openai-sdk"
  local src="$LIMITSCOPE_ROOT/tests/e2e/openai_sdk"
  mkdir -p "$dir"
  cp "$src/package.json" "$src/package-lock.json" "$dir/"
  rm -f "$dir/npm-ci.log"
  if (cd "$dir" && timeout 300 npm ci --prefer-offline --no-audit --no-fund --fetch-retries=1) \
      >"$dir/npm-ci.out" 2>&1; then
    rm -f "$dir/npm-ci.out"
    return 0
  fi
  mv "$dir/npm-ci.out" "$dir/npm-ci.log"
  log "npm ci of the OpenAI SDK failed (no registry and nothing in npm's cache?); see $dir/npm-ci.log: the OpenAiSdkE2E tests will fail"
  return 1
}
