"""The vector corpus format: the manifest schema and reading/writing of case data.

Shared by the generator (which writes a corpus) and the runner (which reads one); neither side
touches the files any other way. The format is described in docs/ARCHITECTURE.md and docs/vectors.md.
"""
from specgen.vectors.format import (FORMAT, Case, Corpus, CorpusError, CorpusWriter, case_seed, dump_manifest,
                                    load_corpus)

__all__ = ["FORMAT", "Case", "Corpus", "CorpusError", "CorpusWriter", "case_seed", "dump_manifest", "load_corpus"]
