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
# The operators baselines/openvino.yaml was written for (the activations). The unary math family
# (absolute ... sign) joined specs/ after it and is not baselined for this backend yet: its failures are
# real (e.g. Abs of uint32 0xfffffffe gives 2 in OpenVINO) and await their reasons; run without --op to see them.
BASELINED_OPS=celu,elu,gelu,hard_sigmoid,hard_swish,identity,leaky_relu,linear,parametric_softplus,prelu,relu,scaled_tanh,selu,shrink,sigmoid,softplus,softsign,swish,tanh,thresholded_relu
.venv-openvino/bin/specgen run --adapter openvino --op "$BASELINED_OPS" --baseline baselines/openvino.yaml --strict -q
echo "openvino gate: done in $((SECONDS - start)) s"
