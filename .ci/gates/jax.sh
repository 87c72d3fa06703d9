#!/usr/bin/env bash
# CI gate for the jax adapter (docs/runner.md, README "More backends"): its own venv with the
# 'jax' extra at the versions constraints/jax.txt pins (the freeze baselines/jax.yaml was written
# with), then the whole corpus through the adapter against its baseline, --strict.
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)
python3 -m venv .venv-jax
.venv-jax/bin/pip install -q -e '.[jax]' pytest -c constraints/jax.txt
echo "jax gate: installed in $(( $(date +%s) - start )) s"
.venv-jax/bin/specgen run --adapter jax --baseline baselines/jax.yaml --strict -q
