#!/usr/bin/env bash
# CI gate for the torch adapter (docs/runner.md, README "More backends"): its own venv with the
# 'torch' extra at the versions constraints/backends.txt pins (torch 2.13.0 CPU, the version
# baselines/torch.yaml was written with), then the whole corpus (element-wise and accumulating
# operators) through the adapter against its baseline, --strict.
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)
python3 -m venv .venv-torch
.venv-torch/bin/pip install -q -e '.[torch]' pytest -c constraints/backends.txt
echo "torch gate: installed in $(( $(date +%s) - start )) s"
.venv-torch/bin/specgen run --adapter torch --baseline baselines/torch.yaml --strict -q
# every command of docs/accuracy-findings.md for this backend still reproduces its failure
.venv-torch/bin/python -m pytest -q -m slow tests/test_accuracy_findings_commands.py -k "torch"
