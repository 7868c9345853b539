#!/usr/bin/env bash
# docs/gate.md's fork-safety rules (tests/action/fork_safety.py) hold for the action and every
# example workflow, and the checker finds each rule broken in a workflow made to break it.
# Skips (77) without PyYAML (`python3 -m pip install pyyaml`).
set -uo pipefail
src=$(realpath "${1:?usage: fork_safety_test.sh SOURCE_DIR}")
check=$src/tests/action/fork_safety.py
if ! python3 -c 'import yaml' 2>/dev/null; then
  echo "PyYAML not installed (python3 -m pip install pyyaml): skipped"
  exit 77
fi
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok: $1"; }
bad() { failed=$((failed + 1)); echo "FAIL: $1"; }

if out=$(python3 "$check" "$src/action/action.yml" "$src"/action/examples/*.yml); then
  ok "the action and the example workflows follow the rules"
else
  bad "the action and the example workflows follow the rules"
  echo "$out"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# broken RULE FILE: the checker must fail on FILE, naming RULE.
broken() {
  local out
  if out=$(python3 "$check" "$2"); then
    bad "$1 is found ($2 passed)"
  elif grep -q ": $1: " <<<"$out"; then
    ok "$1 is found"
  else
    bad "$1 is found (got: $out)"
  fi
}
cat >"$tmp/head-checkout.yml" <<'YAML'
on: pull_request_target
permissions: {}
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@11d5960a326750d5838078e36cf38b85af677262
        with:
          ref: ${{ github.event.pull_request.head.sha }}
          persist-credentials: false
      - run: make
YAML
broken head-checkout "$tmp/head-checkout.yml"
cat >"$tmp/untrusted-secrets.yml" <<'YAML'
on: [pull_request]
permissions: {}
jobs:
  gate:
    runs-on: [self-hosted, gpu]
    steps:
      - run: ./gate
        env:
          KEY: ${{ secrets.DEPLOY_KEY }}
YAML
broken untrusted-secrets "$tmp/untrusted-secrets.yml"
cat >"$tmp/untrusted-write.yml" <<'YAML'
on:
  pull_request:
permissions: {}
jobs:
  gate:
    runs-on: ubuntu-latest
    permissions:
      contents: write
    steps:
      - run: ./gate
YAML
broken untrusted-write "$tmp/untrusted-write.yml"
cat >"$tmp/no-permissions.yml" <<'YAML'
on: workflow_dispatch
jobs:
  tune:
    runs-on: ubuntu-latest
    steps:
      - run: ./tune
YAML
broken no-permissions "$tmp/no-permissions.yml"
cat >"$tmp/interpolated.yml" <<'YAML'
on: workflow_dispatch
permissions: {}
jobs:
  tune:
    runs-on: ubuntu-latest
    steps:
      - run: echo "${{ github.event.inputs.budget }}"
YAML
broken interpolated "$tmp/interpolated.yml"
cat >"$tmp/persisted-token.yml" <<'YAML'
on: workflow_dispatch
permissions: {}
jobs:
  tune:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@11d5960a326750d5838078e36cf38b85af677262
YAML
broken persisted-token "$tmp/persisted-token.yml"
mkdir -p "$tmp/a" "$tmp/b"
cat >"$tmp/a/action.yml" <<'YAML'
name: x
inputs:
  mode:
    default: check
runs:
  using: composite
  steps:
    - shell: bash
      run: ./run.sh "${{ inputs.mode }}"
YAML
broken interpolated "$tmp/a/action.yml"
broken input-not-env "$tmp/a/action.yml"
# An input named like the prefix of another (token, token-file) is not reached by the other.
cat >"$tmp/b/action.yml" <<'YAML'
name: x
inputs:
  token:
    default: ""
  token-file:
    default: ""
runs:
  using: composite
  steps:
    - shell: bash
      run: ./run.sh
      env:
        KEV_TOKEN_FILE: ${{ inputs.token-file }}
YAML
broken input-not-env "$tmp/b/action.yml"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
