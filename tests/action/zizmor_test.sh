#!/usr/bin/env bash
# zizmor (security audit of GitHub Actions: unpinned actions, persisted credentials, token
# permissions, template injection...) on the action and every example workflow, offline (CI
# has no GitHub access). Any finding fails; a false positive needs an inline
# "# zizmor: ignore[audit]" with its reason. Skips (77) when zizmor is absent
# (`python3 -m pip install zizmor` provides it).
set -euo pipefail
src=${1:?usage: zizmor_test.sh SOURCE_DIR}
zizmor=$(command -v zizmor || true)
scripts=$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))' 2>/dev/null || true)
[[ -z $zizmor && -x $scripts/zizmor ]] && zizmor=$scripts/zizmor
if [[ -z $zizmor ]]; then
  echo "zizmor not installed (python3 -m pip install zizmor): skipped"
  exit 77
fi
cd "$src"
"$zizmor" --version
# --strict-collection: a file zizmor cannot parse fails, rather than being skipped with a warning.
"$zizmor" --offline --no-progress --strict-collection action/action.yml action/examples/*.yml
