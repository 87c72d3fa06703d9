"""Imported by the local pool's fork server: the specs parsed once, before any worker is forked."""
from specgen.sweep.chunk import preload_specs

preload_specs()
