# Sourced by run.sh in tune mode: the pull request, to create-pull-request's conventions. One
# branch per architecture (kernelevo/tune/<arch>, or the branch input) holds one commit on
# top of the commit the run started from, the tuned lockfile; each run force-pushes it and
# updates that branch's open pull request, or opens one. A run that improved nothing leaves
# the pull request as it is, or closes it when its lockfile is the base's already. The
# workspace is not touched: the commit is made with a private index, HEAD and the checked-out
# branch stay as they were.
#
# Uses run.sh's repo, secrets, server, lockfile, lockpath, improvements, archs, report_md,
# artifact_name, report_link and api/answer/annotate; sets operation, number and url.

# Git runs in a bare repository borrowing the workspace's objects, so it reads no
# configuration but the token's: credentials actions/checkout persisted in the workspace (an
# extraheader for the server) are neither sent beside the token nor used instead of it.
kev_git() { git --git-dir="$secrets/push.git" -c include.path="$secrets/git-config" "$@"; }

pr_fail() {
  annotate error "kernelevo tune" "$1"
  printf '\nPull request: %s\n' "${1//\`/\'}" >>"$summary"
  exit 1
}

# The commit: HEAD's tree with the tuned lockfile, made without the workspace's index.
tune_commit() {
  local blob tree title
  blob=$(git hash-object -w -- "$lockfile")
  GIT_INDEX_FILE=$secrets/index git read-tree HEAD
  GIT_INDEX_FILE=$secrets/index git update-index --add --cacheinfo "100644,$blob,$lockpath"
  tree=$(GIT_INDEX_FILE=$secrets/index git write-tree)
  title=$(head -1 "$report_md" | sed 's/^## //')
  GIT_AUTHOR_NAME=kernelevo GIT_AUTHOR_EMAIL=kernelevo@users.noreply.github.com \
    GIT_COMMITTER_NAME=kernelevo GIT_COMMITTER_EMAIL=kernelevo@users.noreply.github.com \
    git commit-tree "$tree" -p HEAD -m "kernelevo: tuned winners for $archs" -m "$title"
}

# The branch of a closed pull request goes, as create-pull-request's delete-branch does. Its
# name came from the API's answer: only a plain branch name is put into the URL.
delete_branch() {
  local status
  if [[ ! $1 =~ ^[A-Za-z0-9._/-]+$ ]] || ! git check-ref-format "refs/heads/$1"; then
    annotate warning "kernelevo tune" "left the branch of the closed pull request: not a plain branch name: $(printf '%q' "$1")"
    return 0
  fi
  status=$(api DELETE "/repos/$repo/git/refs/heads/$1")
  case $status in
    204) log "deleted the branch $1" ;;
    404 | 422) log "the branch $1 was already gone" ;;  # GitHub: "Reference does not exist"
    *) pr_fail "deleting the branch $1 of the closed pull request failed (HTTP $status)" ;;
  esac
}

pull_request_flow() {
  local base_branch=${GITHUB_REF_NAME:-main} remote="$server/$repo.git" prefix=kernelevo/tune/
  local status branch existing commit n b theirs ours
  [[ -n ${KEV_BRANCH:-} ]] && prefix=$KEV_BRANCH
  git init -q --bare "$secrets/push.git"
  git rev-parse --path-format=absolute --git-common-dir | sed 's|$|/objects|' \
    >"$secrets/push.git/objects/info/alternates"

  status=$(api GET "/repos/$repo/pulls?state=open&base=$base_branch&per_page=100")
  [[ $status == 200 ]] || pr_fail "listing the open pull requests of $repo failed (HTTP $status)"
  cp "$secrets/answer.json" "$secrets/open.json"

  if ((improvements == 0)); then
    while read -r n b; do
      [[ -z ${KEV_BRANCH:-} || $b == "$KEV_BRANCH" ]] || continue
      kev_git fetch -q "$remote" "+refs/heads/$b:refs/kev/pull-$n" >&2 || continue
      theirs=$(git --git-dir="$secrets/push.git" rev-parse -q --verify "refs/kev/pull-$n:$lockpath") || continue
      ours=$(git rev-parse -q --verify "HEAD:$lockpath") || continue
      [[ $theirs == "$ours" ]] || continue
      printf '{"state": "closed"}' >"$secrets/close.json"
      status=$(api PATCH "/repos/$repo/pulls/$n" "$secrets/close.json")
      [[ $status == 200 ]] || pr_fail "closing pull request #$n failed (HTTP $status)"
      operation=closed number=$n url=$(answer html_url)
      log "closed pull request #$n: $b holds the base's lockfile"
      delete_branch "$b"
    done < <(python3 "$action_dir/github_answer.py" "$secrets/open.json" --heads "$repo" "$prefix")
    [[ -z $url || $url =~ ^https://[^[:space:][:cntrl:]]+$ ]] || pr_fail "the API's answer has no https html_url"
    return 0
  fi

  branch=${KEV_BRANCH:-$prefix$archs}
  git check-ref-format "refs/heads/$branch" || pr_fail "not a valid branch name: $(printf '%q' "$branch")"
  existing=$(python3 "$action_dir/github_answer.py" "$secrets/open.json" --head "$repo" "$branch")
  commit=$(tune_commit)
  kev_git push -q --force "$remote" "$commit:refs/heads/$branch" >&2 ||
    pr_fail "pushing $branch to $remote failed (the token needs contents: write)"
  python3 -c '
import json, sys
title, head, base, report, existing, out, artifact, link = sys.argv[1:]
body = open(report).read()
if len(body) > 60000:  # GitHub takes at most 65536 characters
    body = body[:60000] + "\n\n(report cut: the whole one is in the artifact of this run)\n"
if link:
    body += ("\n\nThe HTML report (charts, evidence), the JSON report and the tuned lockfile: "
             "artifact `" + artifact + "`, [" + link + "](" + link + ").\n")
body += ("\n\n---\nBranch `" + head + "` holds the latest tune on this architecture; "
         "each run replaces its commit and updates this pull request.\n")
request = {"title": title, "body": body}
if not existing:
    request.update({"head": head, "base": base, "maintainer_can_modify": True})
json.dump(request, open(out, "w"))' \
    "kernelevo: tuned winners for $archs" "$branch" "$base_branch" "$report_md" "$existing" "$secrets/body.json" \
    "$artifact_name" "$report_link"
  if [[ -n $existing ]]; then
    status=$(api PATCH "/repos/$repo/pulls/$existing" "$secrets/body.json")
    [[ $status == 200 ]] || pr_fail "updating pull request #$existing failed (HTTP $status): $(head -c 2000 "$secrets/answer.json")"
    operation=updated
  else
    status=$(api POST "/repos/$repo/pulls" "$secrets/body.json")
    [[ $status == 201 ]] || pr_fail "opening the pull request failed (HTTP $status): $(head -c 2000 "$secrets/answer.json")"
    operation=created
  fi
  number=$(answer number 2>/dev/null) || number=""
  url=$(answer html_url 2>/dev/null) || url=""
  [[ $url =~ ^https://[^[:space:][:cntrl:]]+$ ]] || pr_fail "the API's answer has no https html_url: $(head -c 2000 "$secrets/answer.json")"
  [[ $number =~ ^[0-9]+$ ]] || pr_fail "the API's answer has no pull request number"
  log "$operation pull request #$number from $branch: $url"
}
