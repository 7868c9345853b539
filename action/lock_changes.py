#!/usr/bin/env python3
"""What a tune changed in a lockfile: compares BASE (the lockfile of the commit the pull
request goes into; a missing or empty file is an empty lockfile) with NEW, entry by entry
(kernel, architecture, device). An entry counts as an improvement when it is new or its
parameters changed; one whose time or notes alone changed (re-measured) does not.

Prints one line: COUNT ARCHS, ARCHS being the architectures of the improved entries, sorted
and joined with '-' ('none' when there are none)."""
import json
import sys


def entries(path):
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        return {}
    if not text.strip():
        return {}
    found = {}
    for kernel, entry in (json.loads(text).get("kernels") or {}).items():
        for arch, devices in (entry.get("targets") or {}).items():
            for device, locked in (devices or {}).items():
                found[(kernel, arch, device)] = locked.get("params")
    return found


base, new = entries(sys.argv[1]), entries(sys.argv[2])
improved = [key for key, params in new.items() if key not in base or base[key] != params]
archs = sorted({arch for _, arch, _ in improved})
# Architectures become part of a branch name: only characters git and GitHub take as is.
archs = ["".join(c if c.isalnum() or c in "._" else "_" for c in arch) for arch in archs]
print(len(improved), "-".join(archs) or "none")
