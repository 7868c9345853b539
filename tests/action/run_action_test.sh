#!/usr/bin/env bash
# Runs the action's steps (action/run.sh) in a simulated GitHub environment: GITHUB_OUTPUT,
# GITHUB_STEP_SUMMARY, GITHUB_EVENT_PATH, a git repository with a remote, and a fake REST API
# on loopback for the pull request. Measurements are replayed from tests/fixtures/gate. In tune
# mode, git, curl and cmake are spied on: the token must reach no command line and no
# environment of the commands the action starts.
set -uo pipefail
kev=$(realpath "${1:?usage: run_action_test.sh KERNELEVO_BINARY SOURCE_DIR}")
src=$(realpath "${2:?usage: run_action_test.sh KERNELEVO_BINARY SOURCE_DIR}")
gate=$src/tests/fixtures/gate
run_sh=$src/action/run.sh

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok: $1"; }
bad() { failed=$((failed + 1)); echo "FAIL: $1"; }
expect() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
# Outputs as the runner reads them (NAME=VALUE lines and NAME<<DELIMITER blocks).
output_of() { python3 "$src/tests/action/github_output.py" "$GITHUB_OUTPUT" "$1"; }
output_names() { python3 "$src/tests/action/github_output.py" "$GITHUB_OUTPUT" --names | sort | tr '\n' ' '; }

tmp=$(mktemp -d)
api_pid=""
cleanup() {
  [[ -n $api_pid ]] && kill "$api_pid" 2>/dev/null
  if [[ -n ${KEEP_TMP:-} ]]; then echo "kept $tmp"; else rm -rf "$tmp"; fi  # KEEP_TMP=1: to debug
}
trap cleanup EXIT

# A repository with the project in proj/, and a bare remote.
git init -q --bare "$tmp/origin.git"
git init -q -b main "$tmp/repo"
mkdir -p "$tmp/repo/proj"
cp "$gate/kernelevo.lock.json" "$tmp/repo/proj/"
git -C "$tmp/repo" add . && git -C "$tmp/repo" -c user.email=t@t -c user.name=t commit -qm base
git -C "$tmp/repo" remote add origin "$tmp/origin.git"
git -C "$tmp/repo" push -q origin HEAD:refs/heads/main
base_sha=$(git -C "$tmp/repo" rev-parse HEAD)

# The simulated runner's environment, fresh for each step.
new_step() {
  export GITHUB_OUTPUT=$tmp/output-$1 GITHUB_STEP_SUMMARY=$tmp/summary-$1 RUNNER_TEMP=$tmp/runner-$1
  : >"$GITHUB_OUTPUT"
  : >"$GITHUB_STEP_SUMMARY"
  mkdir -p "$RUNNER_TEMP"
}
export GITHUB_REPOSITORY=octo/kernels GITHUB_RUN_ID=4242 GITHUB_REF_NAME=main
export KEV_KERNELEVO=$kev KEV_WORKING_DIRECTORY=proj KEV_PATHS=. KEV_REQUIRE_GPU=false

# --- check: a regression fails the step, with summary, annotations and outputs -------------
new_step check-slow
(cd "$tmp/repo" && KEV_MODE=check KEV_REPLAY="$gate/slower.jsonl" "$run_sh") >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
expect "check: a regression fails the step (exit 1)" '[[ $rc -eq 1 ]]'
expect "check: regressions=1" '[[ $(output_of regressions) == 1 ]]'
expect "check: improvements=0" '[[ $(output_of improvements) == 0 ]]'
expect "check: report-json exists" '[[ -s $(output_of report-json) ]]'
expect "check: report-html exists" 'grep -q "<svg" "$(output_of report-html)"'
expect "check: summary has the table, with the architecture and the device" \
  'grep -q "| \`softmax_rows\` | sm_90 | NVIDIA H200 | \*\*SLOWER\*\* |" "$GITHUB_STEP_SUMMARY"'
expect "check: annotation at the kernel's file, relative to the repository" \
  'grep -q "^::error file=proj/src/softmax.cu,title=kernelevo%3A softmax_rows SLOWER::" "$tmp/stdout"'

# --- check: fail-on-regression false reports but passes --------------------------------------
new_step check-soft
(cd "$tmp/repo" && KEV_MODE=check KEV_FAIL_ON_REGRESSION=false KEV_REPLAY="$gate/slower.jsonl" "$run_sh") >"$tmp/stdout" 2>&1
rc=$?
expect "check: fail-on-regression=false passes" '[[ $rc -eq 0 ]]'
expect "check: still counts the regression" '[[ $(output_of regressions) == 1 ]]'

# --- check: unchanged passes --------------------------------------------------------------------
new_step check-ok
(cd "$tmp/repo" && KEV_MODE=check KEV_REPLAY="$gate/unchanged.jsonl" "$run_sh") >"$tmp/stdout" 2>&1
rc=$?
expect "check: unchanged passes" '[[ $rc -eq 0 ]]'
expect "check: no annotations when all pass" '! grep -q "^::" "$tmp/stdout"'
expect "check: summary says PASS" 'grep -q "1 PASS" "$GITHUB_STEP_SUMMARY"'

# --- timeout: reaches kernelevo as its own argument, which refuses a bad one ----------------------
new_step check-timeout
(cd "$tmp/repo" && KEV_MODE=check KEV_TIMEOUT=2m KEV_REPLAY="$gate/unchanged.jsonl" "$run_sh") >"$tmp/stdout" 2>&1
rc=$?
expect "check: a timeout input is taken" '[[ $rc -eq 0 ]]'
new_step check-bad-timeout
(cd "$tmp/repo" && KEV_MODE=check KEV_TIMEOUT='0s; touch pwned' KEV_REPLAY="$gate/unchanged.jsonl" "$run_sh") >"$tmp/stdout" 2>&1
rc=$?
expect "check: a bad timeout input fails the step, kernelevo naming it" \
  '[[ $rc -eq 2 ]] && grep -q -- "--timeout: invalid duration unit in .0s; touch pwned." "$tmp/stdout" && [[ ! -e $tmp/repo/proj/pwned ]]'

# --- check without a GPU: skipped, or failed when a GPU is required ----------------------------
new_step check-nogpu
(cd "$tmp/repo" && KEV_MODE=check "$run_sh") >"$tmp/stdout" 2>&1
rc=$?
expect "check: no GPU is a skip" '[[ $rc -eq 0 ]] && grep -q "skipped: no GPU" "$GITHUB_STEP_SUMMARY"'
expect "check: the skip is a warning annotation" 'grep -q "^::warning title=kernelevo::check skipped" "$tmp/stdout"'
new_step check-needgpu
(cd "$tmp/repo" && KEV_MODE=check KEV_REQUIRE_GPU=true "$run_sh") >"$tmp/stdout" 2>&1
rc=$?
expect "check: no GPU with require-gpu fails" '[[ $rc -eq 1 ]]'
expect "check: ... named in the annotation, in kernelevo's words" \
  'grep -q "^::error title=kernelevo check%3A no GPU::no usable GPU or driver on this runner (require-gpu is true): kernelevo: no GPU to measure on" "$tmp/stdout"'
expect "check: ... and in the summary" 'grep -q "^## kernelevo check failed: no usable GPU or driver on this runner" "$GITHUB_STEP_SUMMARY"'
expect "check: ... and the output gpu-missing" '[[ $(output_of gpu-missing) == true ]]'
expect "check: ... not 'failed before writing a report'" '! grep -q "before writing a report" "$tmp/stdout"'

# --- an input holding a newline stays inside the action's annotation ----------------------------
new_step bad-mode
(cd "$tmp/repo" && KEV_MODE=$'x\n::add-mask::y' "$run_sh") >"$tmp/stdout" 2>&1
rc=$?
expect "an unknown mode fails (exit 2)" '[[ $rc -eq 2 ]]'
expect "... with one annotation line, its value escaped" \
  '[[ $(cat "$tmp/stdout") == "::error title=kernelevo::unknown mode '"'"'x%0A::add-mask::y'"'"' (check, compare or tune)" ]]'

# --- compare: the base from the pull_request event payload -------------------------------------
cat >"$tmp/event.json" <<JSON
{"pull_request": {"number": 3, "base": {"ref": "main", "sha": "$base_sha"}, "head": {"ref": "topic"}}}
JSON
new_step compare
(cd "$tmp/repo" && GITHUB_EVENT_PATH=$tmp/event.json KEV_MODE=compare KEV_REPLAY="$gate/faster.jsonl" \
  KEV_REPLAY_BASE="$gate/unchanged.jsonl" "$run_sh") >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
expect "compare: an improvement passes" '[[ $rc -eq 0 ]]'
expect "compare: improvements=1" '[[ $(output_of improvements) == 1 ]]'
expect "compare: summary names the base, its commit short" \
  'grep -q "compare against ${base_sha:0:12} on" "$GITHUB_STEP_SUMMARY" && ! grep -q "$base_sha" "$GITHUB_STEP_SUMMARY"'
expect "compare: the base worktree is gone" '[[ $(git -C "$tmp/repo" worktree list | wc -l) -eq 1 ]]'
new_step compare-slow
(cd "$tmp/repo" && KEV_BASE_REF=main KEV_MODE=compare KEV_REPLAY="$gate/slower.jsonl" \
  KEV_REPLAY_BASE="$gate/unchanged.jsonl" "$run_sh") >"$tmp/stdout" 2>&1
rc=$?
expect "compare: a slowdown fails" '[[ $rc -eq 1 && $(output_of regressions) == 1 ]]'
expect "compare: error annotation" 'grep -q "^::error file=proj/src/softmax.cu" "$tmp/stdout"'

# --- tune: a fake GitHub (REST API and git over HTTP) on loopback --------------------------------
token="kev-test-token-$$-$RANDOM"
echo "$token" >"$tmp/api.token"
mkdir -p "$tmp/git/octo"
git clone -q --bare "$tmp/origin.git" "$tmp/git/octo/kernels.git"
git -C "$tmp/repo" remote set-url origin "$tmp/git/octo/kernels.git"
python3 "$src/tests/action/fake_github_api.py" "$tmp/api.log" "$tmp/api.port" "$tmp/api.token" "$tmp/git" "$tmp/api.answer" &
api_pid=$!
for _ in $(seq 100); do [[ -s $tmp/api.port ]] && break; sleep 0.1; done
port=$(cat "$tmp/api.port")
export KERNELEVO_GITHUB_API="http://127.0.0.1:$port" GITHUB_SERVER_URL="http://127.0.0.1:$port/git"
# What actions/checkout persists (persist-credentials: true, its default): its own token as an
# extraheader for the server. The action's token must be the one that pushes, alone.
checkout_auth=$(printf 'x-access-token:%s' checkout-token | base64 | tr -d '\n')
git -C "$tmp/repo" config "http.http://127.0.0.1:$port/.extraheader" "AUTHORIZATION: basic $checkout_auth"
api_calls() { python3 -c 'import json,sys; [print(r["method"], r["path"].split("?")[0]) for r in map(json.loads, open(sys.argv[1])) if not r["path"].startswith("/git/")]' "$tmp/api.log"; }
git_auth() { python3 -c 'import json,sys; [print(len(r["authorization"]), *r["authorization"]) for r in map(json.loads, open(sys.argv[1])) if r["path"].startswith("/git/")]' "$tmp/api.log"; }
branch_lock() { git --git-dir="$tmp/git/octo/kernels.git" show "$1:proj/kernelevo.lock.json"; }
reset_workspace() { git -C "$tmp/repo" checkout -q -- proj/kernelevo.lock.json; }

# kernelevo whose `tune` (which needs a GPU) locks a new winner (SOFTMAX_BLOCK=$STUB_BLOCK)
# and writes the lockfile's report into --report DIR, as the real one does; everything else
# is the real one (check and compare record their arguments first).
cat >"$tmp/kernelevo-stub" <<STUB
#!/usr/bin/env bash
{ echo "== kernelevo \$1"; env | sed 's/^/env: /'; } >>"$tmp/spy.log"
[[ \$1 == check || \$1 == compare ]] && echo "\$*" >"$tmp/\$1-args"
if [[ \$1 == tune ]]; then
  echo "\$*" >"$tmp/tune-args"
  sed -i -E "s/\"SOFTMAX_BLOCK\": [0-9]+/\"SOFTMAX_BLOCK\": \${STUB_BLOCK:-512}/; s/\"time_us\": 70.0/\"time_us\": 61.5/" kernelevo.lock.json
  while [[ \$# -gt 0 && \$1 != --report ]]; do shift; done
  [[ \$# -ge 2 ]] && exec "$kev" report kernelevo.lock.json --format json -o "\$2/report.json"
  exit 0
fi
exec "$kev" "\$@"
STUB
chmod +x "$tmp/kernelevo-stub"

# The token, and the basic-auth form git is given: neither may show in a command line
# (/proc/PID/cmdline is readable by every user of a shared runner) or reach the environment of
# a command the action starts.
printf '%s\n%s\n' "$token" "$(printf 'x-access-token:%s' "$token" | base64 | tr -d '\n')" >"$tmp/secrets"
# git, curl and cmake on PATH record their arguments, their environment, the mode of each file
# named in their arguments that holds a secret, and every process whose command line holds
# one; then git and curl run. cmake plays a project using kernelevo_optimize: configuring
# makes <build>/kernelevo/compile_settings, building kernelevo-params writes a source's
# settings there.
mkdir -p "$tmp/spy"
cat >"$tmp/spy/spy" <<SPY
#!/usr/bin/env bash
name=\$(basename "\$0")
{
  echo "== \$name"
  for a in "\$@"; do echo "argv: \$a"; done
  env | sed 's/^/env: /'
  for a in "\$@"; do
    for f in "\${a#@}" "\${a#*=}"; do
      [[ -f \$f ]] && grep -q -F -f "$tmp/secrets" "\$f" && echo "secret file: \$(stat -c %a "\$f") \$f"
    done
  done
  grep -l -F -f "$tmp/secrets" /proc/[0-9]*/cmdline 2>/dev/null | sed 's/^/cmdline holds a secret: /'
} >>"$tmp/spy.log"
if [[ \$name == cmake ]]; then
  prev=""
  for a in "\$@"; do
    [[ \$prev == -B ]] && mkdir -p "\$a/kernelevo/compile_settings"
    if [[ \$prev == --build ]]; then
      mkdir -p "\$a/kernelevo/compile_settings/softmax_kernels"
      printf '{"schema_version": 1, "source": "%s/src/softmax.cu", "options": ["--use_fast_math"]}\n' "\$PWD" \
        >"\$a/kernelevo/compile_settings/softmax_kernels/src_softmax_cu.json"
    fi
    prev=\$a
  done
  exit 0
fi
PATH=$PATH exec "\$name" "\$@"
SPY
chmod +x "$tmp/spy/spy"
for tool in git curl cmake; do ln -s spy "$tmp/spy/$tool"; done
spied() { PATH="$tmp/spy:$PATH" "$@"; }
secret_in() { grep -q -F -f "$tmp/secrets" "$@"; }
start_sha=$(git -C "$tmp/repo" rev-parse HEAD)

# --- first tune: the branch kernelevo/tune/sm_90 is pushed, a pull request is created ---------
new_step tune
: >"$tmp/spy.log"
touch "$tmp/repo/proj/CMakeLists.txt"  # untracked: the project's configure runs
(cd "$tmp/repo" && KEV_KERNELEVO=$tmp/kernelevo-stub KEV_MODE=tune KEV_TOKEN=$token KEV_L2=dirty KEV_COMPILER=nvrtc KEV_TIMEOUT=90s \
  KEV_CMAKE_ARGS="-DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release" spied "$run_sh") >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
rm "$tmp/repo/proj/CMakeLists.txt"
expect "tune: succeeds" '[[ $rc -eq 0 ]]' || cat "$tmp/stderr"
expect "tune: tune writes the reports (--report)" 'grep -q -- "--report $RUNNER_TEMP/kernelevo-reports" "$tmp/tune-args"'
expect "tune: the l2 input reaches tune as its own argument" 'grep -q -- "--l2 dirty" "$tmp/tune-args"'
expect "tune: the compiler input reaches tune as its own argument" 'grep -q -- "--compiler nvrtc" "$tmp/tune-args"'
expect "tune: the timeout input reaches tune as its own argument" 'grep -q -- "--timeout 90s" "$tmp/tune-args"'
expect "tune: lockfile-changed=true" '[[ $(output_of lockfile-changed) == true ]]'
expect "tune: improvements=1 (the entry this run changed)" '[[ $(output_of improvements) == 1 ]]'
expect "tune: gpu-missing=false" '[[ $(output_of gpu-missing) == false ]]'
expect "tune: pull-request-operation=created" '[[ $(output_of pull-request-operation) == created ]]'
expect "tune: pull-request-number=7" '[[ $(output_of pull-request-number) == 7 ]]'
expect "tune: pull-request-url from the API" '[[ $(output_of pull-request-url) == https://github.com/octo/kernels/pull/7 ]]'
expect "tune: the token is checked first, then the pull requests are listed and one opened" \
  '[[ $(api_calls | tr "\n" ,) == "GET /repos/octo/kernels,GET /repos/octo/kernels/pulls,POST /repos/octo/kernels/pulls," ]]' ||
  api_calls
expect "tune: branch kernelevo/tune/sm_90 pushed with the lockfile" \
  'branch_lock kernelevo/tune/sm_90 | grep -q "\"SOFTMAX_BLOCK\": 512"'
expect "tune: ... one commit on the commit the run started from" \
  '[[ $(git --git-dir="$tmp/git/octo/kernels.git" rev-parse kernelevo/tune/sm_90^) == "$start_sha" ]]'
expect "tune: token sent as bearer" 'grep -q "\"authorization\": \[\"Bearer $token\"\]" "$tmp/api.log"'
expect "tune: every git request carried the action's token alone, not what checkout persisted" \
  '[[ -n $(git_auth) ]] && ! git_auth | grep -v -q -x -i "1 basic $(printf "x-access-token:%s" "$token" | base64 | tr -d "\n")"' || git_auth
expect "tune: pull request from the branch into main, body = the report" \
  'python3 -c "import json,sys; b=[r for r in map(json.loads, open(sys.argv[1])) if r[\"method\"]==\"POST\" and r[\"path\"]==\"/repos/octo/kernels/pulls\"][0][\"body\"]; sys.exit(0 if b[\"head\"]==\"kernelevo/tune/sm_90\" and b[\"base\"]==\"main\" and \"## kernelevo tune\" in b[\"body\"] and \"SOFTMAX_BLOCK=512\" in b[\"body\"] else 1)" "$tmp/api.log"'
expect "tune: the pull request body links to the run, whose artifact holds the HTML report" \
  'python3 -c "import json,sys; b=[r for r in map(json.loads, open(sys.argv[1])) if r[\"method\"]==\"POST\" and r[\"path\"]==\"/repos/octo/kernels/pulls\"][0][\"body\"][\"body\"]; sys.exit(0 if \"artifact \`kernelevo-tune-sm_90\`, [$GITHUB_SERVER_URL/octo/kernels/actions/runs/4242]\" in b else 1)" "$tmp/api.log"'
expect "tune: the workspace stays on main, at the commit it started on, its index untouched" \
  '[[ $(git -C "$tmp/repo" symbolic-ref --short HEAD) == main && $(git -C "$tmp/repo" rev-parse HEAD) == "$start_sha" ]] &&
   git -C "$tmp/repo" diff --cached --quiet && ! git -C "$tmp/repo" rev-parse -q --verify refs/heads/kernelevo/tune/sm_90'
expect "tune: ... with the tuned lockfile in its working tree" 'grep -q "\"SOFTMAX_BLOCK\": 512" "$tmp/repo/proj/kernelevo.lock.json"'
expect "tune: summary links the pull request" 'grep -q "Pull request (created): https://github.com/octo/kernels/pull/7" "$GITHUB_STEP_SUMMARY"'
expect "tune: artifact-directory holds the tuned lockfile and the reports" \
  'd=$(output_of artifact-directory); grep -q "\"SOFTMAX_BLOCK\": 512" "$d/kernelevo.lock.json" && [[ -s $d/report.md && -s $d/report.html && -s $d/report.json ]]'
expect "tune: artifact-name names the architecture" '[[ $(output_of artifact-name) == kernelevo-tune-sm_90 ]]'
expect "tune: the project is configured with cmake-args and the kernelevo in use" \
  'grep -q -x "argv: -DCMAKE_CUDA_ARCHITECTURES=90" "$tmp/spy.log" && grep -q -x "argv: -DCMAKE_BUILD_TYPE=Release" "$tmp/spy.log" &&
   grep -q -x "argv: -DKERNELEVO_EXECUTABLE=$tmp/kernelevo-stub" "$tmp/spy.log"'
expect "tune: the compile settings are built (kernelevo-params)" \
  'grep -A3 -x "argv: --build" "$tmp/spy.log" | grep -q -x "argv: kernelevo-params"'
expect "tune: tune compiles with the build's settings (--compile-settings)" \
  'grep -q -- "--compile-settings $RUNNER_TEMP/kernelevo-reports/compile-settings" "$tmp/tune-args" &&
   grep -q -- "--use_fast_math" "$RUNNER_TEMP/kernelevo-reports/compile-settings/softmax_kernels.src_softmax_cu.json"'
expect "tune: the token is not in the logs" '! secret_in "$tmp/stdout" "$tmp/stderr" "$GITHUB_STEP_SUMMARY" "$GITHUB_OUTPUT"'
expect "tune: git, curl and the project's configure ran spied on" \
  'grep -q "^== git" "$tmp/spy.log" && grep -q "^== curl" "$tmp/spy.log" && grep -q "^== cmake" "$tmp/spy.log"'
expect "tune: the token is in no command line" \
  '! grep "^argv: " "$tmp/spy.log" | secret_in && ! grep -q "^cmdline holds a secret" "$tmp/spy.log"'
expect "tune: no command the action starts inherits the token (git, curl, cmake, kernelevo)" \
  '! grep "^env: " "$tmp/spy.log" | secret_in'
expect "tune: a file holding the token is private (0600) and removed after" \
  '! grep "^secret file: " "$tmp/spy.log" | grep -v -q "^secret file: 600 " &&
   ! grep "^secret file: " "$tmp/spy.log" | cut -d" " -f4- | xargs -r ls -d 2>/dev/null | grep -q .'

# --- check and compare on the GPU compile with the build's settings, as tune does ----------
for gate_mode in check compare; do
  new_step "$gate_mode-settings"
  rm -f "$tmp/$gate_mode-args"
  touch "$tmp/repo/proj/CMakeLists.txt"
  (cd "$tmp/repo" && KEV_KERNELEVO=$tmp/kernelevo-stub KEV_MODE=$gate_mode KEV_BASE_REF=$base_sha \
    spied "$run_sh") >"$tmp/stdout" 2>"$tmp/stderr"
  rm "$tmp/repo/proj/CMakeLists.txt"
  expect "$gate_mode: compiles with the build's settings (--compile-settings)" \
    'grep -q -- "--compile-settings $RUNNER_TEMP/kernelevo-reports/compile-settings" "$tmp/$gate_mode-args" &&
     grep -q -- "--use_fast_math" "$RUNNER_TEMP/kernelevo-reports/compile-settings/softmax_kernels.src_softmax_cu.json"' ||
    cat "$tmp/stderr"
done

# --- second tune: the same branch and pull request, updated ----------------------------------
reset_workspace
: >"$tmp/api.log"
new_step tune-again
(cd "$tmp/repo" && STUB_BLOCK=1024 KEV_KERNELEVO=$tmp/kernelevo-stub KEV_MODE=tune KEV_TOKEN=$token \
  KEV_ARTIFACT_URL=https://github.com/octo/kernels/actions/runs/4242/artifacts/99 "$run_sh") >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
expect "tune again: the updated body links to the artifact-url an earlier step uploaded" \
  'grep "\"PATCH\"" "$tmp/api.log" | grep -q "(https://github.com/octo/kernels/actions/runs/4242/artifacts/99)"'
expect "tune again: succeeds" '[[ $rc -eq 0 ]]' || cat "$tmp/stderr"
expect "tune again: pull-request-operation=updated, the same pull request" \
  '[[ $(output_of pull-request-operation) == updated && $(output_of pull-request-number) == 7 ]]'
expect "tune again: the open pull request is updated, none opened" \
  '[[ $(api_calls | tr "\n" ,) == "GET /repos/octo/kernels,GET /repos/octo/kernels/pulls,PATCH /repos/octo/kernels/pulls/7," ]]' || api_calls
expect "tune again: the same branch holds this run's winner, one commit on the base" \
  'branch_lock kernelevo/tune/sm_90 | grep -q "\"SOFTMAX_BLOCK\": 1024" &&
   [[ $(git --git-dir="$tmp/git/octo/kernels.git" rev-parse kernelevo/tune/sm_90^) == "$start_sha" ]]'
expect "tune again: no other branch" \
  '[[ $(git --git-dir="$tmp/git/octo/kernels.git" for-each-ref --format="%(refname)" refs/heads | tr "\n" " ") == "refs/heads/kernelevo/tune/sm_90 refs/heads/main " ]]'
expect "tune again: improvements=1" '[[ $(output_of improvements) == 1 ]]'

# --- the action's three steps: tune, the artifact's upload, then the pull request -------------
# (action.yml: the tune step defers the pull request while upload-artifact is on, so that
# its body links to the artifact the upload step made.)
reset_workspace
: >"$tmp/api.log"
new_step tune-deferred
(cd "$tmp/repo" && STUB_BLOCK=1024 KEV_KERNELEVO=$tmp/kernelevo-stub KEV_MODE=tune KEV_TOKEN=$token \
  KEV_DEFER_PULL_REQUEST=true "$run_sh") >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
expect "tune, deferred: succeeds" '[[ $rc -eq 0 ]]' || cat "$tmp/stderr"
expect "tune, deferred: the token is checked, no pull request touched yet" \
  '[[ $(api_calls | tr "\n" ,) == "GET /repos/octo/kernels," ]]' || api_calls
expect "tune, deferred: pull-request-deferred=true, no operation yet" \
  '[[ $(output_of pull-request-deferred) == true && -z $(output_of pull-request-operation) ]]'
new_step pull-request
export RUNNER_TEMP=$tmp/runner-tune-deferred  # one job: the steps share the runner's temp folder
(cd "$tmp/repo" && KEV_MODE=pull-request KEV_TOKEN=$token \
  KEV_ARTIFACT_URL=https://github.com/octo/kernels/actions/runs/4242/artifacts/123 "$run_sh") >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
expect "pull-request step: succeeds" '[[ $rc -eq 0 ]]' || cat "$tmp/stderr"
expect "pull-request step: the same pull request updated" \
  '[[ $(output_of pull-request-operation) == updated && $(output_of pull-request-number) == 7 ]]'
expect "pull-request step: the body links to the artifact the upload step made" \
  'grep "\"PATCH\"" "$tmp/api.log" | grep -q "(https://github.com/octo/kernels/actions/runs/4242/artifacts/123)"'
expect "pull-request step: the branch holds the tuned winner" 'branch_lock kernelevo/tune/sm_90 | grep -q "\"SOFTMAX_BLOCK\": 1024"'
expect "pull-request step: the token is not in the logs" '! secret_in "$tmp/stdout" "$tmp/stderr" "$GITHUB_STEP_SUMMARY" "$GITHUB_OUTPUT"'
new_step pull-request-again
export RUNNER_TEMP=$tmp/runner-tune-deferred
(cd "$tmp/repo" && KEV_MODE=pull-request KEV_TOKEN=$token "$run_sh") >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
expect "pull-request step without a tune before it: fails, saying so" \
  '[[ $rc -eq 2 ]] && grep -q "no tune waits for its pull request" "$tmp/stdout" "$tmp/stderr" "$GITHUB_STEP_SUMMARY"'

new_step pull-request-hostile-state
export RUNNER_TEMP=$tmp/runner-tune-deferred
mkdir -p "$RUNNER_TEMP/kernelevo-reports"
printf 'improvements=1;touch %s\narchs=sm_90\nartifact_name=x$(id)\n' "$tmp/pwned" \
  >"$RUNNER_TEMP/kernelevo-reports/pull-request.state"
: >"$tmp/api.log"
(cd "$tmp/repo" && KEV_MODE=pull-request KEV_TOKEN=$token "$run_sh") >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
expect "pull-request step, a state file with values no tune writes: refused before any pull request" \
  '[[ $rc -eq 2 && ! -e $tmp/pwned ]] && grep -q "does not hold a tune.s state" "$tmp/stderr" "$tmp/stdout" &&
   ! api_calls | grep -q -E "^(POST|PATCH)"' || { cat "$tmp/stderr"; api_calls; }

# --- a tune that improves nothing: the pull request stays as it is ---------------------------
reset_workspace
: >"$tmp/api.log"
new_step tune-same
(cd "$tmp/repo" && KEV_MODE=tune KEV_BUDGET=0 KEV_TOKEN=$token "$run_sh") >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
expect "tune, nothing better: succeeds" '[[ $rc -eq 0 ]]' || cat "$tmp/stderr"
expect "tune, nothing better: lockfile-changed=false, improvements=0" \
  '[[ $(output_of lockfile-changed) == false && $(output_of improvements) == 0 ]]'
expect "tune, budget 0: the report is old -> new against the lockfile of the commit it started from" \
  'grep -q "| SOFTMAX_BLOCK=256 | 70.0 us → 70.0 us | 1.00x |" "$(output_of report-markdown)"' || cat "$(output_of report-markdown)"
expect "tune, nothing better: pull-request-operation=none" '[[ $(output_of pull-request-operation) == none ]]'
expect "tune, nothing better: nothing opened, updated or closed" '! api_calls | grep -q -E "^(POST|PATCH)"'
expect "tune, nothing better: the branch keeps the earlier winner" 'branch_lock kernelevo/tune/sm_90 | grep -q "\"SOFTMAX_BLOCK\": 1024"'
expect "tune, nothing better: the summary names the artifact" 'grep -q "No pull request: .* artifact kernelevo-tune" "$GITHUB_STEP_SUMMARY"'

# --- the base got the pull request's lockfile another way: the pull request is closed --------
branch_lock kernelevo/tune/sm_90 >"$tmp/repo/proj/kernelevo.lock.json"
git -C "$tmp/repo" -c user.email=t@t -c user.name=t commit -qam "winners, by hand"
git -C "$tmp/repo" push -q origin HEAD:refs/heads/main
: >"$tmp/api.log"
new_step tune-closed
(cd "$tmp/repo" && KEV_MODE=tune KEV_BUDGET=0 KEV_TOKEN=$token "$run_sh") >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
expect "tune, change in the base: succeeds" '[[ $rc -eq 0 ]]' || cat "$tmp/stderr"
expect "tune, change in the base: pull-request-operation=closed, #7" \
  '[[ $(output_of pull-request-operation) == closed && $(output_of pull-request-number) == 7 ]]'
expect "tune, change in the base: closed through the API" \
  'grep "\"PATCH\"" "$tmp/api.log" | grep -q "\"state\": \"closed\""'
expect "tune, change in the base: the closed pull request's branch is deleted (delete-branch)" \
  'api_calls | grep -q -x "DELETE /repos/octo/kernels/git/refs/heads/kernelevo/tune/sm_90" &&
   ! git --git-dir="$tmp/git/octo/kernels.git" rev-parse -q --verify refs/heads/kernelevo/tune/sm_90'

# --- a bad token fails in seconds, before anything is configured or tuned ---------------------
for case in bad empty; do
  bad_token=wrong-token
  [[ $case == empty ]] && bad_token=""
  reset_workspace
  : >"$tmp/api.log"
  : >"$tmp/spy.log"
  rm -f "$tmp/tune-args"
  new_step "tune-token-$case"
  touch "$tmp/repo/proj/CMakeLists.txt"
  started=$SECONDS
  (cd "$tmp/repo" && KEV_KERNELEVO=$tmp/kernelevo-stub KEV_MODE=tune KEV_TOKEN=$bad_token spied "$run_sh") >"$tmp/stdout" 2>"$tmp/stderr"
  rc=$?
  rm "$tmp/repo/proj/CMakeLists.txt"
  expect "tune, $case token: fails (exit 2) within seconds" '[[ $rc -eq 2 && $((SECONDS - started)) -lt 20 ]]'
  expect "tune, $case token: nothing configured or tuned" \
    '[[ ! -e $tmp/tune-args ]] && ! grep -q "^== kernelevo\|^== cmake" "$tmp/spy.log"'
  expect "tune, $case token: named in the summary" 'grep -q "not started" "$GITHUB_STEP_SUMMARY"'
  cp "$tmp/stdout" "$tmp/stdout-token-$case"
done
expect "tune, bad token: the annotation says GitHub refused it" \
  'grep -q "^::error title=kernelevo tune::GitHub refused the token (HTTP 401" "$tmp/stdout-token-bad"'
expect "tune, empty token: the annotation names the token input" \
  'grep -q "^::error title=kernelevo tune::open-pull-request is true but the token input is empty" "$tmp/stdout-token-empty"'

# --- no GPU (the real kernelevo, on a marked source): named in the summary, the annotation and
# an output, and a failure where a GPU is required ---------------------------------------------
mkdir -p "$tmp/repo/proj/src"
cp "$src/tests/fixtures/specs/softmax.cu" "$tmp/repo/proj/src/"
for require in true false; do
  reset_workspace
  : >"$tmp/api.log"
  new_step "tune-nogpu-$require"
  (cd "$tmp/repo" && KEV_MODE=tune KEV_PATHS=src KEV_REQUIRE_GPU=$require KEV_TOKEN=$token "$run_sh") >"$tmp/stdout" 2>"$tmp/stderr"
  rc=$?
  expect "tune, no GPU (require-gpu $require): gpu-missing=true" '[[ $(output_of gpu-missing) == true ]]' || cat "$tmp/stderr"
  expect "tune, no GPU (require-gpu $require): the summary names it, in kernelevo's words" \
    'grep -q "no usable GPU or driver on this runner\|no GPU or driver on this runner" "$GITHUB_STEP_SUMMARY" &&
     grep -q "no GPU 0 to tune on (" "$GITHUB_STEP_SUMMARY"'
  expect "tune, no GPU (require-gpu $require): no pull request" '! api_calls | grep -q -E "^(POST|PATCH)"'
  if [[ $require == true ]]; then
    expect "tune, no GPU, require-gpu: fails (exit 1) with an error annotation naming it" \
      '[[ $rc -eq 1 ]] && grep -q "^::error title=kernelevo tune%3A no GPU::no usable GPU or driver on this runner (require-gpu is true): .*no GPU 0 to tune on (" "$tmp/stdout"'
    expect "tune, no GPU, require-gpu: not 'failed before writing a report'" '! grep -q "before writing a report" "$tmp/stdout"'
  else
    expect "tune, no GPU, require-gpu false: a skip (exit 0) with a warning naming it" \
      '[[ $rc -eq 0 ]] && grep -q "^::warning title=kernelevo::tune skipped: no usable GPU or driver" "$tmp/stdout"'
  fi
done
rm -rf "$tmp/repo/proj/src"

# --- tune where a kernel found no winner: tune's reports exist, the step still fails ---------
cat >"$tmp/kernelevo-stub-fail" <<STUB
#!/usr/bin/env bash
if [[ \$1 == tune ]]; then
  while [[ \$# -gt 0 && \$1 != --report ]]; do shift; done
  "$kev" report kernelevo.lock.json --format json -o "\$2/report.json"
  exit 1
fi
exec "$kev" "\$@"
STUB
chmod +x "$tmp/kernelevo-stub-fail"
reset_workspace
: >"$tmp/api.log"
new_step tune-fail
(cd "$tmp/repo" && KEV_KERNELEVO=$tmp/kernelevo-stub-fail KEV_MODE=tune KEV_TOKEN=$token "$run_sh") >"$tmp/stdout" 2>&1
rc=$?
expect "tune: a kernel without a winner fails the step (exit 1)" '[[ $rc -eq 1 ]]'
expect "tune: the failure is an error annotation" 'grep -q "^::error title=kernelevo tune::kernelevo tune failed (exit 1)" "$tmp/stdout"'
expect "tune: no pull request for a failed tune" '! api_calls | grep -q -E "^(POST|PATCH)"'

# --- tune where the API's answer forges outputs: a html_url holding lines of NAME=VALUE ----------
reset_workspace
python3 -c 'import json,sys; json.dump({"number": 7, "html_url": "https://github.com/octo/kernels/pull/7\nregressions=9\nreport-json=/etc/passwd"}, open(sys.argv[1], "w"))' "$tmp/api.answer"
new_step tune-forged
(cd "$tmp/repo" && STUB_BLOCK=2048 KEV_KERNELEVO=$tmp/kernelevo-stub KEV_MODE=tune KEV_TOKEN=$token "$run_sh") >"$tmp/stdout" 2>&1
rc=$?
rm "$tmp/api.answer"
expect "tune: a forged html_url fails the step" '[[ $rc -eq 1 ]]'
expect "tune: ... with an error annotation" 'grep -q "^::error title=kernelevo tune::.*html_url" "$tmp/stdout"'
expect "tune: ... and adds no outputs" \
  '[[ $(output_names) == "artifact-directory artifact-name gpu-missing improvements lockfile-changed regressions report-html report-json report-markdown " ]]' ||
  output_names
expect "tune: ... nor changes any" \
  '[[ $(output_of regressions) == 0 && $(output_of report-json) == $RUNNER_TEMP/kernelevo-reports/report.json ]]'
expect "tune: no line of the outputs file reads as NAME=VALUE" '! grep -q "=" "$GITHUB_OUTPUT"'

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
