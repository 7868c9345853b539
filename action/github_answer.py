#!/usr/bin/env python3
"""Reads a GitHub REST answer (JSON) for action/run.sh.

github_answer.py FILE FIELD[.FIELD...]   the value (true/false for booleans; empty if absent)
github_answer.py FILE --head REPO BRANCH  the number of the open pull request from BRANCH
                                          of REPO (empty if none)
github_answer.py FILE --heads REPO PREFIX 'NUMBER BRANCH' of each open pull request from a
                                          branch of REPO starting with PREFIX"""
import json
import sys

with open(sys.argv[1]) as f:
    data = json.load(f)


def same_repo(pull, repo):
    return ((pull.get("head") or {}).get("repo") or {}).get("full_name") == repo


if sys.argv[2] == "--head":
    repo, branch = sys.argv[3:5]
    print(next((str(p["number"]) for p in data
                if same_repo(p, repo) and p["head"].get("ref") == branch), ""))
elif sys.argv[2] == "--heads":
    repo, prefix = sys.argv[3:5]
    for p in data:
        ref = p["head"].get("ref", "")
        if same_repo(p, repo) and ref.startswith(prefix):
            print(p["number"], ref)
else:
    value = data
    for key in sys.argv[2].split("."):
        value = value.get(key) if isinstance(value, dict) else None
    if isinstance(value, bool):
        print("true" if value else "false")
    elif value is not None:
        print(value)
