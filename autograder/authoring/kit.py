"""The student kit: the public half of every assignment, built into its own wheel (`rnnkit`).

`kit/` holds the kit's code and its own sentences (`messages/core.<lang>.json`); what it knows of
the assignments is built from them when the kit is built, never committed: each assignment's public
half (`public/<a>.json`: `public_half`, points, rules, book cases with their labels in each language,
expected values and the catalogued mistakes' outputs on them, and the due date where the course's
TERM gives one (`due_date`), as codec JSON) and its mistakes' sentences (`messages/<a>.<lang>.json`,
from each `@mistake`). `build(out)` makes the wheel from a copy of `kit/` with that data;
`install()` writes it into `kit/` (ignored by git) and installs the kit in the course's own
environment (`make venv`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from rnnkit import codec
from rnnkit.compare import compare
from rnnkit.jail.limits import Limits
from rnnkit.messages import LANGUAGES

from ..assignments import ALL
from ..coursedir import config
from ..coursedir.settings import Settings
from ..grading.checks import mistaken_output, public_cases
from ..term import policy
from ..vocabulary.spec import Assignment

KIT = config.REPO_ROOT / "kit"


def due_date(settings: Settings, assignment: str) -> dict[str, str] | None:
    """The due date of `assignment` as the kit stores it, None where the course's TERM gives none:
    `at`, ISO 8601 with its offset, in the course's `TIMEZONE`, and `zone`, that zone's name. The
    due date is public (every student of the course has it); a student's extension is not, and
    never goes in the kit (nor does anything else of TERM)."""
    due = policy.rules(settings, assignment).due
    if due is None:
        return None
    return {"at": due.astimezone(policy.zone(settings)).isoformat(), "zone": settings.TIMEZONE}


def public_half(
    spec: Assignment,
    overrides: dict | None = None,
    due: dict[str, str] | None = None,
    CALL_TIMEOUT: float = Limits.CALL_TIMEOUT,
) -> dict[str, Any]:
    """What the student kit stores: per check its points (0 for a self-check), rules and book
    cases, each with the expected value and the catalogued mistakes' outputs on it (those that
    differ), and the function each mistake of a function the check calls replaces (`callees`);
    the points of each written answer (graded by hand; no rubric); the seconds one call may take,
    as at grading (the course's CALL_TIMEOUT); and the due date (`due_date`), where
    there is one."""
    checks = {}
    for check in spec.checks:
        cases = []
        for case, _, expected in public_cases(check, labelled=False):
            outputs = []
            for entry in spec.for_check(check.name):
                output = mistaken_output(entry, check, case)
                if output is not None and not compare(output, expected, exact=check.exact, rtol=check.rtol).ok:
                    outputs.append((entry.id, output))
            cases.append(
                {
                    "label": case.label,
                    "args": case.args,
                    "kwargs": case.kwargs,
                    "expected": expected,
                    "mistakes": outputs,
                }
            )
        rules = check.rules
        checks[check.name] = {
            "points": spec.points(check.name, overrides),
            "cases": cases,
            "rules": {"exact": rules.exact, "rtol": rules.rtol, "reveal": rules.reveal, "call": rules.call},
            "callees": {
                entry.id: entry.function for entry in spec.for_check(check.name) if entry.function != check.name
            },
        }
    half = {
        "assignment": spec.name,
        "checks": checks,
        "written": {answer.name: spec.points(answer.name, overrides) for answer in spec.written},
        "CALL_TIMEOUT": CALL_TIMEOUT,
    }
    if due is not None:
        half["due"] = dict(due)
    return half


def public_files(root: str | Path = config.REPO_ROOT) -> dict[str, bytes]:
    """path in the kit's package -> contents, of the public data and the mistakes' sentences, for
    the course at `root` (its POINTS, and its TERM's due dates in its TIMEZONE)."""
    settings = config.load(root)
    files = {}
    for name, spec in ALL.items():
        files[f"public/{name}.json"] = (
            codec.dumps(public_half(spec, settings.POINTS, due_date(settings, name), settings.CALL_TIMEOUT)) + b"\n"
        )
        for lang in LANGUAGES:
            says = {f"mistake.{entry.id}": entry.says[lang] for entry in spec.mistakes() if entry.says}
            files[f"messages/{name}.{lang}.json"] = json.dumps(says, ensure_ascii=False, indent=2).encode() + b"\n"
    return files


def write_public(package: Path, root: str | Path = config.REPO_ROOT) -> list[Path]:
    """Write the public data and the mistakes' sentences into a copy of the kit's package folder."""
    written = []
    for name, data in public_files(root).items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_bytes(data)
        written.append(package / name)
    return written


def build(out: str | Path = "dist", root: str | Path = config.REPO_ROOT) -> Path:
    """The kit's wheel in `out`, with the public data of the course at `root`."""
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "kit"
        shutil.copytree(KIT, source, ignore=_not_source)
        write_public(source / "rnnkit", root)
        before = set(out.glob("*.whl"))
        _run(
            [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(source)],
            "building the kit",
        )
    made = sorted(set(out.glob("rnn_course_kit-*.whl")) - before) or sorted(out.glob("rnn_course_kit-*.whl"))
    return made[-1]


def install(root: str | Path = config.REPO_ROOT) -> None:
    """Build the kit of the course at `root` in `kit/` (its data beside its code, ignored by git)
    and install it in this environment."""
    write_public(KIT / "rnnkit", root)
    try:
        _run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall", str(KIT)],
            "installing the kit",
        )
    finally:
        shutil.rmtree(KIT / "build", ignore_errors=True)
        for info in KIT.glob("*.egg-info"):
            shutil.rmtree(info)


def _not_source(folder: str, names: list[str]) -> set[str]:
    """Of a folder of `kit/`, what is not the kit's source: caches, build leftovers, and the data
    `install` wrote (`public/`, the assignments' `messages/<a>.<lang>.json`), which `build` writes afresh."""
    skipped = {name for name in names if name in ("__pycache__", "build", "public") or name.endswith(".egg-info")}
    if Path(folder).name == "messages":
        skipped |= {name for name in names if name.endswith(".json") and not name.startswith("core.")}
    return skipped


def _run(command: list[str], doing: str) -> None:
    """Run `command` with the umask of a public install: the kit is what every student may read."""
    result = subprocess.run(command, capture_output=True, text=True, umask=0o022)
    if result.returncode != 0:
        raise RuntimeError(f"{doing} failed:\n{result.stdout}\n{result.stderr}")
