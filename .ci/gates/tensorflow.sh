#!/usr/bin/env bash
# CI gate for the tensorflow adapter (docs/runner.md, README "More backends"): its own venv with the
# 'tensorflow' extra at the versions constraints/tensorflow.txt pins (the freeze baselines/tensorflow.yaml was written
# with), then the whole corpus through the adapter against its baseline, --strict.
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)
python3 -m venv .venv-tensorflow
.venv-tensorflow/bin/pip install -q -e '.[tensorflow]' pytest -c constraints/tensorflow.txt
echo "tensorflow gate: installed in $(( $(date +%s) - start )) s"
.venv-tensorflow/bin/specgen run --adapter tensorflow --baseline baselines/tensorflow.yaml --strict -q
