#!/usr/bin/env bash
# CI gate for the litert adapter (docs/runner.md, README "More backends"): its own venv with the
# 'litert' extra at the versions constraints/litert.txt pins (the freeze baselines/litert.yaml was written
# with), then the whole corpus through the adapter against its baseline, --strict.
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)
python3 -m venv .venv-litert
.venv-litert/bin/pip install -q -e '.[litert]' pytest -c constraints/litert.txt
echo "litert gate: installed in $(( $(date +%s) - start )) s"
.venv-litert/bin/specgen run --adapter litert --baseline baselines/litert.yaml --strict -q
