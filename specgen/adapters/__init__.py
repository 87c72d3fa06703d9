"""Adapters: the plugin API (base), entry-point discovery (registry) and the shipped adapters.

Shipped (entry points in pyproject.toml, each behind an extra):
  reference       the generated numpy reference code (generated/reference/)
  onnxruntime     one-node ONNX models on onnxruntime's CPUExecutionProvider
  onnx-reference  onnx.reference.ReferenceEvaluator
  torch           torch.nn.functional functions whose semantics match a spec subset
"""
from specgen.adapters.base import (Adapter, AllOf, AttrRule, Call, Claim, OutputInfo, Range, Rejected,  # noqa: F401
                                   SameAs, Unsupported, Values)
