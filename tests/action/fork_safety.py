#!/usr/bin/env python3
"""Checks docs/gate.md's fork-safety rules on workflows and on the composite action.

usage: fork_safety.py FILE...   (a file named action.yml/action.yaml is read as an action)

Rules (each finding is printed as FILE: RULE: detail; exit 1 when there is one):
  head-checkout     a pull_request_target or workflow_run workflow checks out the pull
                    request's head (its ref or sha, github.head_ref)
  untrusted-secrets a job of a workflow that runs a pull request's code (pull_request,
                    pull_request_target, workflow_run) uses a secret other than GITHUB_TOKEN
  untrusted-write   such a job (or the workflow's default) asks for a write permission
  no-permissions    a workflow without a top-level permissions block (the default token
                    may then write)
  interpolated      a run: script holds ${{ ... }}: an input or event value becomes shell
                    code; values go through env: instead
  persisted-token   actions/checkout without persist-credentials: false
  input-not-env     an input of the action that reaches none of its steps through env:,
                    with: or if:
"""
import re
import sys

import yaml

UNTRUSTED = {"pull_request", "pull_request_target", "workflow_run"}
HEAD_REF = re.compile(r"github\.(event\.pull_request\.head|head_ref|event\.workflow_run\.head)")
SECRET = re.compile(r"secrets\.([A-Za-z_][A-Za-z0-9_]*)")
findings = []


def find(path, rule, detail):
    findings.append(f"{path}: {rule}: {detail}")


def triggers(workflow):
    on = workflow.get("on", workflow.get(True))  # YAML 1.1 reads the key `on` as true
    if isinstance(on, str):
        return {on}
    if isinstance(on, list):
        return set(on)
    return set(on or {})


def writes(permissions):
    if permissions in ("write-all",):
        return True
    return isinstance(permissions, dict) and any(v == "write" for v in permissions.values())


def check_steps(path, where, steps):
    for i, step in enumerate(steps or []):
        name = f"{where} step {step.get('name') or step.get('id') or i + 1}"
        if "${{" in str(step.get("run", "")):
            find(path, "interpolated", f"{name}: {step['run'].strip()[:80]!r}")
        uses = str(step.get("uses", ""))
        if uses.startswith("actions/checkout@"):
            if (step.get("with") or {}).get("persist-credentials") is not False:
                find(path, "persisted-token", name)


def check_workflow(path, workflow):
    on = triggers(workflow)
    if "permissions" not in workflow:
        find(path, "no-permissions", "no top-level permissions")
    untrusted = bool(on & UNTRUSTED)
    if untrusted and writes(workflow.get("permissions")):
        find(path, "untrusted-write", f"workflow permissions {workflow['permissions']}")
    for job_id, job in (workflow.get("jobs") or {}).items():
        text = yaml.safe_dump(job)
        if on & {"pull_request_target", "workflow_run"}:
            for step in job.get("steps") or []:
                if str(step.get("uses", "")).startswith("actions/checkout@") and \
                        HEAD_REF.search(yaml.safe_dump(step.get("with") or {})):
                    find(path, "head-checkout", f"job {job_id} checks out the pull request's head")
        if untrusted:
            used = sorted(set(SECRET.findall(text)) - {"GITHUB_TOKEN"})
            if used:
                find(path, "untrusted-secrets", f"job {job_id} uses {', '.join(used)}")
            if writes(job.get("permissions")):
                find(path, "untrusted-write", f"job {job_id} permissions {job['permissions']}")
        check_steps(path, f"job {job_id}", job.get("steps"))


def check_action(path, action):
    steps = (action.get("runs") or {}).get("steps") or []
    check_steps(path, "action", steps)
    reached = yaml.safe_dump([{k: s.get(k) for k in ("env", "with", "if")} for s in steps])
    for name in action.get("inputs") or {}:
        if not re.search(r"inputs\." + re.escape(name) + r"\b(?!-)", reached):
            find(path, "input-not-env", f"input {name}")


for path in sys.argv[1:]:
    with open(path) as f:
        document = yaml.safe_load(f)
    if path.endswith(("action.yml", "action.yaml")):
        check_action(path, document)
    else:
        check_workflow(path, document)

print("\n".join(findings) if findings else f"fork safety: {len(sys.argv) - 1} file(s) pass")
sys.exit(1 if findings else 0)
