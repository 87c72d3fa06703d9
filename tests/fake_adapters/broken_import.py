"""A plugin module that fails at import (for discovery tests)."""
raise ImportError("libmybackend.so: cannot open shared object file")
