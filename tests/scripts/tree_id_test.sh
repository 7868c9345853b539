#!/usr/bin/env bash
# scripts/tree-id names the content of a working tree as the commit holding it does (its
# ^{tree}), whatever HEAD says: a copy of a newer tree over an older .git (as the device
# machine gets) names the newer commit's tree; an edit or an untracked file changes the
# name, an ignored file does not.
#   tests/scripts/tree_id_test.sh SCRIPTS_DIR
set -euo pipefail
tree_id=$1/tree-id
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
git_q() { git -C "$work/repo" -c user.name=t -c user.email=t@t "$@" >/dev/null; }

mkdir "$work/repo"
git_q init -q
echo "build/" > "$work/repo/.gitignore"
echo one > "$work/repo/a.txt"
git_q add -A && git_q commit -q -m one
old=$(git -C "$work/repo" rev-parse HEAD)
got=$("$tree_id" "$work/repo")
[[ $got == "tree $(git -C "$work/repo" rev-parse 'HEAD^{tree}') (HEAD ${old:0:7})" ]] || fail "clean tree: $got"

mkdir "$work/repo/build" && echo x > "$work/repo/build/out.o"
[[ $("$tree_id" "$work/repo") == "$got" ]] || fail "an ignored file changed the name"

echo two > "$work/repo/a.txt"
echo new > "$work/repo/b.txt"
edited=$("$tree_id" "$work/repo")
[[ $edited != "$got" ]] || fail "an edit and a new file left the name unchanged"
git_q add -A && git_q commit -q -m two
newer_tree=$(git -C "$work/repo" rev-parse 'HEAD^{tree}')
[[ $edited == "tree $newer_tree "* ]] || fail "the uncommitted tree is not the commit's: $edited"

# The newer content over the older .git: HEAD is stale, the tree is the newer commit's.
git_q reset -q --soft "$old"
[[ $("$tree_id" "$work/repo") == "tree $newer_tree (HEAD ${old:0:7})" ]] || fail "stale HEAD copy"

[[ $("$tree_id" "$work") == "tree unknown (not in a git checkout)" ]] || fail "outside a checkout"
echo "tree-id: all tests passed"
