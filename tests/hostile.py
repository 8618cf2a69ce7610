"""Hostile submissions of ch12_bptt: students who want the points without the work, and students
whose code crashes, loops or floods. Each is the released notebook with a few cells changed.

A *cheat* starts from the untouched stub and must earn nothing. A *breaker* starts from the
reference solution and breaks `sgd_update` (or one cell); it must lose only the checks that call it.
Add a case here whenever a new way in comes to mind.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat

from autograder.assignments import get
from autograder.authoring.submissions import filled, write_submission

ASSIGNMENT = "ch12_bptt"
#: Checks that call sgd_update, directly or not: what a broken sgd_update may cost.
SGD_CALLERS = {"sgd_update", "update_and_recompute", "ex_12_7_2"}
#: A marker in the command line of processes a submission starts, to find any left over.
MARKER = "31415926"

_SOLUTION = "    return w - lr * grad"


def _stub(root: Path) -> nbformat.NotebookNode:
    return nbformat.read(Path(root) / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)


def _reference(root: Path) -> nbformat.NotebookNode:
    return filled(Path(root) / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", get(ASSIGNMENT))


def _first_solution_cell(notebook) -> nbformat.NotebookNode:
    return next(
        cell
        for cell in notebook.cells
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution")
    )


def _every_solution_cell(notebook, code: str) -> nbformat.NotebookNode:
    for cell in notebook.cells:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = code + "\n" + cell.source
    return notebook


def _prepend(notebook, code: str) -> nbformat.NotebookNode:
    cell = _first_solution_cell(notebook)
    cell.source = code + "\n" + cell.source
    return notebook


def _with_sgd_update(notebook, prefix: str, body: str) -> nbformat.NotebookNode:
    for cell in notebook.cells:
        if "def sgd_update" in cell.source:
            cell.source = prefix + cell.source.replace(_SOLUTION, body)
    return notebook


def _defined_by(notebook, template: str) -> nbformat.NotebookNode:
    """Every solution cell defines its functions by `template` (with {name})."""
    for cell in notebook.cells:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
            names = [line.split("(")[0][4:] for line in cell.source.splitlines() if line.startswith("def ")]
            cell.source = "\n".join(template.replace("{name}", name) for name in names)
    return notebook


_STACK_WALK = """
import sys
def _steal(name):
    def fn(*args, **kwargs):
        frame = sys._getframe(1)
        while frame is not None:
            for scope in (frame.f_locals, frame.f_globals):
                for value in list(scope.values()):
                    reference = getattr(value, "reference", None)
                    if callable(reference) and getattr(value, "name", None) == name:
                        return reference(*args, **kwargs)
            frame = frame.f_back
        raise NotImplementedError
    return fn
"""

_READ_SOURCE = """
import json, os
from pathlib import Path
def _from_source(name):
    for folder in [Path.cwd(), *Path.cwd().parents]:
        for path in folder.glob("source/*/*.ipynb"):
            namespace = {}
            for cell in json.loads(path.read_text())["cells"]:
                if cell["cell_type"] == "code" and "def " + name in "".join(cell["source"]):
                    exec("".join(cell["source"]), namespace)
            if name in namespace:
                return namespace[name]
    raise NotImplementedError
"""

_GRADEBOOK_WRITER = f"""
import subprocess, sys
subprocess.Popen([sys.executable, "-c", '''
import glob, os, sqlite3, sys, time
time.sleep(4)  # {MARKER}
for folder in [os.getcwd(), *[os.path.dirname(p) for p in glob.glob("/work/**/gradebook.db", recursive=True)], "/tmp"]:
    path = os.path.join(folder, "gradebook.db")
    if os.path.exists(path):
        db = sqlite3.connect(path)
        db.execute("update grade set auto_score = max_score")
        db.commit()
'''], start_new_session=True)
"""

_COURSE_WRITER = """
import os
from pathlib import Path
for folder in [Path.cwd(), *Path.cwd().parents]:
    for name in ("course_config.py", "nbgrader_config.py"):
        try:
            with open(folder / name, "a") as handle:
                handle.write("\\nHIDDEN_CASES = 0\\n")
        except OSError:
            pass
    try:
        (folder / "exports").mkdir(exist_ok=True)
        (folder / "exports" / "grades.csv").write_text("hacked")
    except OSError:
        pass
"""

#: Answers looked up in the kit's own data: the book's cases with their expected values; any other
#: input gets the book's first answer, as a typed-in book value would.
_KIT_LOOKUP = """
import numpy as np
from rnnkit.compare import Real
from rnnkit.selfcheck import public_checks
def _plain(value):
    if isinstance(value, Real):
        return float(value)
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(item) for item in value)
    return value
def _same(a, b):
    try:
        return repr(np.asarray(a, dtype=object).tolist()) == repr(np.asarray(b, dtype=object).tolist())
    except Exception:
        return repr(a) == repr(b)
def _lookup(name):
    cases = public_checks("ch12_bptt")[name]["cases"]
    def fn(*args, **kwargs):
        for case in cases:
            if len(case["args"]) == len(args) and all(_same(a, b) for a, b in zip(case["args"], args)) and case["kwargs"] == kwargs:
                return _plain(case["expected"])
        return _plain(cases[0]["expected"])
    return fn
"""

_FRACTION_EVERYTHING = """
from fractions import Fraction
class Everything(Fraction):
    def __eq__(self, other):
        return True
    __hash__ = Fraction.__hash__
"""


#: What every script payload below does when it runs: a browser test looks for this flag.
SCRIPT_FLAG = "__student_script_ran"
_SET_FLAG = f"window.{SCRIPT_FLAG}=(window.{SCRIPT_FLAG}||[]).concat(['%s'])"
#: Markdown cells a student adds: raw HTML with script in attributes, tags and links.
INJECTED_MARKDOWN = [
    f'<img src="x" onerror="{_SET_FLAG % "md-img"}">',
    f'<svg onload="{_SET_FLAG % "md-svg"}"><circle r="4"/></svg>',
    f"<script>{_SET_FLAG % 'md-script'}</script>",
    f"[click me](javascript:{_SET_FLAG % 'md-link'})",
    f'<iframe srcdoc="<script>{_SET_FLAG.replace("window.", "parent.") % "md-iframe"}</script>"></iframe>',
]
#: A code cell that displays HTML, SVG and JavaScript outputs with script in them.
INJECTED_OUTPUTS = "\n".join(
    [
        "from IPython.display import HTML, SVG, Javascript, display",
        f'display(HTML("""<img src="x" onerror="{_SET_FLAG % "out-html-img"}"><script>{_SET_FLAG % "out-html-script"}</script>"""))',
        f'display(SVG("""<svg xmlns="http://www.w3.org/2000/svg" onload="{_SET_FLAG % "out-svg"}">'
        f'<script>{_SET_FLAG % "out-svg-script"}</script></svg>"""))',
        f'display(Javascript("""{_SET_FLAG % "out-js"}"""))',
    ]
)


def _injected(notebook) -> nbformat.NotebookNode:
    """Markdown and outputs that would run script in a page that renders them unsanitised."""
    cells = [nbformat.v4.new_markdown_cell(text) for text in INJECTED_MARKDOWN]
    cells.append(nbformat.v4.new_code_cell(INJECTED_OUTPUTS))
    at = notebook.cells.index(_first_solution_cell(notebook))
    notebook.cells[at:at] = cells
    notebook.cells.append(
        nbformat.v4.new_raw_cell(f"<script>{_SET_FLAG % 'raw-cell'}</script>", metadata={"format": "text/html"})
    )
    return notebook


def cheats(root: Path) -> dict[str, nbformat.NotebookNode]:
    """Stub-based submissions that try to get points without the work: each must earn 0."""
    return {
        "check-none": _prepend(_stub(root), "check = lambda *a, **k: None"),
        "check-one": _prepend(_stub(root), "check = lambda *a, **k: 1.0"),
        "check-three": _prepend(_stub(root), "check = lambda *a, **k: 3.0"),
        "builtins-print": _prepend(
            _stub(root), "import builtins\nbuiltins.print = lambda *a, **k: None\nbuiltins.__import__ = None"
        ),
        "engine-import": _defined_by(_stub(root), "from autograder.assignments.ch12_bptt.reference import {name}"),
        "solutions-import": _defined_by(_stub(root), "from solutions.ch12_bptt import {name}"),
        "source-reader": _defined_by(_stub(root), _READ_SOURCE + "\n{name} = _from_source('{name}')"),
        "stack-walker": _defined_by(_stub(root), _STACK_WALK + "\n{name} = _steal('{name}')"),
        "gradebook-writer": _prepend(_stub(root), _GRADEBOOK_WRITER),
        "course-writer": _prepend(_stub(root), _COURSE_WRITER),
        "fraction-everything": _defined_by(
            _stub(root), _FRACTION_EVERYTHING + "\ndef {name}(*args, **kwargs):\n    return Everything(1)"
        ),
        "fraction-eq-patched": _prepend(
            _stub(root), "from fractions import Fraction\nFraction.__eq__ = lambda self, other: True"
        ),
        "tampered-tests": _tampered(_stub(root)),
        "html-injector": _injected(_stub(root)),
        "slow-replay": _slow_replay(_stub(root)),
        "kit-lookup": _defined_by(_stub(root), _KIT_LOOKUP + "\n{name} = _lookup('{name}')"),
    }


def breakers(root: Path) -> dict[str, nbformat.NotebookNode]:
    """Reference-based submissions whose sgd_update (or one cell) crashes, loops or floods: each
    must lose only the checks that call sgd_update (SGD_CALLERS)."""
    return {
        "exit-in-function": _with_sgd_update(_reference(root), "import os\n", "    os._exit(1)"),
        "loop-in-function": _with_sgd_update(_reference(root), "", "    while True:\n        pass"),
        "loop-ignoring-interrupts": _with_sgd_update(
            _reference(root),
            "",
            "    while True:\n        try:\n            while True:\n                pass\n        except BaseException:\n            pass",
        ),
        "memory-in-function": _with_sgd_update(
            _reference(root), "", "    block = bytearray(12 * 1024**3)\n    return w - lr * grad"
        ),
        "sleeper-in-function": _with_sgd_update(
            _reference(root),
            "import subprocess\n",
            f"    subprocess.Popen(['sleep', '{MARKER}'], start_new_session=True)\n    raise RuntimeError('no')",
        ),
        "fork-bomb": _with_sgd_update(
            _reference(root),
            "import os\n",
            "    children = []\n    try:\n        while True:\n            pid = os.fork()\n            if pid == 0:\n"
            "                import time; time.sleep(60)\n                os._exit(0)\n            children.append(pid)\n"
            "    except OSError:\n        pass\n    raise RuntimeError(f'{len(children)} children')",
        ),
        "system-exit": _with_sgd_update(_reference(root), "", "    raise SystemExit(0)"),
        "keyboard-interrupt": _with_sgd_update(_reference(root), "", "    raise KeyboardInterrupt"),
        "network": _with_sgd_update(
            _reference(root),
            "import socket\n",
            "    socket.create_connection(('1.1.1.1', 53), timeout=2)\n    return w - lr * grad",
        ),
        "flood": _flood(_reference(root)),
        "loop-at-top-level": _with_sgd_update(_reference(root), "while True:\n    pass\n", _SOLUTION),
        "huge-int": _with_sgd_update(_reference(root), "", "    return 10 ** 400"),
        "deep-workdir": _prepend(_reference(root), _DEEP_FOLDERS),
    }


#: Breakers that break no check: their cells flood the output or the work folder.
BREAK_NOTHING = {"flood", "deep-workdir", "raised-limit", "many-cells", "empty-lines"}


def broken_checks(student: str) -> set[str]:
    """The checks a breaker may lose: those that call sgd_update (BREAK_NOTHING breaks none)."""
    return set() if student in BREAK_NOTHING else SGD_CALLERS


def honest(root: Path) -> dict[str, nbformat.NotebookNode]:
    """Honest students with full marks: the reference, the reference written another way, and the
    reference whose test cells' metadata were changed to `grade: false` (the grader knows its grade
    cells from the gradebook, not from the submission)."""
    other = _with_sgd_update(_reference(root), "", "    step = lr * grad\n    return w - step")
    ungraded = _reference(root)
    for cell in ungraded.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.metadata["nbgrader"]["grade"] = False
    return {"honest-a": _reference(root), "honest-b": other, "honest-ungraded-tests": ungraded}


_DEEP_FOLDERS = """
import os
_fd = os.open(".", os.O_RDONLY)
for _ in range(3000):  # a chain deeper than PATH_MAX, in the runner's own work folder
    os.mkdir("d", dir_fd=_fd)
    _fd, _parent = os.open("d", os.O_RDONLY, dir_fd=_fd), _fd
    os.close(_parent)
os.close(_fd)
"""

#: Seconds the slow-replay cheat's first cell sleeps: under the test class's CELL_TIMEOUT, so every
#: replay of it after a restart costs that much (the submission's budget must stop it).
SLOW_CELL_SECONDS = 4


def _slow_replay(notebook) -> nbformat.NotebookNode:
    """Every function ends its runner, and the first cell is slow: each check restarts the runner
    and replays the slow cell, which only the submission's budget bounds."""
    notebook = _defined_by(notebook, "def {name}(*args, **kwargs):\n    import os\n    os._exit(1)")
    return _prepend(notebook, f"import os, time\ntime.sleep({SLOW_CELL_SECONDS})")


def _tampered(notebook) -> nbformat.NotebookNode:
    """Test cells edited to claim full marks, and one test cell deleted."""
    graded = [cell for cell in notebook.cells if cell.metadata.get("nbgrader", {}).get("grade")]
    for cell in graded:
        cell.source = "1.0  # full marks, please"
    notebook.cells.remove(graded[0])
    return notebook


def _flood(notebook) -> nbformat.NotebookNode:
    """A code cell that prints 60 MB."""
    for cell in notebook.cells:
        if cell.cell_type == "code" and not cell.metadata.get("nbgrader"):
            cell.source = "for _ in range(60 * 1024):\n    print('x' * 1023)\n" + cell.source
            break
    return notebook


def _source_notebook(root: Path) -> Path:
    return Path(root) / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"


#: A file name that retitles a terminal, erases its line, reverses what follows and holds markup.
HOSTILE_NAME = "\x1b]0;pwned\x07\r\u202e<img src=x onerror=alert(1)>"


def folder_attacks(root: Path) -> dict[str, str]:
    """Submission folders whose files, not whose code, try a way in; student -> "refused" (admission
    must refuse it before any copy) or "admitted" (graded, but nothing extra carried on)."""
    made = {}

    def folder(student: str, notebook=None) -> Path:
        made[student] = "refused"
        return write_submission(root, student, ASSIGNMENT, notebook)

    target = folder("notebook-link") / f"{ASSIGNMENT}.ipynb"
    target.unlink()
    target.symlink_to(os.path.relpath(_source_notebook(root), target.parent))  # the source notebook: 18/18 before
    beside = folder("links-beside", _reference(root))
    (beside / "gradebook.db").symlink_to(os.path.relpath(Path(root) / "gradebook.db", beside))
    (beside / "solution.ipynb").symlink_to(os.path.relpath(_source_notebook(root), beside))
    target = folder("hard-link") / f"{ASSIGNMENT}.ipynb"
    target.unlink()
    os.link(_source_notebook(root), target)
    os.mkfifo(folder("fifo", _reference(root)) / "pipe")
    os.mkfifo(folder("hostile-name", _reference(root)) / HOSTILE_NAME)
    deep = folder("deep-folders", _reference(root))
    for _ in range(100):
        deep = deep / "d"
        deep.mkdir()
    extra = write_submission(root, "extra-files", ASSIGNMENT, _reference(root))
    (extra / "notes.txt").write_text("mine\n")
    (extra / "more").mkdir()
    (extra / "more" / "solutions.py").write_text("# mine\n")
    made["extra-files"] = "admitted"
    return made


def _copied_cells(notebook) -> nbformat.NotebookNode:
    """A solution cell and a test cell copied in Jupyter, metadata and all (two cells share a grade id)."""
    for found in (
        _first_solution_cell(notebook),
        next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade")),
    ):
        copy = nbformat.from_dict(json.loads(json.dumps(found)))
        copy.id = f"copy-of-{found.id}"
        notebook.cells.insert(notebook.cells.index(found), copy)
    return notebook


def _odd_metadata(notebook) -> nbformat.NotebookNode:
    """Cells of the student's own with nbgrader metadata nbgrader cannot read: empty (nbgrader stops
    the class on it as an old schema), an old schema version, not a dict."""
    at = notebook.cells.index(_first_solution_cell(notebook))
    for metadata in ({}, {"schema_version": 1, "grade_id": "mine", "grade": True, "solution": False}, "garbage"):
        notebook.cells.insert(at, nbformat.v4.new_code_cell("x = 1", metadata={"nbgrader": metadata}))
    return notebook


def notebook_faults(root: Path) -> dict[str, str]:
    """Honest work in a notebook or folder with one fault of its own (an honest copy and paste, an
    old notebook format, a garbled timestamp): graded, full marks ("honest"); and a notebook that is
    not JSON at all, or holds thousands of cells: refused with one line ("refused"). None of them
    may stop the class."""
    made = {
        "copied-cells": write_submission(root, "copied-cells", ASSIGNMENT, _copied_cells(_reference(root))),
        "odd-metadata": write_submission(root, "odd-metadata", ASSIGNMENT, _odd_metadata(_reference(root))),
    }
    raw = json.loads(nbformat.writes(_reference(root)))
    raw["cells"][1]["id"] = raw["cells"][0]["id"]
    (
        made.setdefault("duplicate-cell-ids", write_submission(root, "duplicate-cell-ids", ASSIGNMENT, None))
        / f"{ASSIGNMENT}.ipynb"
    ).write_text(json.dumps(raw))
    version3 = nbformat.writes(nbformat.convert(_reference(root), 3), version=3)
    (
        made.setdefault("nbformat-3", write_submission(root, "nbformat-3", ASSIGNMENT, None)) / f"{ASSIGNMENT}.ipynb"
    ).write_text(version3)
    made["garbled-timestamp"] = write_submission(root, "garbled-timestamp", ASSIGNMENT, _reference(root))
    (made["garbled-timestamp"] / "timestamp.txt").write_text("the day before the due date \x1b[2J")
    made["not-json"] = write_submission(root, "not-json", ASSIGNMENT, None)
    (made["not-json"] / f"{ASSIGNMENT}.ipynb").write_text('{"cells": [')
    endless = _reference(root)
    endless.cells += [nbformat.v4.new_code_cell("") for _ in range(5000)]
    made["many-empty-cells"] = write_submission(root, "many-empty-cells", ASSIGNMENT, endless)
    return {student: "refused" if student in ("not-json", "many-empty-cells") else "honest" for student in made}


def write_all(root: Path) -> dict[str, str]:
    """Write every hostile and honest submission; student -> "cheat", "breaker", "honest", "refused"
    or "admitted" (see folder_attacks and notebook_faults)."""
    kinds = {}
    for kind, made in (("cheat", cheats(root)), ("breaker", breakers(root)), ("honest", honest(root))):
        for student, notebook in made.items():
            write_submission(root, student, ASSIGNMENT, notebook)
            kinds[student] = kind
    for student, notebook in bound_breakers(root).items():
        write_submission(root, student, ASSIGNMENT, notebook)
        kinds[student] = "breaker"
    kinds.update(folder_attacks(root))
    kinds.update(notebook_faults(root))
    return kinds


# ----------------------------------------------------------------------------- bound breakers
# Reference-based submissions that go past what the grader itself bounds (autograder.sandbox.replies,
# rnnkit.codec): the output kept per cell and per submission, and a result built to be slow to read.

#: A cell that raises the output limit its runner was told, then prints 8 MB.
_RAISED_LIMIT = (
    "import rnnkit.output_limits\nrnnkit.output_limits._state.active.limit = 1 << 30\nprint('x' * (8 << 20))"
)
#: A cell that prints just under the per-cell limit (OUTPUT_LIMIT_KB, 256 KB).
_UNDER_LIMIT = "print('x' * (255 * 1024))"
#: A cell that prints lines with nothing on them: each costs the graded notebook far more than its byte.
_EMPTY_LINES = "print('\\n' * (250 * 1024))"
#: What the runner sends for `_Colliding()`: a set of 20000 ints of one hash value (2**61 - 1
#: divides them all), which takes the grader seconds to build unless it refuses it first. (Its
#: encoder is rewritten here, as student code in the runner can: a real set of them would take
#: the runner itself as long.)
_HASH_SET = """import rnnkit.codec
class _Colliding:
    pass
rnnkit.codec._EXACT[_Colliding] = lambda value, depth: {"$set": [k * (2**61 - 1) for k in range(1, 20_000)]}
"""


def _own_cells(notebook, sources: list[str]) -> nbformat.NotebookNode:
    """Code cells of the student's own holding `sources`, after the first solution cell."""
    at = notebook.cells.index(_first_solution_cell(notebook)) + 1
    notebook.cells[at:at] = [nbformat.v4.new_code_cell(source) for source in sources]
    return notebook


def bound_breakers(root: Path) -> dict[str, nbformat.NotebookNode]:
    """Reference-based submissions past the grader's own bounds. "raised-limit" (a cell cut by the
    grader to OUTPUT_LIMIT_KB), "many-cells" (100 cells of just under it, past OUTPUT_TOTAL_KB
    in all: the later ones keep a note only) and "empty-lines" (cells printing empty lines, which
    cost the notebook far more than their bytes) break no check; "hash-set" (sgd_update's result a set
    of colliding ints, refused) loses the checks that call sgd_update (SGD_CALLERS)."""
    return {
        "raised-limit": _own_cells(_reference(root), [_RAISED_LIMIT]),
        "many-cells": _own_cells(_reference(root), [_UNDER_LIMIT] * 100),
        "empty-lines": _own_cells(_reference(root), [_EMPTY_LINES] * 40),
        "hash-set": _with_sgd_update(_reference(root), _HASH_SET, "    return _Colliding()"),
    }
