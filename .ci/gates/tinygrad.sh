#!/usr/bin/env bash
# CI gate for the tinygrad adapter (docs/runner.md, README "More backends"): its own venv with the
# 'tinygrad' extra at the versions constraints/tinygrad.txt pins (the freeze baselines/tinygrad.yaml was written
# with), then the whole corpus through the adapter against its baseline, --strict.
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)
python3 -m venv .venv-tinygrad
.venv-tinygrad/bin/pip install -q -e '.[tinygrad]' pytest -c constraints/tinygrad.txt
echo "tinygrad gate: installed in $(( $(date +%s) - start )) s"
# tinygrad compiles a C kernel per (op, dtype, attribute values, padded length) through clang (or zig cc,
# about 1.5 s each) and schedules every call in Python: the whole corpus takes about 25 min, so the
# gate runs its float32 ONNX cases (every operator tinygrad has, every opset and case design).
.venv-tinygrad/bin/specgen run --adapter tinygrad --standard onnx --dtype float32 --baseline baselines/tinygrad.yaml --strict -q
