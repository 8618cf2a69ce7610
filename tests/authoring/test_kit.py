"""The student kit holds the public half only, and works alone in a clean virtual environment."""

from __future__ import annotations

import ast
import json
import math
import re
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

import rnnkit
from autograder.assignments import ALL, get
from autograder.authoring import kit
from autograder.authoring.submissions import filled
from autograder.coursedir.config import REPO_ROOT
from autograder.vocabulary.template import strip_markers

from ..conftest import make_course

pytestmark = pytest.mark.nbgrader


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The kit's wheel, as `python -m autograder kit` builds it in a (private) course of the committed settings."""
    out, root = tmp_path_factory.mktemp("dist"), make_course(tmp_path_factory.mktemp("kit") / "course")
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "--root", str(root), "kit", "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    wheel = Path(result.stdout.strip().splitlines()[0])
    assert f"pip install {wheel.name}" in result.stdout and f"Its version ({kit.version(root)})" in result.stdout
    assert json.loads((root / kit.KIT_RECORD).read_text())["version"] == kit.version(root)  # what release compares
    return wheel


@pytest.fixture(scope="module")
def files(wheel) -> dict[str, str]:
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name).decode("utf-8", errors="replace") for name in archive.namelist()}


def _bodies(source: str) -> list[str]:
    """The statements of every function in `source`, as text (docstring left out), dedented."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.Lambda)) and isinstance(getattr(node, "body", None), list):
            body = node.body[1:] if ast.get_docstring(node) else node.body
            if body:
                lines = source.splitlines()[body[0].lineno - 1 : body[-1].end_lineno]
                found.append(textwrap.dedent("\n".join(lines)).strip())
    return found


def test_the_notebooks_and_the_students_readme_name_the_wheel_that_is_built(wheel):
    assert wheel.name == kit.wheel_name() and kit.version().startswith("0.2.0+k")
    assert f"pip install {wheel.name}" in (REPO_ROOT / "release" / "ch12_bptt" / "README.md").read_text(
        encoding="utf-8"
    )
    with zipfile.ZipFile(wheel) as archive:
        meta = next(name for name in archive.namelist() if name.endswith(".dist-info/METADATA"))
        assert f"Version: {kit.version()}" in archive.read(meta).decode()
    for name in ALL:
        assert kit.released_with(REPO_ROOT / "release" / name / f"{name}.ipynb") == kit.version(), name


def test_the_wheel_is_small_and_public(wheel, files):
    names = sorted(files)
    assert wheel.stat().st_size < 200_000, wheel.stat().st_size
    assert all(name.startswith(("rnnkit/", "rnn_course_kit-")) for name in names), names
    assert not [n for n in names if re.search(r"solution|reference|mistake|draws|autograder", n)], names
    assert {f"rnnkit/public/{name}.json" for name in ALL} <= set(names)


def test_no_solution_reference_drawer_or_mistake_code_is_in_the_wheel(files):
    secret = []
    for name, spec in ALL.items():
        secret += [strip_markers(body) for body in spec.function_sources().values()]
        secret += _bodies(Path(spec.reference.__file__).read_text(encoding="utf-8"))
        for module in (spec.folder / "models.py", *(spec.folder / "checks").glob("*.py")):  # drawers, cases, mistakes
            secret += _bodies(module.read_text(encoding="utf-8"))
    secret = [body for body in secret if len(body) > 20]
    assert len(secret) > 200
    for name, text in files.items():
        leaked = [body for body in secret if body in text]
        assert not leaked, (name, leaked[:3])
        assert not re.search(r"^\s*(import|from)\s+(sympy|nbgrader|autograder|solutions)\b", text, re.M), name


def test_the_kit_holds_every_public_case_with_its_expected_value_and_mistake_outputs(files):
    for name, spec in ALL.items():
        data = json.loads(files[f"rnnkit/public/{name}.json"])
        text = json.dumps(data)
        for check in spec.checks:
            assert f'"{check.name}"' in text
        assert "$fraction" in text


def _within_an_ulp(committed, built) -> bool:
    """The same JSON data, floats equal up to the last bits (the mistakes' float outputs come from
    numpy's exp and tanh, whose last bit differs between processors)."""
    if isinstance(committed, float) and isinstance(built, float):
        return math.isclose(committed, built, rel_tol=1e-14, abs_tol=1e-300)
    if isinstance(committed, dict) and isinstance(built, dict):
        return committed.keys() == built.keys() and all(_within_an_ulp(committed[k], built[k]) for k in committed)
    if isinstance(committed, list) and isinstance(built, list):
        return len(committed) == len(built) and all(map(_within_an_ulp, committed, built))
    return committed == built


def test_the_installed_kit_holds_what_the_assignments_build():
    """The kit the course's environment runs was built from the assignments as they are now, and
    nothing of it is committed: `make venv` builds it again whenever an assignment changes."""
    package = Path(rnnkit.__file__).parent
    built = kit.public_files(REPO_ROOT)
    installed = {
        path.relative_to(package).as_posix(): path.read_bytes()
        for path in [*(package / "public").glob("*.json"), *(package / "messages").glob("*.json")]
        if not path.name.startswith("core.")
    }
    run = "run: make venv"
    assert installed.keys() == built.keys(), run
    assert all(
        _within_an_ulp(json.loads(installed[n]), json.loads(built[n])) for n in built if n.startswith("public/")
    ), run
    assert all(installed[n] == built[n] for n in built if n.startswith("messages/")), run
    tracked = subprocess.run(
        ["git", "ls-files", "kit"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert not [name for name in tracked if name.removeprefix("kit/rnnkit/") in built], (
        "the kit's built data is committed"
    )
    assert (kit.KIT / "rnnkit" / "data" / "sequence-v1.json").read_bytes() == (
        REPO_ROOT / "data" / "part-iii" / "sequence-v1.json"
    ).read_bytes()


# --------------------------------------------------------------------------- alone, in a clean venv

DRIVER = r"""
import json, sys
from rnnkit.cells import CellRunner
notebook = json.load(open(sys.argv[1]))
runner = CellRunner()
cells = []
for cell in notebook["cells"]:
    if cell["cell_type"] == "code":
        source = "".join(cell["source"])
        cells.append({"grade_id": cell.get("metadata", {}).get("nbgrader", {}).get("grade_id"), "outputs": runner.run(source)})
json.dump(cells, sys.stdout)
"""


@pytest.fixture(scope="module")
def clean_venv(tmp_path_factory, wheel) -> Path:
    """A fresh virtual environment with the kit's wheel and its dependencies only."""
    folder = tmp_path_factory.mktemp("student") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    # the course's pip installs into it (`--python`), without compiling every module ahead of its first import
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-compile",
            "--disable-pip-version-check",
            "-c",
            str(REPO_ROOT / "requirements.lock"),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    return python


def test_the_clean_venv_has_no_instructor_package(clean_venv, tmp_path):
    for module in ("sympy", "nbgrader", "autograder", "solutions"):
        result = subprocess.run(
            [str(clean_venv), "-I", "-c", f"import {module}"], cwd=tmp_path, capture_output=True, text=True
        )
        assert result.returncode != 0, module


def _run_notebook(python: Path, folder: Path, notebook) -> list[dict]:
    path = folder / "notebook.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    driver = folder / "driver.py"
    driver.write_text(DRIVER, encoding="utf-8")
    result = subprocess.run(
        [str(python), "-I", str(driver), str(path)], cwd=folder, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


def _check_texts(cells: list[dict]) -> dict[str, str]:
    """grade id -> what the check cell printed (stdout and stderr), wrapped lines joined again."""
    names = {c.name for spec in ALL.values() for c in spec.checks}
    return {
        cell["grade_id"].removeprefix("selfcheck-"): re.sub(
            r"\n +", " ", "".join(o.get("text", "") for o in cell["outputs"] if o["output_type"] == "stream")
        )
        for cell in cells
        if cell["grade_id"] and cell["grade_id"].removeprefix("selfcheck-") in names
    }


@pytest.mark.parametrize("assignment", list(ALL))
def test_alone_the_kit_self_checks_the_released_notebook(clean_venv, tmp_path, assignment):
    release = REPO_ROOT / "release" / assignment
    for data in release.glob("*.json"):
        (tmp_path / data.name).write_bytes(data.read_bytes())
    right = _check_texts(_run_notebook(clean_venv, tmp_path, filled(release / f"{assignment}.ipynb", get(assignment))))
    assert set(right) == {check.name for check in ALL[assignment].checks}
    for name, text in right.items():
        assert re.search(r"(\d+)/\1 public cases right|agrees with the book's reference answer", text), (name, text)
        assert "the points come from hidden cases" not in text  # said once, in the summary
    stub_cells = _run_notebook(clean_venv, tmp_path, json.loads((release / f"{assignment}.ipynb").read_text()))
    assert "Your course kit is" not in json.dumps(stub_cells[-1])  # the summary: the kit it was released with
    assert "Checks right: 0 of" in json.dumps(stub_cells[-1])
    stub = _check_texts(stub_cells)
    for name, text in stub.items():
        assert "still the stub" in text, (name, text)
    mistake = get(assignment).mistakes()[0]
    named = _check_texts(
        _run_notebook(clean_venv, tmp_path, filled(release / f"{assignment}.ipynb", get(assignment), mistake))
    )
    assert f"[{mistake.id}]" in named[mistake.function]


# --------------------------------------------------------------------------- the kit follows the course
def test_the_kit_version_follows_what_it_carries_and_only_that(tmp_path):
    from autograder.coursedir import config

    root = make_course(tmp_path / "course")
    settings = root / "course_config.py"
    original = settings.read_text(encoding="utf-8")

    def version_with(extra: str) -> str:
        settings.write_text(original + extra, encoding="utf-8")
        config.load.cache_clear()
        return kit.version(root)

    plain = version_with("")
    assert plain == kit.version() and plain == version_with("")  # a build again of the same course: the same
    due = {"ch12_bptt": {"due": "2027-03-01T23:59:00+01:00"}}
    dated = version_with(f"\nTERM = {due!r}\n")
    moved = version_with("\nTERM = {'ch12_bptt': {'due': '2027-03-02T23:59:00+01:00'}}\n")
    points = version_with("\nPOINTS = {'bptt_scalar': 7}\n")
    closes = {"ch12_bptt": {**due["ch12_bptt"], "closes": "2027-03-09T23:59:00+01:00", "max_late_days": 2}}
    assert len({plain, dated, moved, points}) == 4  # a due date, a moved one, the points: each a new kit
    assert version_with(f"\nTERM = {closes!r}\n") == dated  # what the kit does not carry leaves it as it is
    assert all(re.fullmatch(r"0\.2\.0\+k[0-9a-f]{12}", v) for v in (plain, dated, moved, points))
    version_with("")


def test_a_new_kit_installs_over_the_old_one_and_the_notebook_says_which_it_wants(clean_venv, wheel, tmp_path):
    """The documented line (`pip install <wheel>`) replaces an older kit; the released notebook's
    summary names the kit it was released with when another runs it (and says nothing on its own kit:
    `test_alone_the_kit_self_checks_the_released_notebook`)."""
    root = make_course(tmp_path / "course")
    with open(root / "course_config.py", "a", encoding="utf-8") as settings:
        settings.write("\nTERM = {'ch12_bptt': {'due': '2027-03-01T23:59:00+01:00'}}\n")
    newer = kit.build(tmp_path / "dist", root)
    own = kit.wheel_name()

    def install(wheel: Path) -> str:
        pip = [sys.executable, "-m", "pip", "--python", str(clean_venv), "install", "--quiet", "--no-deps"]
        subprocess.run([*pip, "--disable-pip-version-check", str(wheel)], check=True, capture_output=True)
        show = "import importlib.metadata as m; print(m.version('rnn-course-kit'))"
        return subprocess.run([str(clean_venv), "-I", "-c", show], capture_output=True, text=True).stdout.strip()

    def summary() -> str:
        notebook = json.loads((REPO_ROOT / "release" / "ch12_bptt" / "ch12_bptt.ipynb").read_text(encoding="utf-8"))
        cells = _run_notebook(clean_venv, tmp_path, notebook)
        return "".join(o.get("text", "") for o in cells[-1]["outputs"] if o["output_type"] == "stream")

    try:
        assert install(newer) == kit.version(root) != kit.version()
        said = re.sub(r"\n +", " ", summary())
        assert f"Your course kit is {kit.version(root)}, not {kit.version()}" in said and f"pip install {own}" in said
        assert "Due: 2027-03-01" in said  # what the other kit carries: why the line is there
    finally:
        assert install(wheel) == kit.version()  # the module's own kit again, by the same line
