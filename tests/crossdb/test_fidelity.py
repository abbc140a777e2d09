"""Each column of each source table, moved by each path and mode into each database, arrives
as expected.py says: exact, changed by a named rule, or refused with a named message."""

from __future__ import annotations

import pytest

from conftest import ROOT

from . import check
from .expectations import cases, check_data, expectation


def _param(case):
    e = expectation(case)
    marks = [pytest.mark.xfail(strict=True, reason=e.defect)] if e.defect else []
    return pytest.param(case, id=case.id, marks=marks)


@pytest.mark.timeout(600)  # the first case of a load waits for it (the first of all: the source tables)
@pytest.mark.parametrize("case", [_param(c) for c in cases()])
def test_column_arrives_as_expected(case, mover, observed):
    load = mover.load(case)
    source = mover.sources[case.source][case.kind]
    observed[case.id] = check.observe(case, load, source)
    problem = check.verdict(case, expectation(case), load, source)
    if problem:
        pytest.fail(problem, pytrace=False)


def test_expectations_are_well_formed():
    assert check_data() == []


def test_the_doc_table_is_made_from_the_data():
    import importlib.util

    spec = importlib.util.spec_from_file_location("type_fidelity", ROOT / "scripts" / "type_fidelity.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    written = (ROOT / "docs" / "type-fidelity.md").read_text()
    assert written == module.render(), "docs/type-fidelity.md is stale: run .venv/bin/python scripts/type_fidelity.py"
