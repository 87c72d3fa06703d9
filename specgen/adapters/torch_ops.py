"""The torch adapter's op mapping (specgen/adapters/torch_ops.yaml): the framework-mapping loader
(specgen.adapters.framework_ops, shared with the jax, tensorflow, litert and tinygrad adapters) on
torch's file. Imports no torch: the adapter passes the torch module in, so the mapping logic is
tested without torch (tests/test_torch_ops.py, with a fake ``torch.nn.functional``)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from specgen.adapters.framework_ops import (DTypeName, Entry, OpMapping, Prepared, channel_vector, mapping_path, prepare,
                                           resolve)
from specgen.adapters.framework_ops import load as load_mapping

__all__ = ["MAPPING", "DTypeName", "Entry", "OpMapping", "Prepared", "channel_vector", "load", "prepare", "resolve"]

MAPPING = mapping_path("torch")


def load(specs: Mapping[str, Any], path: str | Path = MAPPING, torch=None) -> OpMapping:
    """The checked torch mapping; raises :class:`specgen.errors.SpecError` with every problem found."""
    return load_mapping(specs, path, torch)
