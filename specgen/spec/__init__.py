"""Spec files: reading YAML with positions, validating, and the typed model."""
