#!/usr/bin/env bash
# Gate: onnxruntime over the whole corpus against baselines/onnxruntime.yaml, in the README set-up's own .venv
# (the README's test command runs only a sample of it; README "More backends").
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$SECONDS
.venv/bin/specgen run --adapter onnxruntime --baseline baselines/onnxruntime.yaml --strict -q --no-progress
# the same run against the committed report (docs/), and the whole-corpus report checks
.venv/bin/python -m pytest -q -m slow tests/test_adapters_onnxruntime.py
# every command of docs/accuracy-findings.md for this backend still reproduces its failure
.venv/bin/python -m pytest -q -m slow tests/test_accuracy_findings_commands.py -k "onnxruntime or onnx-reference"
echo "onnxruntime gate: done in $((SECONDS - start)) s"
