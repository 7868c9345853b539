#!/usr/bin/env python3
"""Reads a $GITHUB_OUTPUT file as the GitHub runner does: NAME=VALUE lines, and
NAME<<DELIMITER blocks whose value runs until a line that is exactly DELIMITER. Prints the
value of NAME (the last one set), or with --names every name set, one per line. Exits 1
where the runner would fail the step (a line of neither form, a block never closed)."""
import sys


def parse(path):
    outputs = {}
    with open(path, newline="") as f:
        lines = f.read().replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        eq, heredoc = line.find("="), line.find("<<")
        if eq >= 0 and (heredoc < 0 or eq < heredoc):
            outputs[line[:eq]] = line[eq + 1:]
        elif heredoc >= 0:
            name, delimiter = line[:heredoc], line[heredoc + 2:]
            value = []
            while i < len(lines) and lines[i] != delimiter:
                value.append(lines[i])
                i += 1
            if i == len(lines):
                sys.exit(f"{path}: {name}: no closing {delimiter}")
            i += 1
            outputs[name] = "\n".join(value)
        else:
            sys.exit(f"{path}: invalid line {line!r}")
    return outputs


outputs = parse(sys.argv[1])
if sys.argv[2] == "--names":
    print("\n".join(outputs))
else:
    print(outputs.get(sys.argv[2], ""))
