"""The instruments' type stub (bench/pyext/fastodbc_bench.pyi) names exactly what the module defines."""

from __future__ import annotations

import ast
from pathlib import Path
from types import ModuleType

import fastodbc_bench

STUB = Path(__file__).resolve().parent.parent / "pyext" / "fastodbc_bench.pyi"


def test_module_functions_match():
    stubbed = {node.name for node in ast.parse(STUB.read_text()).body if isinstance(node, ast.FunctionDef)}
    # maturin's package re-exports the extension module's names (and holds the module itself).
    defined = {n for n, v in vars(fastodbc_bench).items() if not n.startswith("__") and not isinstance(v, ModuleType)}
    assert stubbed == defined
