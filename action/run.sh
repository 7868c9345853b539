#!/usr/bin/env bash
# The kernelevo action's logic (action.yml only maps inputs to KEV_* variables), kept in a
# script so it runs, and is tested, outside GitHub. It locates or builds kernelevo, runs the
# mode, appends the Markdown report to $GITHUB_STEP_SUMMARY, prints annotations, writes the
# outputs to $GITHUB_OUTPUT and, in tune mode, opens a pull request through the REST API
# ($KERNELEVO_GITHUB_API, default https://api.github.com).
set -euo pipefail

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
output() { echo "$1=$2" >>"$outputs"; }
is_true() { [[ ${1,,} == true || $1 == 1 || ${1,,} == yes ]]; }

case $mode in check | compare | tune) ;; *) echo "::error title=kernelevo::unknown mode '$mode' (check, compare or tune)"; exit 2 ;; esac

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
      echo "::error title=kernelevo compare::no base revision: set base-ref, or run on pull_request events"
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
        echo "::error title=kernelevo tune::kernelevo tune failed (exit $rc); reports, if any, are in $out_dir"
        exit "$rc"
      fi
    fi
    ;;
esac

if [[ $rc -eq 3 ]]; then
  echo "## kernelevo $mode skipped: no GPU on this runner" >>"$summary"
  echo "::warning title=kernelevo::$mode skipped: no usable GPU on this runner"
  output regressions 0
  output improvements 0
  exit 0
fi
if [[ ! -f $report_json ]]; then
  echo "::error title=kernelevo $mode::kernelevo $mode failed (exit $rc) before writing a report"
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
output regressions "$regressions"
output improvements "$improvements"
output report-markdown "$report_md"
output report-json "$report_json"
output report-html "$report_html"

if [[ $mode == tune ]]; then
  changed=false
  git diff --quiet -- "$lockfile" 2>/dev/null || changed=true
  [[ -z $(git status --porcelain -- "$lockfile" 2>/dev/null) ]] || changed=true
  output lockfile-changed "$changed"
  if [[ $changed == true ]] && is_true "${KEV_OPEN_PULL_REQUEST:-true}"; then
    [[ -n ${KEV_TOKEN:-} ]] || { echo "::error title=kernelevo tune::open-pull-request needs a token"; exit 2; }
    repo=${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is not set}
    base_branch=${GITHUB_REF_NAME:-main}
    branch="kernelevo/tune-${GITHUB_RUN_ID:-$(date +%s)}"
    git checkout -q -b "$branch"
    git add -- "$lockfile"
    git -c user.name="kernelevo" -c user.email="kernelevo@users.noreply.github.com" \
      commit -q -m "kernelevo: update tuned winners" -m "$(head -1 "$report_md" | sed 's/^## //')"
    auth=$(printf 'x-access-token:%s' "$KEV_TOKEN" | base64 | tr -d '\n')
    git -c "http.extraheader=AUTHORIZATION: basic $auth" push -q origin "HEAD:refs/heads/$branch" >&2
    body=$(python3 -c '
import json, sys
print(json.dumps({"title": "kernelevo: update tuned winners", "head": sys.argv[1], "base": sys.argv[2],
                  "body": open(sys.argv[3]).read(), "maintainer_can_modify": True}))' "$branch" "$base_branch" "$report_md")
    response=$(curl -sS --fail-with-body -X POST "$api/repos/$repo/pulls" \
      -H "Authorization: Bearer $KEV_TOKEN" -H "Accept: application/vnd.github+json" \
      -H "X-GitHub-Api-Version: 2022-11-28" --data "$body") || {
      echo "::error title=kernelevo tune::opening the pull request failed: $response"
      exit 1
    }
    url=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["html_url"])' "$response")
    output pull-request-url "$url"
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
