"""specgen: operator standards made executable."""

__version__ = "0.1.0"
