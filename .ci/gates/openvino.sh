#!/usr/bin/env bash
# Gate: OpenVINO's CPU plugin (specgen/adapters/openvino_adapter.py) against baselines/openvino.yaml.
# Its own venv (.venv-openvino), pinned by constraints/openvino.txt; run by .ci/run after the
# README's commands (README "More backends").
set -euo pipefail
cd "$(dirname "$0")/../.."
# baselines/openvino.yaml was written on an AVX-512 machine. On an AVX2 one (measured 2026-11-28)
# 79 of its entries' cases pass (xpass) and bfloat16 PRelu, LeakyRelu, HardSwish, Softsign and HardSigmoid fail in ways it does not explain: the CPU plugin's bf16 and ISA-specific kernels differ; until its entries say which CPU each applies to (`cpu:`, docs/runner.md), the
# gate runs only where the baseline holds and says so elsewhere.
if ! .venv/bin/python tools/cpu_has.py AVX512F; then
  echo "openvino gate: skipped: baselines/openvino.yaml holds for AVX-512 CPUs only (see .ci/gates/openvino.sh)"
  exit 0
fi
start=$SECONDS
python3 -m venv .venv-openvino
.venv-openvino/bin/pip install -q -e '.[openvino]' -c constraints/openvino.txt
echo "openvino gate: installed in $((SECONDS - start)) s"
# The operators baselines/openvino.yaml was written for (the activations). The unary math family
# (absolute ... sign) joined specs/ after it and is not baselined for this backend yet: its failures are
# real (e.g. Abs of uint32 0xfffffffe gives 2 in OpenVINO) and await their reasons; run without --op to see them.
BASELINED_OPS=celu,elu,gelu,hard_sigmoid,hard_swish,identity,leaky_relu,linear,parametric_softplus,prelu,relu,scaled_tanh,selu,shrink,sigmoid,softplus,softsign,swish,tanh,thresholded_relu
.venv-openvino/bin/specgen run --adapter openvino --op "$BASELINED_OPS" --baseline baselines/openvino.yaml --strict -q
echo "openvino gate: done in $((SECONDS - start)) s"
