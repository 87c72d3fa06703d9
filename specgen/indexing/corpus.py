"""The accumulating operators' part of the vector corpus (``specgen generate``): the designed cases
of specgen.indexing.design written as ordinary corpus cases (specgen.vectors.format: the same
manifest entries, one data file per (operator, standard, version), inputs then golden outputs).

What the committed corpus holds, per (standard, version): the shape cases (every axis subset up to
rank 4, keepdims, negative spellings, shape variants and must-reject cases) once, in the version's
structural dtype (float32 where listed, else its first), since shapes do not depend on the dtype;
for every dtype the value designs at reduced lengths 1, 2, 3, 7, 8, 9, 64; the 1,023-long designs
that depend on the length (random, cancellation, stall, saturate) for the last version of each
standard only. The 65,537-long sums and the 1,024 x 1,024 matmul are
benchmarks (benchmarks/bench_accumulate.py), not corpus cases.
"""
from __future__ import annotations

from specgen.dtypes import is_float_numpy
from specgen.indexing.design import LENGTHS, cases
from specgen.indexing.run import expected
from specgen.numerics.ulp import canonical_nan
from specgen.spec.provenance import tolerance_record

SHORT = tuple(n for n in LENGTHS if n < 1000)
# at 1,023 the designs whose outcome depends on the length: the others are in the 8- and 9-long cases
LONG_DESIGNS = ("random", "cancellation", "stall", "saturate")


def structural_dtype(version) -> str:
    listed = version.dtypes()
    return "float32" if "float32" in listed else listed[0]


def designed(spec, standard: str, version) -> list:
    """The committed cases of one (standard, version), in a stable order."""
    std = spec.standards[standard]
    last = version.version == std.versions[-1].version
    out = []
    for dtype in version.dtypes():
        out += cases(spec, standard, version.version, dtype, structure=dtype == structural_dtype(version),
                     lengths=LENGTHS if last else SHORT, long_designs=LONG_DESIGNS)
    return out


def write(spec, writer, stats=None) -> None:
    """Every committed case of ``spec`` into ``writer`` (a specgen.vectors.CorpusWriter)."""
    for key, std in spec.standards.items():
        for version in std.versions:
            file = f"{spec.id}/{key}-{version.version}.bin"
            for case in designed(spec, key, version):
                inputs = case.inputs(spec)
                tensors = dict(inputs)
                if case.kind == "positive":
                    golden, _ = expected(spec, case, inputs)
                    tensors.update({name: canonical_nan(a) if is_float_numpy(a.dtype) else a
                                    for name, a in golden.items()})
                shapes = {name: list(a.shape) for name, a in tensors.items()}
                for name in spec.outputs:  # a must-reject case stores its inputs only; its outputs' shapes are unknown
                    shapes.setdefault(name, list(case.shapes.get(name) or []))
                names = list(shapes)
                writer.add(id=case.id, op=spec.id, standard=key, version=version.version, dtype=case.dtype,
                           kind=case.kind, violations=list(case.violations), shapes=shapes,
                           dtypes={n: case.dtype for n in names}, strides={n: None for n in names}, in_place=False,
                           attributes=dict(case.attributes), attributes_given=list(case.given),
                           tolerance=tolerance_record(spec, case.dtype), tags=[*case.tags, case.design],
                           tensors=tensors, file=file)
                if stats is not None:
                    if case.kind == "positive":
                        stats.positive += 1
                        stats.elements += sum(int(a.size) for n, a in tensors.items() if n in spec.outputs)
                    else:
                        stats.negative += 1
