"""The engine reproduces every book value of expected.json, and the runner prints the tables."""

import json
import subprocess
import sys

import pytest

from autograder.authoring import book
from autograder.coursedir.data import expected


def test_expected_json_holds_at_least_sixty_book_values():
    assert len(expected()) >= 60


@pytest.mark.parametrize("key", sorted(expected()))
def test_the_engine_matches_the_book(key):
    values = book.engine_values()
    assert key in values, f"no engine value for {key}"
    assert book.agrees(values[key], expected()[key]), (key, book.render(values[key]))


def test_every_engine_value_is_a_book_value():
    assert set(book.engine_values()) <= set(expected())


def test_the_runner_prints_the_tables_and_writes_run_json(tmp_path):
    out = tmp_path / "run.json"
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "tables", "--out", str(out)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for line in (
        "Table 12.1",
        "   3      1/2      1/4     -3/4     -3/8",
        "Table 12.2",
        "8          0.00390625         25.62890625",
        "Table 11.3",
        "Table 11.4",
    ):
        assert line in result.stdout, line
    assert f"{len(expected())} of {len(expected())} book values agree" in result.stdout
    assert json.loads(out.read_text())["table-12.1/grad"] == "-3/4"
