"""What every test of the suite shares: nothing it runs writes into the checkout."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _cache_outside_the_checkout(tmp_path_factory):
    """`specgen run` remembers failures in ``.specgen-cache/`` of the current directory; the tests run
    fake adapters from the repository root, which used to leave their entries in the checkout's
    cache (issue 24). Every test (and every subprocess it starts) gets a cache of its own."""
    mp = pytest.MonkeyPatch()
    mp.setenv("SPECGEN_CACHE_DIR", str(tmp_path_factory.mktemp("specgen-cache")))
    yield
    mp.undo()
