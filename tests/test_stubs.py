"""The extension's type stub (`_native.pyi`) names exactly what the extension defines."""

from __future__ import annotations

import ast
import pathlib

import pytest

import fastodbc
from fastodbc import _native

STUB = pathlib.Path(fastodbc.__file__).with_name("_native.pyi")


def _stubbed() -> dict[str, set[str]]:
    tree = ast.parse(STUB.read_text())
    names: dict[str, set[str]] = {"": set()}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            names[""].add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            # A module constant (SECRET_ATTRIBUTES).
            names[""].add(node.target.id)
        elif isinstance(node, ast.ClassDef):
            members = set()
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    members.add(item.target.id)
            names[node.name] = members
            names[""].add(node.name)
    return names


def _public(obj: object) -> set[str]:
    return {n for n in vars(obj) if not n.startswith("__") or n in {"__next__", "__iter__"}}


def test_module_functions_and_classes_match():
    defined = {n for n in vars(_native) if not n.startswith("__")}
    assert _stubbed()[""] == defined


@pytest.mark.parametrize(
    "cls",
    ["Connection", "Cursor", "Row", "DriverTraits", "TextDecoding", "IngestField", "CreateColumn", "IngestRequest"],
)
def test_class_members_match(cls):
    stub = {n for n in _stubbed()[cls] if not n.startswith("__") or n in {"__next__", "__iter__"}}
    runtime = _public(getattr(_native, cls)) - {"__new__"}
    assert stub == runtime
