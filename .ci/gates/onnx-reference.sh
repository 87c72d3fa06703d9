#!/usr/bin/env bash
# Gate: onnx-reference over the whole corpus against baselines/onnx-reference.yaml, in the README set-up's own .venv
# (the README's test command runs only a sample of it; README "More backends").
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$SECONDS
.venv/bin/specgen run --adapter onnx-reference --baseline baselines/onnx-reference.yaml --strict -q --no-progress
echo "onnx-reference gate: done in $((SECONDS - start)) s"
