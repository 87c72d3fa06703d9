#!/usr/bin/env bash
# Gate: OpenVINO's CPU plugin (specgen/adapters/openvino_adapter.py) against baselines/openvino.yaml.
# Its own venv (.venv-openvino), pinned by constraints/openvino.txt; run by .ci/run after the
# README's commands (README "More backends").
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$SECONDS
python3 -m venv .venv-openvino
.venv-openvino/bin/pip install -q -e '.[openvino]' -c constraints/openvino.txt
echo "openvino gate: installed in $((SECONDS - start)) s"
.venv-openvino/bin/specgen run --adapter openvino --baseline baselines/openvino.yaml --strict -q
echo "openvino gate: done in $((SECONDS - start)) s"
