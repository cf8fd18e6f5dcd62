"""The core's docstring examples run, and the core is `mypy --strict` clean and self-contained."""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import sixnimmt.core

CORE = Path(sixnimmt.core.__file__).parent
MODULES = sorted(m.name for m in pkgutil.iter_modules([str(CORE)]))


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(f"sixnimmt.core.{name}")
    result = doctest.testmod(module)
    assert result.failed == 0


@pytest.mark.parametrize("name", MODULES)
def test_core_imports_nothing_else_of_the_project(name: str) -> None:
    tree = ast.parse((CORE / f"{name}.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            assert node.level == 1 or not node.module.startswith("sixnimmt"), node.module
            assert node.level <= 1, f"{name} imports from outside the core: {node.module}"
        if isinstance(node, ast.Import):
            assert all(not a.name.startswith("sixnimmt") for a in node.names)


def test_core_is_mypy_strict_clean() -> None:
    api = pytest.importorskip("mypy.api")
    stdout, stderr, status = api.run(["--strict", "--no-incremental", "--cache-dir=/dev/null", str(CORE)])
    assert status == 0, stdout + stderr
