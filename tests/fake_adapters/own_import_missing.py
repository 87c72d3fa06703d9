"""A plugin whose own helper module is missing (a packaging bug): broken, not "not installed"."""
from fake_adapters import no_such_helper_module  # noqa: F401
