#!/usr/bin/env bash
# The kernelevo action's logic (action.yml only maps inputs to KEV_* variables), kept in a
# script so it runs, and is tested, outside GitHub. It locates or builds kernelevo, runs the
# mode, appends the Markdown report to $GITHUB_STEP_SUMMARY, prints annotations, writes the
# outputs to $GITHUB_OUTPUT and, in tune mode, opens a pull request through the REST API
# ($KERNELEVO_GITHUB_API, default https://api.github.com).
set -euo pipefail

# The token reaches git and curl only, through private files: never a command line (readable
# by every user of a shared runner in /proc) nor the environment of what the action starts
# (the project's configure, kernelevo's build, kernelevo and its workers).
token=${KEV_TOKEN:-}
unset KEV_TOKEN

mode=${KEV_MODE:-check}
workdir=${KEV_WORKING_DIRECTORY:-.}
read -r -a paths <<<"${KEV_PATHS:-.}"
build_dir=${KEV_BUILD_DIRECTORY:-build-kernelevo}
lockfile=${KEV_LOCKFILE:-kernelevo.lock.json}
threshold=${KEV_THRESHOLD:-0.05}
rounds=${KEV_ROUNDS:-10}
read -r -a replay <<<"${KEV_REPLAY:-}"
read -r -a replay_base <<<"${KEV_REPLAY_BASE:-}"
action_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
api=${KERNELEVO_GITHUB_API:-${GITHUB_API_URL:-https://api.github.com}}
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
outputs=${GITHUB_OUTPUT:-/dev/null}

log() { echo "kernelevo-action: $*" >&2; }
is_true() { [[ ${1,,} == true || $1 == 1 || ${1,,} == yes ]]; }
# A workflow command (error, warning) whose values cannot end it or start another, escaped as
# the runner unescapes them.
annotate() {
  local title=${2//%/%25} message=${3//%/%25}
  title=${title//$'\r'/%0D} message=${message//$'\r'/%0D}
  title=${title//$'\n'/%0A} message=${message//$'\n'/%0A}
  title=${title//:/%3A}
  echo "::$1 title=${title//,/%2C}::$message"
}
# An output, checked against what it may hold (a count, true/false, a path, an https URL) and
# written in the runner's NAME<<DELIMITER form with a random delimiter: nothing in a value
# (an API's answer, a report) can add or change another output.
output() {
  local name=$1 value=$2 kind=$3 valid=false delimiter
  delimiter="kernelevo-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  case $kind in
    count) [[ $value =~ ^[0-9]+$ ]] && valid=true ;;
    bool) [[ $value == true || $value == false ]] && valid=true ;;
    path) [[ -n $value && $value != *[[:cntrl:]]* ]] && valid=true ;;
    url) [[ $value =~ ^https://[^[:space:][:cntrl:]]+$ ]] && valid=true ;;
  esac
  if [[ $valid != true || $value == *"$delimiter"* ]]; then
    annotate error "kernelevo $mode" "output $name: not a valid $kind: $(printf '%q' "$value")"
    exit 1
  fi
  printf '%s<<%s\n%s\n%s\n' "$name" "$delimiter" "$value" "$delimiter" >>"$outputs"
}

case $mode in check | compare | tune) ;; *) annotate error kernelevo "unknown mode '$mode' (check, compare or tune)"; exit 2 ;; esac

cd "$workdir"
project_dir=$(pwd)
# Source paths in annotations are relative to the repository root.
prefix=""
if git rev-parse --show-toplevel >/dev/null 2>&1; then
  prefix=$(git rev-parse --show-prefix)
  prefix=${prefix%/}
fi
out_dir=${KEV_OUTPUT_DIRECTORY:-${RUNNER_TEMP:-$project_dir/$build_dir}/kernelevo-reports}
mkdir -p "$out_dir"
report_json=$out_dir/report.json
report_md=$out_dir/report.md
report_html=$out_dir/report.html

# --- kernelevo ---------------------------------------------------------------------------
kev=${KEV_KERNELEVO:-}
if [[ -z $kev ]] && command -v kernelevo >/dev/null 2>&1; then kev=$(command -v kernelevo); fi
if [[ -z $kev ]]; then
  log "building kernelevo from $action_dir/.."
  cmake -S "$action_dir/.." -B "$project_dir/$build_dir/kernelevo-tool" -DCMAKE_BUILD_TYPE=Release \
    -DKERNELEVO_BUILD_TESTS=OFF -DKERNELEVO_BUILD_BENCH=OFF >&2
  cmake --build "$project_dir/$build_dir/kernelevo-tool" --target kernelevo --parallel >&2
  kev=$project_dir/$build_dir/kernelevo-tool/tool/kernelevo
fi
log "using $kev ($("$kev" --version))"

# The project's own configure writes each marked source's compile settings for the tuner.
if [[ ${#replay[@]} -eq 0 && -f CMakeLists.txt ]]; then
  read -r -a cmake_args <<<"${KEV_CMAKE_ARGS:-}"
  cmake -S . -B "$build_dir" "${cmake_args[@]}" >&2
fi

gpu_args=()
is_true "${KEV_REQUIRE_GPU:-true}" && gpu_args+=(--require-gpu)

# --- run the mode --------------------------------------------------------------------------
rc=0
case $mode in
  check)
    args=(check "${paths[@]}" --lockfile "$lockfile" --threshold "$threshold" --rounds "$rounds"
      --report-json "$report_json" --report-md "$report_md")
    for t in "${replay[@]}"; do args+=(--replay "$t"); done
    [[ ${#replay[@]} -eq 0 ]] && args+=("${gpu_args[@]}")
    "$kev" "${args[@]}" >/dev/null || rc=$?
    ;;
  compare)
    base=${KEV_BASE_REF:-}
    if [[ -z $base && -n ${GITHUB_EVENT_PATH:-} && -f ${GITHUB_EVENT_PATH:-} ]]; then
      base=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1])); print((e.get("pull_request") or {}).get("base",{}).get("sha",""))' "$GITHUB_EVENT_PATH")
    fi
    if [[ -z $base ]]; then
      annotate error "kernelevo compare" "no base revision: set base-ref, or run on pull_request events"
      exit 2
    fi
    args=(compare --base "$base" "${paths[@]}" --lockfile "$lockfile" --min-change "$threshold" --rounds "$rounds"
      --report-json "$report_json" --report-md "$report_md")
    for t in "${replay[@]}"; do args+=(--replay-head "$t"); done
    for t in "${replay_base[@]}"; do args+=(--replay-base "$t"); done
    [[ ${#replay[@]} -eq 0 ]] && args+=("${gpu_args[@]}")
    "$kev" "${args[@]}" >/dev/null || rc=$?
    ;;
  tune)
    # tune writes the lockfile's reports into $out_dir itself (--report).
    args=(tune "${paths[@]}" --lockfile "$lockfile" --report "$out_dir")
    [[ -n ${KEV_BUDGET:-} ]] && args+=(--budget "$KEV_BUDGET")
    [[ -n ${KEV_SHARD:-} ]] && args+=(--shard "$KEV_SHARD")
    [[ -n ${KEV_GPUS:-} ]] && args+=(--gpus "$KEV_GPUS")
    if [[ ${KEV_BUDGET:-} == 0 ]]; then
      log "budget 0: no tuning; reporting the lockfile as it is (e.g. after kernelevo merge)"
      [[ -f $lockfile ]] && "$kev" report "$lockfile" --format json -o "$report_json"
    else
      "$kev" "${args[@]}" >&2 || rc=$?
      # A kernel without a winner (exit 1) still gets reports from tune; the step fails as
      # it always did, and no pull request is opened for a partial tune.
      if [[ $rc -ne 0 && $rc -ne 3 ]]; then
        annotate error "kernelevo tune" "kernelevo tune failed (exit $rc); reports, if any, are in $out_dir"
        exit "$rc"
      fi
    fi
    ;;
esac

if [[ $rc -eq 3 ]]; then
  echo "## kernelevo $mode skipped: no GPU on this runner" >>"$summary"
  annotate warning kernelevo "$mode skipped: no usable GPU on this runner"
  output regressions 0 count
  output improvements 0 count
  exit 0
fi
if [[ ! -f $report_json ]]; then
  annotate error "kernelevo $mode" "kernelevo $mode failed (exit $rc) before writing a report"
  exit "$(( rc == 0 ? 1 : rc ))"
fi

# --- reports, summary, annotations, outputs ------------------------------------------------
"$kev" report "$report_json" --format markdown -o "$report_md"
"$kev" report "$report_json" --format html -o "$report_html"
cat "$report_md" >>"$summary"
"$kev" report "$report_json" --format annotations ${prefix:+--path-prefix "$prefix"}
counts=$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["summary"]["counts"]
print(c.get("SLOWER", 0) + c.get("FAILED", 0), c.get("FASTER", 0))' "$report_json")
read -r regressions improvements <<<"$counts"
output regressions "$regressions" count
output improvements "$improvements" count
output report-markdown "$report_md" path
output report-json "$report_json" path
output report-html "$report_html" path

if [[ $mode == tune ]]; then
  changed=false
  git diff --quiet -- "$lockfile" 2>/dev/null || changed=true
  [[ -z $(git status --porcelain -- "$lockfile" 2>/dev/null) ]] || changed=true
  output lockfile-changed "$changed" bool
  if [[ $changed == true ]] && is_true "${KEV_OPEN_PULL_REQUEST:-true}"; then
    [[ -n $token ]] || { annotate error "kernelevo tune" "open-pull-request needs a token"; exit 2; }
    # It goes into a header and curl's configuration: only the characters of GitHub's tokens.
    [[ $token =~ ^[A-Za-z0-9_.~+/=-]+$ ]] || {
      annotate error "kernelevo tune" "the token holds characters that no GitHub token has"
      exit 2
    }
    repo=${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is not set}
    base_branch=${GITHUB_REF_NAME:-main}
    branch="kernelevo/tune-${GITHUB_RUN_ID:-$(date +%s)}"
    git checkout -q -b "$branch"
    git add -- "$lockfile"
    git -c user.name="kernelevo" -c user.email="kernelevo@users.noreply.github.com" \
      commit -q -m "kernelevo: update tuned winners" -m "$(head -1 "$report_md" | sed 's/^## //')"
    # Files only this user can read, in a directory removed on exit: git includes one as
    # configuration, curl reads the other as its own.
    secrets=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/kernelevo-token.XXXXXX")
    trap 'rm -rf "$secrets"' EXIT
    (
      umask 077
      auth=$(printf 'x-access-token:%s' "$token" | base64 | tr -d '\n')
      printf '[http]\n\textraheader = AUTHORIZATION: basic %s\n' "$auth" >"$secrets/git-config"
      printf 'header = "Authorization: Bearer %s"\n' "$token" >"$secrets/curl-config"
    )
    git -c include.path="$secrets/git-config" push -q origin "HEAD:refs/heads/$branch" >&2
    python3 -c '
import json, sys
json.dump({"title": "kernelevo: update tuned winners", "head": sys.argv[1], "base": sys.argv[2],
           "body": open(sys.argv[3]).read(), "maintainer_can_modify": True}, open(sys.argv[4], "w"))' \
      "$branch" "$base_branch" "$report_md" "$secrets/body.json"
    response=$(curl -sS --fail-with-body -K "$secrets/curl-config" -X POST "$api/repos/$repo/pulls" \
      -H "Accept: application/vnd.github+json" -H "X-GitHub-Api-Version: 2022-11-28" \
      --data-binary @"$secrets/body.json") || {
      annotate error "kernelevo tune" "opening the pull request failed: ${response:0:2000}"
      exit 1
    }
    url=$(printf '%s' "$response" | python3 -c 'import json,sys; print(json.load(sys.stdin)["html_url"])' 2>/dev/null) || url=""
    [[ $url =~ ^https://[^[:space:][:cntrl:]]+$ ]] || {
      annotate error "kernelevo tune" "the API's answer has no https html_url: ${response:0:2000}"
      exit 1
    }
    output pull-request-url "$url" url
    echo "" >>"$summary"
    echo "Pull request: $url" >>"$summary"
  fi
fi

if [[ $rc -ne 0 && $rc -ne 1 ]]; then exit "$rc"; fi
if [[ $regressions -gt 0 ]] && is_true "${KEV_FAIL_ON_REGRESSION:-true}"; then
  log "$regressions kernel(s) regressed"
  exit 1
fi
exit 0
