#!/usr/bin/env bash
# The kernelevo action's logic (action.yml only maps inputs to KEV_* variables), kept in a
# script so it runs, and is tested, outside GitHub. It locates or builds kernelevo, runs the
# mode, appends the Markdown report to $GITHUB_STEP_SUMMARY, prints annotations, writes the
# outputs to $GITHUB_OUTPUT and, in tune mode, opens or updates a pull request through the
# REST API ($KERNELEVO_GITHUB_API, default $GITHUB_API_URL or https://api.github.com) from
# one branch per architecture, pushed to $GITHUB_SERVER_URL/$GITHUB_REPOSITORY.git.
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
server=${GITHUB_SERVER_URL:-https://github.com}
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
    name) [[ $value =~ ^[A-Za-z0-9._/-]+$ ]] && valid=true ;;
    operation) [[ $value =~ ^(created|updated|closed|none)$ ]] && valid=true ;;
  esac
  if [[ $valid != true || $value == *"$delimiter"* ]]; then
    annotate error "kernelevo $mode" "output $name: not a valid $kind: $(printf '%q' "$value")"
    exit 1
  fi
  printf '%s<<%s\n%s\n%s\n' "$name" "$delimiter" "$value" "$delimiter" >>"$outputs"
}
# A failure before anything ran: the annotation, the same words in the job summary, exit 2.
fail_early() {
  annotate error "kernelevo $mode" "$1"
  printf '## kernelevo %s: not started\n\n%s\n' "$mode" "${1//\`/\'}" >>"$summary"
  exit 2
}

case $mode in check | compare | tune | pull-request) ;; *) annotate error kernelevo "unknown mode '$mode' (check, compare or tune)"; exit 2 ;; esac
want_pr=false
[[ $mode == tune ]] && is_true "${KEV_OPEN_PULL_REQUEST:-true}" && want_pr=true
# pull-request: the second half of a tune whose pull request waited for the artifact upload
# (KEV_DEFER_PULL_REQUEST), so that its body links to the uploaded artifact.
[[ $mode == pull-request ]] && want_pr=true

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

# --- the token, checked before anything is built or measured ----------------------------------
# Files only this user can read, in a directory removed on exit: git includes one as
# configuration, curl reads the other as its own.
secrets=""
trap '[[ -n $secrets ]] && rm -rf "$secrets"' EXIT
# api METHOD PATH [JSON_FILE]: prints the HTTP status (000 when GitHub was not reached); the
# answer is in $secrets/answer.json.
api() {
  local args=(-sS -K "$secrets/curl-config" -X "$1" -o "$secrets/answer.json" -w '%{http_code}'
    -H "Accept: application/vnd.github+json" -H "X-GitHub-Api-Version: 2022-11-28")
  [[ -n ${3:-} ]] && args+=(--data-binary @"$3")
  curl "${args[@]}" "$api$2" || true
}
answer() { python3 "$action_dir/github_answer.py" "$secrets/answer.json" "$@"; }
if [[ $want_pr == true ]]; then
  [[ -n $token ]] || fail_early "open-pull-request is true but the token input is empty: pass a GitHub App token or a fine-grained PAT (contents: write, pull-requests: write), or set open-pull-request: false"
  # It goes into a header and curl's configuration: only the characters of GitHub's tokens.
  [[ $token =~ ^[A-Za-z0-9_.~+/=-]+$ ]] || fail_early "the token holds characters that no GitHub token has"
  repo=${GITHUB_REPOSITORY:-}
  [[ $repo =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]] || fail_early "GITHUB_REPOSITORY is not owner/name: '$repo'"
  secrets=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/kernelevo-token.XXXXXX")
  (
    umask 077
    auth=$(printf 'x-access-token:%s' "$token" | base64 | tr -d '\n')
    printf '[http]\n\textraheader = AUTHORIZATION: basic %s\n' "$auth" >"$secrets/git-config"
    printf 'header = "Authorization: Bearer %s"\n' "$token" >"$secrets/curl-config"
  )
  status=$(api GET "/repos/$repo")
  case $status in
    200)
      [[ $(answer permissions.push) != false ]] ||
        fail_early "the token cannot push to $repo (its permissions.push is false): it needs contents: write and pull-requests: write"
      ;;
    401) fail_early "GitHub refused the token (HTTP 401, bad or expired credentials); checked before tuning, nothing was measured" ;;
    403 | 404) fail_early "the token cannot read $repo (HTTP $status): it needs access to this repository with contents: write and pull-requests: write" ;;
    *) fail_early "checking the token at $api/repos/$repo failed (HTTP $status)" ;;
  esac
  log "token accepted for $repo"
fi

# --- the pull request (tune mode, or the pull-request mode after the artifact's upload) -------
# Where the pull request body sends reviewers for the HTML report: the artifact an earlier
# step uploaded (upload-artifact's artifact-url), else this run's page, which lists the
# artifact this step uploads.
open_pull_request() {
  report_link=""
  if [[ -n ${KEV_ARTIFACT_URL:-} ]]; then
    if [[ $KEV_ARTIFACT_URL =~ ^https://[^[:space:][:cntrl:]]+$ ]]; then
      report_link=$KEV_ARTIFACT_URL
    else
      annotate warning "kernelevo tune" "artifact-url is not an https URL; the pull request links to the run instead"
    fi
  fi
  if [[ -z $report_link && ${GITHUB_RUN_ID:-} =~ ^[0-9]+$ && -n ${GITHUB_REPOSITORY:-} ]]; then
    report_link=$server/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID
  fi
  operation=none number="" url=""
  if [[ $want_pr == true ]]; then
    source "$action_dir/pull_request.sh"
    pull_request_flow
  fi
  output pull-request-operation "$operation" operation
  [[ -n $number ]] && output pull-request-number "$number" count
  [[ -n $url ]] && output pull-request-url "$url" url
  case $operation in
    created | updated) printf '\nPull request (%s): %s\n' "$operation" "$url" >>"$summary" ;;
    closed) printf '\nPull request closed (its change is in the base already): %s\n' "$url" >>"$summary" ;;
    none) printf '\nNo pull request: the tuned lockfile and the reports are the artifact %s.\n' "$artifact_name" >>"$summary" ;;
  esac
}
# What the pull-request mode needs of the tune before it, in the reports folder both share.
pr_state=$out_dir/pull-request.state
lockpath_of() { realpath -m --relative-to="$(git rev-parse --show-toplevel)" "$1"; }
if [[ $mode == pull-request ]]; then
  [[ -f $pr_state ]] || fail_early "no tune waits for its pull request ($pr_state is missing): run the action in tune mode first"
  improvements="" archs="" artifact_name=""
  while IFS='=' read -r key value; do
    case $key in
      improvements) [[ $value =~ ^[0-9]+$ ]] && improvements=$value ;;
      archs) [[ $value =~ ^[A-Za-z0-9._,\ -]*$ ]] && archs=$value ;;
      artifact_name) [[ $value =~ ^[A-Za-z0-9._-]+$ ]] && artifact_name=$value ;;
    esac
  done <"$pr_state"
  [[ -n $improvements && -n $artifact_name ]] || fail_early "$pr_state does not hold a tune's state"
  rm -f "$pr_state"
  [[ -f $lockfile ]] || fail_early "no tuned lockfile at $lockfile"
  lockpath=$(lockpath_of "$lockfile")
  open_pull_request
  exit 0
fi

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

# --- the project's configure and its compile settings ------------------------------------------
# Configured with cmake-args; a project using kernelevo_optimize then writes each marked
# source's compile settings (kernelevo-params, a build step), gathered into one folder for
# --compile-settings of tune, check and compare, so they compile what the build compiles.
settings=""
if [[ ${#replay[@]} -eq 0 && -f CMakeLists.txt ]]; then
  read -r -a cmake_args <<<"${KEV_CMAKE_ARGS:-}"
  cmake -S . -B "$build_dir" -DKERNELEVO_EXECUTABLE="$kev" "${cmake_args[@]}" >&2
  if [[ -d $build_dir/kernelevo/compile_settings ]]; then
    cmake --build "$build_dir" --target kernelevo-params >&2
    settings=$out_dir/compile-settings
    rm -rf "$settings" && mkdir -p "$settings"
    # <target>/[<config>/]<source>.json, one folder: named <target>.[<config>.]<source>.json.
    (cd "$build_dir/kernelevo/compile_settings" && find . -name '*.json' -type f) | sort |
      while read -r f; do
        name=${f#./}
        cp "$build_dir/kernelevo/compile_settings/$f" "$settings/${name//\//.}"
      done
    log "compile settings of $(find "$settings" -name '*.json' | wc -l) source(s) from $build_dir"
  fi
fi

# --- run the mode --------------------------------------------------------------------------
# kernelevo's messages go to the log and to a file: an environment failure (exit 3, no GPU
# or driver) is named in the summary and the annotation in its own words.
errlog=$out_dir/kernelevo-messages.log
run_kernelevo() {
  local to=$1
  shift
  local status=0
  { "$kev" "$@" 2>&1 >&3 3>&- | tee "$errlog" >&2; } 3>"$to" || status=$?
  return "$status"
}
rc=0
case $mode in
  check)
    args=(check "${paths[@]}" --lockfile "$lockfile" --threshold "$threshold" --rounds "$rounds"
      --report-json "$report_json" --report-md "$report_md")
    [[ -n $settings ]] && args+=(--compile-settings "$settings")
    [[ -n ${KEV_TIMEOUT:-} ]] && args+=(--timeout "$KEV_TIMEOUT")
    for t in "${replay[@]}"; do args+=(--replay "$t"); done
    run_kernelevo /dev/null "${args[@]}" || rc=$?
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
    [[ -n $settings ]] && args+=(--compile-settings "$settings")
    [[ -n ${KEV_TIMEOUT:-} ]] && args+=(--timeout "$KEV_TIMEOUT")
    for t in "${replay[@]}"; do args+=(--replay-head "$t"); done
    for t in "${replay_base[@]}"; do args+=(--replay-base "$t"); done
    run_kernelevo /dev/null "${args[@]}" || rc=$?
    ;;
  tune)
    # tune writes the lockfile's reports into $out_dir itself (--report).
    args=(tune "${paths[@]}" --lockfile "$lockfile" --report "$out_dir")
    [[ -n ${KEV_BUDGET:-} ]] && args+=(--budget "$KEV_BUDGET")
    [[ -n ${KEV_SHARD:-} ]] && args+=(--shard "$KEV_SHARD")
    [[ -n ${KEV_GPUS:-} ]] && args+=(--gpus "$KEV_GPUS")
    [[ -n ${KEV_L2:-} ]] && args+=(--l2 "$KEV_L2")
    [[ -n ${KEV_COMPILER:-} ]] && args+=(--compiler "$KEV_COMPILER")
    [[ -n ${KEV_TIMEOUT:-} ]] && args+=(--timeout "$KEV_TIMEOUT")
    [[ -n $settings ]] && args+=(--compile-settings "$settings")
    if [[ ${KEV_BUDGET:-} == 0 ]]; then
      log "budget 0: no tuning; reporting the lockfile as it is (e.g. after kernelevo merge)"
      # Old -> new against the lockfile of the commit the run started from.
      start_args=()
      if start_path=$(realpath -m --relative-to="$(git rev-parse --show-toplevel 2>/dev/null)" "$lockfile" 2>/dev/null) &&
        git show "HEAD:$start_path" >"$out_dir/start.lock.json" 2>/dev/null; then
        start_args=(--base-lockfile "$out_dir/start.lock.json")
      fi
      [[ -f $lockfile ]] && "$kev" report "$lockfile" "${start_args[@]}" --format json -o "$report_json"
    else
      run_kernelevo /dev/stderr "${args[@]}" || rc=$?
      # A kernel without a winner (exit 1) still gets reports from tune; the step fails as
      # it always did, and no pull request is opened for a partial tune.
      if [[ $rc -ne 0 && $rc -ne 3 ]]; then
        annotate error "kernelevo tune" "kernelevo tune failed (exit $rc); reports, if any, are in $out_dir"
        exit "$rc"
      fi
    fi
    ;;
esac

# --- no GPU or driver: named, an output, and a failure only where a GPU is required -------------
if [[ $rc -eq 3 ]]; then
  reason=$(grep -v '^[[:space:]]*$' "$errlog" 2>/dev/null | tail -n 3 | tr '\n' ' ')
  reason=${reason:-kernelevo exited 3 (environment) without a message}
  output gpu-missing true bool
  output regressions 0 count
  output improvements 0 count
  if is_true "${KEV_REQUIRE_GPU:-true}"; then
    printf '## kernelevo %s failed: no usable GPU or driver on this runner\n\n%s\n' "$mode" "${reason//\`/\'}" >>"$summary"
    annotate error "kernelevo $mode: no GPU" "no usable GPU or driver on this runner (require-gpu is true): $reason"
    exit 1
  fi
  printf '## kernelevo %s skipped: no GPU or driver on this runner\n\n%s\n' "$mode" "${reason//\`/\'}" >>"$summary"
  annotate warning kernelevo "$mode skipped: no usable GPU or driver on this runner: $reason"
  exit 0
fi
output gpu-missing false bool
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
if [[ $mode == tune ]]; then
  # What this run changed against the lockfile of the commit it started from (a tune report
  # calls every tuned entry FASTER than the source's defaults).
  lockpath=$(lockpath_of "$lockfile")
  base_lock=$out_dir/base.lock.json
  git show "HEAD:$lockpath" >"$base_lock" 2>/dev/null || : >"$base_lock"
  new_lock=$lockfile
  [[ -f $new_lock ]] || new_lock=/dev/null
  read -r improvements archs < <(python3 "$action_dir/lock_changes.py" "$base_lock" "$new_lock")
  [[ $archs == none ]] && archs=""
fi
output regressions "$regressions" count
output improvements "$improvements" count
output report-markdown "$report_md" path
output report-json "$report_json" path
output report-html "$report_html" path

if [[ $mode == tune ]]; then
  changed=false
  cmp -s "$base_lock" "$new_lock" || changed=true
  output lockfile-changed "$changed" bool
  # The tuned lockfile and the reports, together, for actions/upload-artifact.
  artifact=$out_dir/artifact
  rm -rf "$artifact" && mkdir -p "$artifact"
  [[ -f $lockfile ]] && cp "$lockfile" "$artifact/$(basename "$lockfile")"
  cp "$report_md" "$report_json" "$report_html" "$artifact/"
  artifact_name=${KEV_ARTIFACT_NAME:-kernelevo-tune${archs:+-$archs}${KEV_SHARD:+-shard-${KEV_SHARD//\//-of-}}}
  artifact_name=${artifact_name//[^A-Za-z0-9._-]/_}
  output artifact-directory "$artifact" path
  output artifact-name "$artifact_name" name

  if [[ $want_pr == true ]] && is_true "${KEV_DEFER_PULL_REQUEST:-false}"; then
    # The pull request waits for the artifact's upload (the action's next steps).
    rm -f "$pr_state"
    printf 'improvements=%s\narchs=%s\nartifact_name=%s\n' "$improvements" "$archs" "$artifact_name" >"$pr_state"
    output pull-request-deferred true bool
  else
    open_pull_request
  fi
fi

if [[ $rc -ne 0 && $rc -ne 1 ]]; then exit "$rc"; fi
if [[ $regressions -gt 0 ]] && is_true "${KEV_FAIL_ON_REGRESSION:-true}"; then
  log "$regressions kernel(s) regressed"
  exit 1
fi
exit 0
