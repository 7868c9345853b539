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
expect "check: summary has the table" 'grep -q "| \`softmax_rows\` | \*\*SLOWER\*\* |" "$GITHUB_STEP_SUMMARY"'
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
expect "compare: summary names the base" 'grep -q "compare against $base_sha" "$GITHUB_STEP_SUMMARY"'
expect "compare: the base worktree is gone" '[[ $(git -C "$tmp/repo" worktree list | wc -l) -eq 1 ]]'
new_step compare-slow
(cd "$tmp/repo" && KEV_BASE_REF=main KEV_MODE=compare KEV_REPLAY="$gate/slower.jsonl" \
  KEV_REPLAY_BASE="$gate/unchanged.jsonl" "$run_sh") >"$tmp/stdout" 2>&1
rc=$?
expect "compare: a slowdown fails" '[[ $rc -eq 1 && $(output_of regressions) == 1 ]]'
expect "compare: error annotation" 'grep -q "^::error file=proj/src/softmax.cu" "$tmp/stdout"'

# --- tune: the lockfile changes, a branch is pushed, a pull request is opened -------------------
python3 "$src/tests/action/fake_github_api.py" "$tmp/api.log" "$tmp/api.port" "$tmp/api.answer" &
api_pid=$!
for _ in $(seq 100); do [[ -s $tmp/api.port ]] && break; sleep 0.1; done
export KERNELEVO_GITHUB_API="http://127.0.0.1:$(cat "$tmp/api.port")"
# kernelevo whose `tune` (which needs a GPU) locks a new winner and writes the lockfile's
# report into --report DIR, as the real one does; everything else is the real one.
cat >"$tmp/kernelevo-stub" <<STUB
#!/usr/bin/env bash
{ echo "== kernelevo \$1"; env | sed 's/^/env: /'; } >>"$tmp/spy.log"
if [[ \$1 == tune ]]; then
  echo "\$*" >"$tmp/tune-args"
  sed -i 's/"SOFTMAX_BLOCK": 256/"SOFTMAX_BLOCK": 512/; s/"time_us": 70.0/"time_us": 61.5/' kernelevo.lock.json
  while [[ \$# -gt 0 && \$1 != --report ]]; do shift; done
  [[ \$# -ge 2 ]] && exec "$kev" report kernelevo.lock.json --format json -o "\$2/report.json"
  exit 0
fi
exec "$kev" "\$@"
STUB
chmod +x "$tmp/kernelevo-stub"

# The token, and the basic-auth form git was once given: neither may show in a command line
# (/proc/PID/cmdline is readable by every user of a shared runner) or reach the environment of
# a command the action starts.
token="kev-test-token-$$-$RANDOM"
printf '%s\n%s\n' "$token" "$(printf 'x-access-token:%s' "$token" | base64 | tr -d '\n')" >"$tmp/secrets"
# git, curl and cmake on PATH record their arguments, their environment, the mode of each file
# named in their arguments that holds a secret, and every process whose command line holds
# one; then git and curl run, cmake (the project's configure) only succeeds.
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
[[ \$name == cmake ]] && exit 0
PATH=$PATH exec "\$name" "\$@"
SPY
chmod +x "$tmp/spy/spy"
for tool in git curl cmake; do ln -s spy "$tmp/spy/$tool"; done
spied() { PATH="$tmp/spy:$PATH" "$@"; }
secret_in() { grep -q -F -f "$tmp/secrets" "$@"; }

new_step tune
: >"$tmp/spy.log"
touch "$tmp/repo/proj/CMakeLists.txt"  # untracked: the project's configure runs
(cd "$tmp/repo" && KEV_KERNELEVO=$tmp/kernelevo-stub KEV_MODE=tune KEV_TOKEN=$token spied "$run_sh") >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
rm "$tmp/repo/proj/CMakeLists.txt"
expect "tune: succeeds" '[[ $rc -eq 0 ]]' || cat "$tmp/stderr"
expect "tune: tune writes the reports (--report)" 'grep -q -- "--report $RUNNER_TEMP/kernelevo-reports" "$tmp/tune-args"'
expect "tune: lockfile-changed=true" '[[ $(output_of lockfile-changed) == true ]]'
expect "tune: pull-request-url from the API" '[[ $(output_of pull-request-url) == https://github.com/octo/kernels/pull/7 ]]'
expect "tune: branch pushed with the lockfile" \
  'git --git-dir="$tmp/origin.git" show kernelevo/tune-4242:proj/kernelevo.lock.json | grep -q "\"SOFTMAX_BLOCK\": 512"'
expect "tune: POST to /repos/octo/kernels/pulls" 'grep -q "\"path\": \"/repos/octo/kernels/pulls\"" "$tmp/api.log"'
expect "tune: token sent as bearer" 'grep -q "\"authorization\": \"Bearer $token\"" "$tmp/api.log"'
expect "tune: pull request from the branch into main, body = the report" \
  'python3 -c "import json,sys; b=json.loads(open(sys.argv[1]).readline())[\"body\"]; sys.exit(0 if b[\"head\"]==\"kernelevo/tune-4242\" and b[\"base\"]==\"main\" and \"## kernelevo tune\" in b[\"body\"] and \"SOFTMAX_BLOCK=512\" in b[\"body\"] else 1)" "$tmp/api.log"'
expect "tune: summary links the pull request" 'grep -q "Pull request: https://github.com/octo/kernels/pull/7" "$GITHUB_STEP_SUMMARY"'
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

# --- tune with nothing to change: no pull request ------------------------------------------------
git -C "$tmp/repo" checkout -q main
git -C "$tmp/repo" checkout -q -- proj/kernelevo.lock.json
: >"$tmp/api.log"
new_step tune-same
(cd "$tmp/repo" && KEV_MODE=tune KEV_BUDGET=0 KEV_TOKEN=$token "$run_sh") >"$tmp/stdout" 2>&1
rc=$?
expect "tune: unchanged lockfile succeeds" '[[ $rc -eq 0 ]]'
expect "tune: lockfile-changed=false" '[[ $(output_of lockfile-changed) == false ]]'
expect "tune: no pull request" '[[ ! -s $tmp/api.log ]]'

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
: >"$tmp/api.log"
new_step tune-fail
(cd "$tmp/repo" && KEV_KERNELEVO=$tmp/kernelevo-stub-fail KEV_MODE=tune KEV_TOKEN=$token "$run_sh") >"$tmp/stdout" 2>&1
rc=$?
expect "tune: a kernel without a winner fails the step (exit 1)" '[[ $rc -eq 1 ]]'
expect "tune: the failure is an error annotation" 'grep -q "^::error title=kernelevo tune::kernelevo tune failed (exit 1)" "$tmp/stdout"'
expect "tune: no pull request for a failed tune" '[[ ! -s $tmp/api.log ]]'

# --- tune where the API's answer forges outputs: a html_url holding lines of NAME=VALUE ----------
git -C "$tmp/repo" checkout -q main
git -C "$tmp/repo" checkout -q -- proj/kernelevo.lock.json
python3 -c 'import json,sys; json.dump({"number": 7, "html_url": "https://github.com/octo/kernels/pull/7\nregressions=9\nreport-json=/etc/passwd"}, open(sys.argv[1], "w"))' "$tmp/api.answer"
new_step tune-forged
(cd "$tmp/repo" && GITHUB_RUN_ID=4243 KEV_KERNELEVO=$tmp/kernelevo-stub KEV_MODE=tune KEV_TOKEN=$token "$run_sh") >"$tmp/stdout" 2>&1
rc=$?
rm "$tmp/api.answer"
expect "tune: a forged html_url fails the step" '[[ $rc -eq 1 ]]'
expect "tune: ... with an error annotation" 'grep -q "^::error title=kernelevo tune::.*html_url" "$tmp/stdout"'
expect "tune: ... and adds no outputs" \
  '[[ $(output_names) == "improvements lockfile-changed regressions report-html report-json report-markdown " ]]' ||
  output_names
expect "tune: ... nor changes any" \
  '[[ $(output_of regressions) == 0 && $(output_of report-json) == $RUNNER_TEMP/kernelevo-reports/report.json ]]'
expect "tune: no line of the outputs file reads as NAME=VALUE" '! grep -q "=" "$GITHUB_OUTPUT"'

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
