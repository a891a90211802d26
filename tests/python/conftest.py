"""Shared fixtures: the hybridsim executable beside the package under test, a scratch folder."""
import os

import pytest


@pytest.fixture
def executable():
    path = os.environ.get("HYBRIDSIM_EXECUTABLE")
    if not path:
        pytest.skip("HYBRIDSIM_EXECUTABLE not set (ctest sets it)")
    return path
